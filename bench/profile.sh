#!/bin/bash
# bench/profile: does the sampled-profile analysis find the function that
# changed, and with how many runs? And what does sampling cost the timed
# runs? (The method of Reichelt and Skarbalius, ICPE 2026, natively; see
# bench/profile_f1.c for the trial design and docs/profiles.md for figures.)
#
#   bash bench/profile.sh [BUILD-DIR] [POOL] [FREQUENCY] [DELTAS] [DEPTHS]
#
# Builds bench/profile_tree.c for depth d in {2,4,6,8} with -O2
# -fno-omit-frame-pointer, one binary per depth: base and head run the same
# binary, the head with `-d DELTA` (leaf 1 does delta in {1,2,3,5} percent
# more work), so code placement is identical on both sides. Then runs
# build/kagari-profile-f1, which samples POOL runs of each head variant and
# 2*POOL of the base (default 12; about 0.2 s of CPU per run) and prints
# F1 per depth, delta and number of runs, the table "runs needed for
# F1 >= 98%", and the overhead of sampling on timed runs.
# (`make check` builds build/kagari-profile-f1; `make` alone does not.)
set -eu
build=${1:-build}
pool=${2:-12}
freq=${3:-3999}
# DELTAS and DEPTHS: comma-separated, default "1,2,3,5" and "2,4,6,8".
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kagari-profile-XXXXXX")
trap 'rm -rf "$work"' EXIT
# The depths asked for, and 4 (the overhead runs use it).
for d in $(echo "${5:-2,4,6,8},4" | tr ',' '\n' | grep -x '[0-8]' | sort -un); do
	cc -O2 -fno-omit-frame-pointer -DDEPTH=$d -DSLOW=1 \
		-o "$work/tree_d$d" "$here/profile_tree.c"
done
"$build/kagari-profile-f1" "$work" "$pool" "$freq" ${4:+"$4"} ${5:+"$5"}
