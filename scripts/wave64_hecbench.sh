#!/usr/bin/env bash
# wave64_hecbench.sh: the warp port's proof on real code (issue 18). HeCBench 49175104c dev benchmarks
# (scripts/wave64_hecbench.list), each built and run five ways on an NVIDIA GPU:
#   native            the CUDA original, nvcc, a real 32-wide warp
#   logical           hipport convert (the default port: logical 32-lane warps), under the wave64 oracle
#   logical-native    the same port as HIP on NVIDIA (oracle --native, warpSize 32)
#   safe64            hipport convert --fix-style wave64 (SAFE 64-wide groups accepted), under the oracle
#   all64             --fix-style wave64 --fixes-review (every 64-wide group accepted), under the oracle
# Ports run in the oracle's ROCm 7 model (--mode rocm7: warpSize not constexpr, 64-bit *_sync masks),
# hipport's default target. A run is judged by the program's own PASS/FAIL, or by comparing its output
# with the CUDA original's (see the list's judge field and wave64_hecbench.py).
#
#   scripts/wave64_hecbench.sh prepare [NAME...]   here: ports into .devout/warpproof/, the oracle into .w64/tool
#   bash .devout/warpproof/wave64_hecbench.sh run  on the GPU machine, .w64 and .devout/warpproof carried:
#                                                  writes $OUT/wave64_hecbench.tsv (+ .md, logs)
#   W64_BUILD_ONLY=1 ... run                       compile only (no GPU needed): verdicts BUILD-OK/COMPILE-ERROR
# Environment: HIPPORT_HECBENCH (default /work/hecbench), W64_JOBS (builds in parallel, default nproc),
# W64_RUN_JOBS (runs in parallel, default 4), W64_COLUMNS (default: all five), W64_TIMEOUT (seconds per run, default 120), W64_ONLY (names).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case "${1:-}" in
prepare)
  shift
  root=$(cd "$here/.." && pwd)
  # device calls send /work/main's tree: the ignored folders live there, whichever worktree prepares
  main=${W64_MAIN:-$(git -C "$root" worktree list --porcelain | awk '/^worktree /{print $2; exit}')}
  src="${WAVE64_TOOL:-$root/../shared/tools/wave64}"
  [ -d "$src" ] || src=/work/shared/tools/wave64
  rm -rf "$main/.w64/tool" && mkdir -p "$main/.w64/tool" && cp -r "$src"/. "$main/.w64/tool/"
  nice -n 10 "$root/.venv/bin/python" "$here/wave64_hecbench.py" prepare "$main/.devout/warpproof" "$@"
  echo "prepared in $main/.devout/warpproof (carry .w64 and .devout/warpproof); commit $(git -C "$root" rev-parse --short HEAD)"
  git -C "$root" rev-parse HEAD >"$main/.devout/warpproof/HIPPORT_COMMIT"
  ;;
run)
  d=$here                                   # .devout/warpproof
  root=$(cd "$d/../.." && pwd)
  tool=$root/.w64/tool
  [ -x "$tool/run_wave64.sh" ] || { echo "no oracle at $tool (carry .w64)" >&2; exit 2; }
  out=${OUT:-$d/out}; mkdir -p "$out"
  work=$(mktemp -d /tmp/w64hec.XXXXXX)
  mkdir -p "$work/res" "$work/logs"
  cp "$d/bench.list" "$work/"
  export D="$d" W="$work" TOOL="$tool" BUILD_ONLY="${W64_BUILD_ONLY:-0}" TMO="${W64_TIMEOUT:-120}"
  names=$(grep -vE '^\s*(#|$)' "$d/bench.list" | cut -d'|' -f1 | tr -d ' ')
  [ -n "${W64_ONLY:-}" ] && names=$W64_ONLY
  field() { grep -E "^$1 *\|" "$D/bench.list" | awk -F'|' -v n="$2" '{gsub(/^ +| +$/, "", $n); print $n}'; }
  export -f field
  # one run folder per benchmark and column (programs write files beside them)
  for b in $names; do
    setup=$(field "$b" 6)
    mkdir -p "$work/$b"
    cp -r "$d/$b/cuda" "$work/$b/run"
    [ -n "$setup" ] && (cd "$work/$b/run" && eval "$setup") >/dev/null 2>&1
    for c in native logical logical-native safe64 all64; do cp -r "$work/$b/run" "$work/$b/run.$c"; done
  done
  build() {  # build NAME COLUMN -> $W/NAME/bin.COLUMN or a COMPILE-ERROR verdict
    b=$1 c=$2 log="$W/logs/$1.$2.build.log"
    flags=$(field "$b" 5)
    if [ "$c" = native ]; then
      srcs=$(field "$b" 2)
      (cd "$D/$b/cuda" && nvcc -O2 -std=c++17 -arch=sm_90 -w --expt-relaxed-constexpr -Xcompiler -fopenmp -I. $flags $srcs -o "$W/$b/bin.native") >"$log" 2>&1 \
        || { echo "COMPILE-ERROR $(grep -m1 -E 'error' "$log" | cut -c1-200)" >"$W/res/$b.native"; }
      return
    fi
    v=$c opt=(--mode rocm7)
    [ "$c" = logical-native ] && v=logical opt=(--native)
    r=$(bash "$TOOL/run_wave64.sh" "$D/$b/$v.hip" "${opt[@]}" --build-only --cache "$W/$b/cache.$c" \
          --log "$log" -I"$D" -I"$D/$b/$v" $flags 2>&1 | head -1)
    case "$r" in
      BUILD-OK*) ln -sf "${r#BUILD-OK }" "$W/$b/bin.$c" ;;
      *) echo "${r:-COMPILE-ERROR no verdict}" >"$W/res/$b.$c" ;;
    esac
  }
  runone() {  # runone NAME COLUMN -> $W/res/NAME.COLUMN
    b=$1 c=$2 log="$W/logs/$1.$2.run.log"
    [ -e "$W/res/$b.$c" ] && return
    if [ "$BUILD_ONLY" = 1 ]; then echo BUILD-OK >"$W/res/$b.$c"; return; fi
    args=$(field "$b" 3)
    (cd "$W/$b/run.$c" && eval "timeout -s KILL $TMO \"$W/$b/bin.$c\" $args") >"$log" 2>&1
    rc=$?
    if [ $rc = 137 ]; then echo HANG >"$W/res/$b.$c"; return; fi
    if [ $rc -gt 128 ]; then echo "CRASH signal $((rc - 128)) $(grep -m1 -E 'W64-ERROR|error' "$log" | cut -c1-150)" >"$W/res/$b.$c"; return; fi
    if [ "$c" != native ] && grep -q 'W64-ERROR' "$log"; then
      echo "CRASH $(grep -m1 'W64-ERROR' "$log" | cut -c1-150)" >"$W/res/$b.$c"; return
    fi
    echo $rc >"$W/logs/$b.$c.rc"
    python3 "$D/wave64_hecbench.py" judge "$b" "$W/logs/$b.native.run.log" "$(cat "$W/logs/$b.native.rc" 2>/dev/null || echo 1)" \
      "$log" "$rc" >"$W/res/$b.$c"
  }
  export -f build runone
  t0=$(date +%s)
  cols=${W64_COLUMNS:-native logical logical-native safe64 all64}
  for b in $names; do for c in $cols; do echo "$b $c"; done; done \
    | xargs -P "${W64_JOBS:-$(nproc)}" -L 1 bash -c 'build "$@"' _
  t1=$(date +%s)
  for b in $names; do case " $cols " in *" native "*) echo "$b native" ;; esac; done | xargs -P "${W64_RUN_JOBS:-4}" -L 1 bash -c 'runone "$@"' _
  for b in $names; do for c in $cols; do [ "$c" = native ] || echo "$b $c"; done; done \
    | xargs -P "${W64_RUN_JOBS:-4}" -L 1 bash -c 'runone "$@"' _
  t2=$(date +%s)
  python3 "$d/wave64_hecbench.py" table "$work" >"$out/wave64_hecbench.tsv"
  {
    echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1); $(nvcc --version | tail -1)"
    echo "# hipport $(cat "$d/HIPPORT_COMMIT" 2>/dev/null); HeCBench 49175104c; builds ${BUILD_ONLY:+(build-only=$BUILD_ONLY) }$((t1 - t0)) s, runs $((t2 - t1)) s"
  } >>"$out/wave64_hecbench.tsv"
  cat "$out/wave64_hecbench.tsv"
  tar czf "$out/wave64_hecbench_logs.tgz" -C "$work" logs res
  rm -rf "$work"
  ;;
*)
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"
  exit 64
  ;;
esac
