#!/bin/bash
# bench/profile: does the sampled-profile analysis find the function that
# changed, and with how many runs? And what does sampling cost the timed
# runs? (The method of Reichelt and Skarbalius, ICPE 2026, natively; see
# bench/profile_f1.c for the trial design and docs/profiles.md for figures.)
#
#   bash bench/profile.sh [BUILD-DIR] [POOL] [FREQUENCY]
#
# Builds bench/profile_tree.c for depth d in {2,4,6,8} and a +delta% leaf
# (delta in {1,2,3,5}, leaf 1; 0 for the base) with -O2
# -fno-omit-frame-pointer, then runs build/kagari-profile-f1, which samples
# POOL runs of each head variant and 2*POOL of the base (default 12: about
# 0.2 s of CPU per run, ~2 minutes in all on a 2-core machine) and prints
# F1 per depth, delta and number of runs, the table "runs needed for
# F1 >= 98%", and the overhead of sampling on timed runs.
set -eu
build=${1:-build}
pool=${2:-12}
freq=${3:-3999}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kagari-profile-XXXXXX")
trap 'rm -rf "$work"' EXIT
# One folder per variant and the same file name, as base and head of a
# compare: functions are told apart by (name, binary file name).
for x in 0 1 2 3 5; do
	mkdir -p "$work/x$x"
	for d in 2 4 6 8; do
		cc -O2 -fno-omit-frame-pointer -DDEPTH=$d -DDELTA=$x -DSLOW=1 \
			-o "$work/x$x/tree_d$d" "$here/profile_tree.c"
	done
done
"$build/kagari-profile-f1" "$work" "$pool" "$freq"
