#!/bin/bash
# bench/analysis: build bench/analysis.c (how long the comparison engine takes
# per comparison) and print its table.
#
#   bash bench/analysis.sh [COMPARISONS]   (default 1000 a case)
#
# Built into a temporary folder from the sources in this tree; nothing in the
# tree changes. Needs only gcc and libm.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kagari-analysis-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"
gcc -std=gnu11 -D_GNU_SOURCE -O2 -Isrc -o "$work/analysis" \
	bench/analysis.c src/analyze/compare.c src/analyze/exact.c \
	src/analyze/boot_median.c src/model/sequential.c \
	src/analyze/holm.c src/model/rng.c src/analyze/summary.c \
	src/analyze/format.c src/base/sbuf.c src/base/strvec.c \
	src/base/xalloc.c src/model/metric.c -lm
echo "== bench/analysis: cost of the comparison engine (compare_compute + holm_adjust + compare_decide) =="
"$work/analysis" "$@"
