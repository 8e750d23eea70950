#!/usr/bin/env bash
# The H200 experiment for the GEMM sample (issue 5), in one call of the device tool:
#   1. record the machine (nvidia-smi, nvcc) for tests/data/toolchain and docs/run.md
#   2. build examples/gemm/gemm.cu with nvcc -arch=sm_90 -O3 -lcublas; run it at 4096^3 (twice,
#      for the spread) and at a small size (1024^3); build it once more through CMakeLists.txt
#   3. run examples/gemm/matmul_cuda.py (torch.cuda path, load_inline extension) at 4096^3 and 1024^3
#   4. run `hipport run --json --baseline` on the sample and on matmul_cuda.py (hipport staged on
#      PYTHONPATH from the working tree; textual/libclang are not needed on that path)
# Everything a step prints goes to $OUT/<step>.log; a short table is printed last.
# Usage (device tool): bash scripts/device_gemm.sh      (OUT defaults to ./.devout)
set -u
OUT=${OUT:-$PWD/.devout}
FINAL=$OUT
OUT=$FINAL/logs      # everything goes here, packed into one tarball at the end (the tool returns <= 8 files)
mkdir -p "$OUT"
REPO=$PWD
export PYTHONUNBUFFERED=1
step() {  # step NAME CMD...: run, log, keep going
    local name=$1; shift
    local t0=$(date +%s%N)
    ( "$@" ) >"$OUT/$name.log" 2>&1
    local rc=$?
    local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    printf '%-22s rc=%-3s %7d ms\n' "$name" "$rc" "$ms" | tee -a "$OUT/steps.txt"
    return 0
}

date -u +"%Y-%m-%dT%H:%M:%SZ" >"$OUT/date.txt"
nvidia-smi --query-gpu=index,name,pci.bus_id,uuid,memory.total,compute_cap --format=csv,noheader,nounits \
    >"$OUT/nvidia_smi_query.csv" 2>&1
nvidia-smi --query-gpu=index,utilization.gpu,memory.used,memory.total --format=csv,noheader,nounits \
    >"$OUT/nvidia_smi_usage.csv" 2>&1
{ nvcc --version; nvidia-smi; python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "hip", torch.version.hip)'; } \
    >"$OUT/machine.txt" 2>&1

BUILD=$(mktemp -d)
step build_gemm nvcc -O3 -arch=sm_90 -Xptxas -v examples/gemm/gemm.cu -lcublas -o "$BUILD/gemm"
step gemm_4096_a "$BUILD/gemm" 4096 --repeats 20 --warmup 3
step gemm_4096_b "$BUILD/gemm" 4096 --repeats 20 --warmup 3
step gemm_1024 "$BUILD/gemm" 1024 --repeats 50 --warmup 5
CMB=$(mktemp -d)
step cmake_cuda bash -c "cmake -S examples/gemm -B $CMB -DGEMM_LANG=CUDA -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build $CMB -j 8 && $CMB/gemm 1024 --repeats 10"
(cd examples/gemm && step torch_4096 python3 matmul_cuda.py --size 4096 --repeats 20 --warmup 3)
(cd examples/gemm && step torch_1024 python3 matmul_cuda.py --size 1024 --repeats 50 --warmup 5)
# optional: the engine's Python ports (portable and wave64 fixes), carried in .devin/ (not committed),
# their extension include switched back to cuda_runtime.h so they compile on NVIDIA
if [ -d .devin ]; then
    step port_portable python3 .devin/matmul_hip_portable.py --size 4096 --repeats 20 --warmup 3
    step port_wave64 python3 .devin/matmul_hip_wave64.py --size 1024 --repeats 10 --warmup 2
fi

# hipport, staged on PYTHONPATH: hipport.engine -> engine/, hipport.tui -> tui/, ...
STAGE=$(mktemp -d)
mkdir -p "$STAGE/hipport"
for d in engine tui examples themes; do [ -d "$REPO/$d" ] && ln -s "$REPO/$d" "$STAGE/hipport/$d"; done
export PYTHONPATH="$STAGE${PYTHONPATH:+:$PYTHONPATH}"
WORK=$(mktemp -d)
cp -r examples/gemm "$WORK/gemm"
step hipport_doctor python3 -m hipport.tui.cli doctor "$WORK/gemm"
step hipport_run_gemm python3 -m hipport.tui.cli run --json --baseline "$WORK/gemm" --args "4096"
step hipport_run_torch python3 -m hipport.tui.cli run --json --baseline "$WORK/gemm/matmul_cuda.py" --args "--size 4096"

echo
echo "== results (JSON lines) =="
for f in gemm_4096_a gemm_4096_b gemm_1024 cmake_cuda torch_4096 torch_1024 port_portable port_wave64; do
    echo "-- $f"; grep '^{' "$OUT/$f.log" 2>/dev/null | sed 's/"checksum_rel_err[^,]*, //; s/"reference[^,]*, //'
done
echo "-- hipport run --baseline (gemm): status"; grep -m1 '"status"' "$OUT/hipport_run_gemm.log"
echo "-- hipport run --baseline (torch): status"; grep -m1 '"status"' "$OUT/hipport_run_torch.log"
tail -n 3 "$OUT/hipport_doctor.log"
grep -m1 -A3 '"peak_usage"' "$OUT/hipport_run_torch.log"
cat "$OUT/steps.txt"
tar czf "$FINAL/logs.tgz" -C "$FINAL" logs && cp "$OUT/steps.txt" "$FINAL/" && rm -rf "$OUT"
