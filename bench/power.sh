#!/bin/sh
# bench/power.sh [BUILD]: how long `kagari power` takes with its default
# cells and trials (8 cells x 500 trials) on each shipped trace, and with
# rounds of two. Issue 21 asks for under 30 s on the 2,400-run trace on
# this project's 2-core VM. Prints one row per trace: seconds (wall) and
# trials per second. A benchmark, not a test: nothing is asserted.
set -e
BUILD=${1:-build}
K="$BUILD/kagari"
[ -x "$K" ] || { echo "bench/power.sh: build kagari first (make)" >&2; exit 1; }
cd "$(dirname "$0")/.." 2>/dev/null || true
printf '%-28s %-22s %8s %12s\n' trace design seconds trials/s
for t in bench/traces/*.tsv; do
	for d in "1" "2"; do
		s=$(date +%s.%N)
		"$K" power --runs-per-round "$d" "$t" >/dev/null
		e=$(date +%s.%N)
		awk -v s="$s" -v e="$e" -v t="$(basename "$t")" -v d="$d" 'BEGIN {
			printf "%-28s %-22s %8.1f %12.0f\n", t, (d == 1 ? "pairs, max_runs 200" : "rounds of 2, 200"), e - s, 4000 / (e - s) }'
	done
done
