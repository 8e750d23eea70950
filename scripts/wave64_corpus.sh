#!/usr/bin/env bash
# wave64_corpus.sh: prove hipport's warp fixes by running the warp corpus under the wave64 emulator.
#
#   scripts/wave64_corpus.sh prepare   # here (needs .venv): translate every firing corpus kernel,
#                                      # unfixed and fixed in both styles, into .w64/corpus/, and copy
#                                      # ../shared/tools/wave64 into .w64/tool/ (git-ignored)
#   scripts/wave64_corpus.sh run       # on the GPU machine (nvcc + an NVIDIA GPU), with .w64 carried:
#                                      # instrument + compile + run every kernel in every mode, print
#                                      # one table, write it to $OUT/wave64_table.md (or .w64/)
#   W64_BUILD_ONLY=1 W64_ONLY="W64-01 W64-06" scripts/wave64_corpus.sh run
#                                      # dry run without a GPU: compile only (verdict BUILD-OK)
#
# Modes per kernel: unfixed translation (ROCm 6 and ROCm 7 warpSize models), wave64 fixes (both
# models), portable fixes (both models and --native, a real 32-wide warp). Expectations:
#   fixed: RESULT PASS everywhere;  unfixed under rocm7: not PASS for wrong-result and compile-error
#   rules (the kernel can catch a broken fix);  performance rules: PASS either way.
# Not runnable under the emulator (no cooperative groups, no hipCUB): W64-13, W64-21; W64-11 is
# Python (its CUDA string is analysed, not run). Exit status 0 when every expectation holds.
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
w64="$root/.w64"
cmd=${1:-}

case "$cmd" in
prepare)
  src="${WAVE64_TOOL:-$root/../shared/tools/wave64}"
  [ -d "$src" ] || { echo "wave64 tool not found at $src (set WAVE64_TOOL)" >&2; exit 2; }
  rm -rf "$w64/tool" "$w64/corpus"
  mkdir -p "$w64/tool" "$w64/corpus"
  cp -r "$src"/. "$w64/tool/"
  # The tool documents __GFX9__/__gfx942__ as defined in device compilation (as hipcc does for gfx9)
  # but its hip_on_cuda.h never defines them; define them in the device pass of the emulation only.
  if ! grep -q '#define __GFX9__' "$w64/tool/hip_on_cuda.h"; then
    sed -i 's|^#define __HIP_DEVICE_COMPILE__ 1$|#define __HIP_DEVICE_COMPILE__ 1\n#if !defined(W64_NATIVE)\n#define __GFX9__ 1\n#define __gfx942__ 1\n#endif|' \
      "$w64/tool/hip_on_cuda.h"
    grep -q '#define __GFX9__' "$w64/tool/hip_on_cuda.h" || { echo "could not add __GFX9__ to the emulation" >&2; exit 2; }
  fi
  "$root/.venv/bin/python" - "$root" "$w64/corpus" <<'EOF'
import sys, pathlib
from hipport.engine.source import read_source
from hipport.engine.translate.options import TranslateOptions
from hipport.engine.pipeline import port
from hipport.engine.model import FixStyle
from hipport.engine.warp import WarpOptions, RULES
root, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
skip = {"W64-11", "W64-13", "W64-21"}
rows = []
for p in sorted((root / "tests/corpus/warp").glob("W64-*_fire.*")):
    rule = p.name[:6]
    if rule in skip:
        continue
    s = read_source(p)
    for tag, fixes, style in (("unfixed", "none", FixStyle.WAVE64), ("wave64", "all", FixStyle.WAVE64),
                              ("portable", "all", FixStyle.PORTABLE)):
        r = port(s, TranslateOptions(rocm=(7, 0)), fixes=fixes, style=style, warp_options=WarpOptions())
        (out / f"{rule}.{tag}.hip").write_text(r.text)
    rows.append(f"{rule} {RULES[rule].severity}")
(out / "rules.txt").write_text("\n".join(rows) + "\n")
print(f"prepared {len(rows)} kernels x 3 variants in {out}")
EOF
  ;;
run)
  [ -x "$w64/tool/run_wave64.sh" ] || { echo "run 'prepare' first (and carry .w64)" >&2; exit 2; }
  out=${OUT:-$w64/out}
  mkdir -p "$out"
  jobs=$(nproc 2>/dev/null || echo 4)
  W64_ONLY=${W64_ONLY:-W64}
  work=$(mktemp -d /tmp/w64corpus.XXXXXX)
  # one line per (kernel, column): rule column file options
  while read -r rule sev; do
    c=$w64/corpus
    printf '%s\n' \
      "$rule unfixed-r6 $c/$rule.unfixed.hip --mode constexpr" \
      "$rule unfixed-r7 $c/$rule.unfixed.hip --mode rocm7" \
      "$rule wave64-r6 $c/$rule.wave64.hip --mode constexpr" \
      "$rule wave64-r7 $c/$rule.wave64.hip --mode rocm7" \
      "$rule portable-r6 $c/$rule.portable.hip --mode constexpr" \
      "$rule portable-r7 $c/$rule.portable.hip --mode rocm7" \
      "$rule portable-native $c/$rule.portable.hip --native"
  done < <(grep -E "^(${W64_ONLY// /|})" "$w64/corpus/rules.txt") >"$work/jobs"
  runone() {
    rule=$1 col=$2 file=$3; shift 3
    v=$(bash "$W64_TOOL/run_wave64.sh" "$file" "$@" ${W64_BUILD_ONLY:+--build-only} --timeout 60 \
          --log "$W64_WORK/$rule.$col.log" | head -1)
    echo "$rule $col ${v:-CRASH no verdict}" >"$W64_WORK/$rule.$col.res"
  }
  export -f runone
  export W64_TOOL="$w64/tool" W64_WORK="$work"
  t0=$(date +%s)
  xargs -P "$jobs" -L 1 bash -c 'runone "$@"' _ <"$work/jobs"
  t1=$(date +%s)
  cols="unfixed-r6 unfixed-r7 wave64-r6 wave64-r7 portable-r6 portable-r7 portable-native"
  table="$out/wave64_table.md"
  {
    echo "| rule | severity | unfixed rocm6 | unfixed rocm7 | wave64 rocm6 | wave64 rocm7 | portable rocm6 | portable rocm7 | portable native | ok |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
  } >"$table"
  allok=1
  while read -r rule sev; do
    line="| $rule | $sev |"
    ok=1
    for col in $cols; do
      v=$(cut -d' ' -f3- "$work/$rule.$col.res" 2>/dev/null)
      short=$(printf '%s' "$v" | sed -E 's/^RESULT //; s/^(COMPILE-ERROR).*/\1/; s/^(CRASH).*/\1/')
      line="$line $short |"
      case "$col" in
        unfixed-r7) [ "$sev" = performance ] && { [ "$short" = PASS ] || ok=0; } || { [ "$short" != PASS ] || ok=0; } ;;
        unfixed-r6) ;;
        *) [ "$short" = PASS ] || ok=0 ;;
      esac
    done
    [ $ok = 1 ] && line="$line yes |" || { line="$line NO |"; allok=0; }
    echo "$line" >>"$table"
  done < <(grep -E "^(${W64_ONLY// /|})" "$w64/corpus/rules.txt")
  echo "" >>"$table"
  echo "$(wc -l <"$work/jobs") runs in $((t1 - t0)) s on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)" >>"$table"
  cat "$table"
  # logs of every run that did not pass, for diagnosis
  for f in "$work"/*.res; do
    grep -q ' RESULT PASS' "$f" || { echo "== $(cat "$f")"; tail -n 25 "${f%.res}.log"; }
  done >"$out/wave64_failures.log" 2>/dev/null
  rm -rf "$work"
  [ $allok = 1 ]
  ;;
*)
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"
  exit 64
  ;;
esac
