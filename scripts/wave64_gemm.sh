#!/usr/bin/env bash
# wave64_gemm.sh: run the bundled GEMM's HIP port under the wave64 emulator (64-lane wavefronts on an
# NVIDIA GPU), unfixed and with hipport's fixes in both styles, and read each kernel's JSON result line.
#
#   scripts/wave64_gemm.sh prepare   # here: port examples/gemm/gemm.cu three ways into .w64/gemm/
#                                    # (needs .w64/tool from `scripts/wave64_corpus.sh prepare`)
#   bash scripts/wave64_gemm.sh run  # on the GPU machine with .w64 carried; W64_BUILD_ONLY=1 to only compile
#
# Expectation: the unfixed port does not compile (32-bit *_sync masks, as on ROCm 7); the naive hand fix
# (mask literal widened to 0xffffffffull, nothing else) compiles and fails its warp-shuffle row checksum
# under 64-lane semantics; the wave64
# and portable ports pass (portable also on a real 32-wide warp, --native). Built with -DGEMM_NO_BLAS
# (the emulator has no hipBLAS): the self-check uses the reference kernel. Size 256^3, one repeat.
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
w64="$root/.w64"
case "${1:-}" in
prepare)
  [ -x "$w64/tool/run_wave64.sh" ] || { echo "run scripts/wave64_corpus.sh prepare first" >&2; exit 2; }
  mkdir -p "$w64/gemm"
  "$root/.venv/bin/python" - "$root/examples/gemm/gemm.cu" "$w64/gemm" <<'PY'
import sys, pathlib
from hipport.engine.source import read_source
from hipport.engine.pipeline import port
from hipport.engine.model import FixStyle
src, out = read_source(sys.argv[1]), pathlib.Path(sys.argv[2])
import re
for tag, fixes, style in (("unfixed", "none", FixStyle.WAVE64), ("wave64", "all", FixStyle.WAVE64),
                          ("portable", "all", FixStyle.PORTABLE)):
    r = port(src, fixes=fixes, style=style)
    (out / f"gemm.{tag}.hip").write_text(r.text)
    print(tag, "findings fixed:", len(r.applied_findings))
    if tag == "unfixed":  # the naive hand fix: widen the mask literal so it compiles, change nothing else
        naive = re.sub(r"\b0x[fF]{8}\b(?![uUlL])", "0xffffffffull", r.text)
        (out / "gemm.naive.hip").write_text(naive)
PY
  ;;
run)
  out="${OUT:-$w64}"
  cache="$w64/gemm/bin"
  printf '| variant | mode | build | tiled | regblock |\n|---|---|---|---|---|\n' | tee "$out/wave64_gemm.md"
  for v in unfixed naive wave64 portable; do
    modes="constexpr rocm7"; [ "$v" = portable ] && modes="constexpr rocm7 native"
    for m in $modes; do
      opt=(--mode "$m"); [ "$m" = native ] && opt=(--native)
      b=$(bash "$w64/tool/run_wave64.sh" "$w64/gemm/gemm.$v.hip" "${opt[@]}" --build-only --cache "$cache" \
            -DGEMM_NO_BLAS 2>&1 | tail -1)
      row="| $v | $m | ${b%% *}"
      if [ "${W64_BUILD_ONLY:-0}" = 1 ] || [[ "$b" != BUILD-OK* ]]; then
        echo "$row | - | - |" | tee -a "$out/wave64_gemm.md"; continue
      fi
      exe=$(ls -t "$cache"/gemm."$v".hip-* 2>/dev/null | grep -v '\.tmp' | head -1)
      res=$(timeout 120 "$exe" 256 --repeats 1 --warmup 0 2>&1)
      t=$(echo "$res" | grep '"kernel": "tiled"' | grep -o '"pass": [a-z]*' | cut -d' ' -f2)
      r=$(echo "$res" | grep '"kernel": "regblock"' | grep -o '"pass": [a-z]*' | cut -d' ' -f2)
      echo "$row | ${t:-no result} | ${r:-no result} |" | tee -a "$out/wave64_gemm.md"
      echo "$res" > "$out/wave64_gemm.$v.$m.log"
    done
  done
  ;;
*) echo "usage: $0 prepare|run" >&2; exit 2 ;;
esac
