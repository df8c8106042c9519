#!/bin/bash
# bench/hl: build bench/hl.c and print how long the Hodges-Lehmann shift,
# its interval and its quantiles take by selection for 1,000 to 1,000,000
# rounds, with the quadratic method beside them where it fits (QUAD_MAX
# rounds, default 3000: its n(n+1)/2 Walsh averages take 8 bytes each).
#
#   bash bench/hl.sh [QUAD_MAX]
#
# Built into a temporary folder from the sources in this tree; nothing in
# the tree changes. Needs only gcc and libm.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kagari-hl-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"
gcc -std=gnu11 -D_GNU_SOURCE -O2 -Isrc -o "$work/hl" \
	bench/hl.c src/analyze/exact.c src/analyze/summary.c src/model/rng.c \
	src/base/xalloc.c src/base/sbuf.c src/model/metric.c -lm
echo "== bench/hl: Hodges-Lehmann by selection (O(n) memory) =="
"$work/hl" "${1:-3000}"
