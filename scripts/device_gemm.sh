#!/usr/bin/env bash
# The H200 run of issue 12, in one call of the device tool (prepared on the CPU machine first:
# `python3 scripts/device_runner_prepare.py` writes .devout/runner, carried with the call):
#   1. the CUDA baseline of the GEMM sample and three HeCBench programs (adam, laplace3d, haccmk),
#      recorded by `hipport run --baseline` (in parallel: correctness only, their timings unused)
#   2. each HIP port built with HIP's NVIDIA platform and run, compared with the baseline
#      (`hipport run --platform nvidia`), and a deliberately wrong port of each, which must differ
#   3. GEMM speed at 4096^3 FP32, nothing else running: the CUDA original's and the HIP port's
#      register-blocked kernel (every --variant) and cuBLAS, 10 warm-ups + 50 timed launches each,
#      two rounds; median, p20/p80 and spread per run (the binaries step 1 and 2 built)
# Everything goes to $OUT/logs (packed into logs.tgz); $OUT/summary.txt is the table.
set -u
OUT=${OUT:-$PWD/.devout/out}
LOGS=$OUT/logs
mkdir -p "$LOGS"
REPO=$PWD
PREP=$REPO/.devout/runner
export HIPPORT_HIP_INCLUDE=$PREP/hipinc PYTHONUNBUFFERED=1
STAGE=$(mktemp -d)
mkdir -p "$STAGE/hipport"
for d in engine tui examples themes; do [ -d "$REPO/$d" ] && ln -s "$REPO/$d" "$STAGE/hipport/$d"; done
export PYTHONPATH="$STAGE${PYTHONPATH:+:$PYTHONPATH}"
hp() { python3 -m hipport.cli "$@"; }
W=$(mktemp -d)
cp -r "$PREP/good" "$PREP/wrong" "$W/"
PROGS="gemm adam laplace3d haccmk"
T0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - T0 )) s] $*" | tee -a "$LOGS/steps.txt"; }

{ date -u; nvidia-smi --query-gpu=name,pci.bus_id,driver_version,compute_cap,clocks.max.sm --format=csv; nvcc --version | tail -2; } \
    > "$LOGS/machine.txt" 2>&1
stamp "phase 1: CUDA baselines"
for p in $PROGS; do
    ( hp run --baseline --json --trust "$W/good/$p" > "$LOGS/base_$p.json" 2> "$LOGS/base_$p.err" ) &
done
wait
stamp "phase 2: HIP ports via the NVIDIA platform, and the wrong ports"
for p in $PROGS; do
    mkdir -p "$W/wrong/$p/.hipport/baseline"
    cp "$W/good/$p/.hipport/baseline/"*.json "$W/wrong/$p/.hipport/baseline/" 2>/dev/null
    ( hp run --platform nvidia --json --trust "$W/good/$p" > "$LOGS/port_$p.json" 2> "$LOGS/port_$p.err" ) &
    ( hp run --platform nvidia --json --trust "$W/wrong/$p" > "$LOGS/wrong_$p.json" 2> "$LOGS/wrong_$p.err" ) &
done
wait
stamp "phase 3: GEMM speed"
C=$W/good/gemm/build/cuda/gemm
H=$W/good/gemm/build/gemm
for round in 1 2; do
    for v in 0 1 2 3 4 5; do
        "$C" 4096 --kernel regblock --variant $v --repeats 50 --warmup 10 > "$LOGS/perf_cuda_v${v}_r$round.log" 2>&1
        "$H" 4096 --kernel regblock --variant $v --repeats 50 --warmup 10 > "$LOGS/perf_hip_v${v}_r$round.log" 2>&1
    done
    "$C" 4096 --kernel blas --repeats 50 --warmup 10 > "$LOGS/perf_cuda_blas_r$round.log" 2>&1
    "$H" 4096 --kernel blas --repeats 50 --warmup 10 > "$LOGS/perf_hip_blas_r$round.log" 2>&1
done
stamp "done"
cp "$W/good/gemm/.hipport/baseline/"*.json "$LOGS/" 2>/dev/null
python3 "$REPO/scripts/device_runner_summary.py" "$LOGS" | tee "$OUT/summary.txt"
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$LOGS"
