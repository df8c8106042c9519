#!/bin/bash
# bench/hl: build bench/hl.c and print how long the Hodges-Lehmann shift,
# its interval and its quantiles take by selection for 1,000 to 1,000,000
# rounds, with the quadratic method beside them where it fits (QUAD_MAX
# rounds, default 3000: its n(n+1)/2 Walsh averages take 8 bytes each).
#
#   bash bench/hl.sh [QUAD_MAX]
#
# The driver is build/kagari-bench-hl (KAGARI_BUILD: another build folder);
# nothing in the tree changes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${KAGARI_BUILD:-$root/build}
# The driver is a CMake target built with the tests (make check), linked
# with the same kagari_core as kagari; built here when it is missing.
[ -f "$build/build.ninja" ] || cmake -S "$root" -B "$build" -G Ninja >/dev/null
cmake --build "$build" --target kagari-bench-hl >/dev/null
echo "== bench/hl: Hodges-Lehmann by selection (O(n) memory) =="
"$build/kagari-bench-hl" "${1:-3000}"
