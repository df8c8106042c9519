#!/bin/bash
# bench/analysis: build bench/analysis.c (how long the comparison engine takes
# per comparison) and print its table.
#
#   bash bench/analysis.sh [COMPARISONS]   (default 1000 a case)
#
# The driver is build/kagari-bench-analysis (KAGARI_BUILD: another build
# folder); nothing in the tree changes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${KAGARI_BUILD:-$root/build}
# The driver is a CMake target built with the tests (make check), linked
# with the same kagari_core as kagari; built here when it is missing.
[ -f "$build/build.ninja" ] || cmake -S "$root" -B "$build" -G Ninja >/dev/null
cmake --build "$build" --target kagari-bench-analysis >/dev/null
echo "== bench/analysis: cost of the comparison engine (compare_compute + holm_adjust + compare_decide) =="
"$build/kagari-bench-analysis" "$@"
