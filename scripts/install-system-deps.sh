#!/usr/bin/env bash
# System packages the tests use: Debian's hipcc (HIP 5.2, clang 15) to prove that translated
# code compiles for gfx90a, tmux for the end-to-end terminal test, and LLVM's FileCheck (llvm-15-tools)
# for the replay of AMD's hipify-clang unit tests (tests/conformance), and LLVM 15's OpenMP headers
# (libomp-15-dev: Debian's hipcc is clang 15, whose -fopenmp needs omp.h; the cuda-samples bench builds
# cudaOpenMP with it).
set -euo pipefail
need=()
command -v hipcc >/dev/null 2>&1 || need+=(hipcc)
command -v tmux >/dev/null 2>&1 || need+=(tmux)
command -v git >/dev/null 2>&1 || need+=(git)
# HIP libraries Debian packages (hipRAND/rocRAND, hipSPARSE/rocSPARSE): tests/buildsys builds ported
# projects that link them. Debian 12 has no hipBLAS/rocBLAS/hipFFT (those builds are skipped, saying so).
for p in libhiprand-dev librocrand-dev libhipsparse-dev librocsparse-dev; do
    dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
dpkg -s libomp-15-dev >/dev/null 2>&1 || need+=(libomp-15-dev)
[ -x /usr/lib/llvm-15/bin/FileCheck ] || command -v FileCheck >/dev/null 2>&1 || need+=(llvm-15-tools)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "install-system-deps: missing ${need[*]}; run as root or: sudo apt-get install ${need[*]}" >&2
    exit 0   # tests that need them say so and skip
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${need[@]}" >/dev/null
