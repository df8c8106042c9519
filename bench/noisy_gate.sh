#!/bin/bash
# bench/noisy_gate: which metric can gate on a noisy runner. Prints a table.
#
#   bash bench/noisy_gate.sh [BUILD-DIR] [LOADERS] [TRIALS]
#
# A git repository whose small C program does WORK iterations of a
# xorshift loop over a 256 KiB table; `kagari compare` of an A/A, a head
# doing +3% work and one doing +10%, each gated on one metric at
# max_percent 2 (the others not gated): latency; cpu_total; instructions
# (`instrument: valgrind`); estimated_cycles. While it measures, LOADERS
# (default 2, both cores of the development VM) busy loops keep every CPU
# busy, as a shared CI runner is. Per metric and change, TRIALS compares
# (default 1, each with its own seed): their verdicts (reg = regression,
# pas = pass, inc = inconclusive, wit = within_noise), the median change
# kagari measured, the median wall time of a whole compare (both builds
# included) and the median timed rounds. The loaders are this script's own processes, stopped
# at the end. Nothing in the tree changes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
loaders=${2:-2}
trials=${3:-1}
kagari=$build/kagari
PY=/usr/bin/python3
work=$(mktemp -d "${TMPDIR:-/tmp}/kagari-bench-noisy-XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
g() { git -c user.name=b -c user.email=b@b -c core.hooksPath=/dev/null -c init.defaultBranch=main "$@"; }
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }

base_work=3000000
repo=$work/repo
mkdir -p "$repo"
cd "$repo"
g init -q .
cat > prog.c <<'C'
#include <stdio.h>
#include "work.h"
static unsigned table[65536];
int main(void)
{
	unsigned long long x = 88172645463325252ULL;
	for (long i = 0; i < WORK; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		table[x & 65535] += (unsigned)i;
	}
	printf("%llu %u\n", x & 1, table[7]);
	return 0;
}
C
echo "#define WORK ${base_work}L" > work.h
suite() { # suite METRIC: gate on METRIC at 2%, nothing else
	local m=$1 metrics="cpu: false" gates="latency: {max_percent: 2}"
	case $m in
	cpu_total) metrics="cpu: true"; gates="latency: {gate: false}, cpu_total: {max_percent: 2}, cpu_user: {gate: false}, cpu_system: {gate: false}" ;;
	instructions) metrics="counters: [instructions], instrument: valgrind"; gates="latency: {gate: false}, instructions: {max_percent: 2}" ;;
	estimated_cycles) metrics="counters: [estimated_cycles], instrument: valgrind"; gates="latency: {gate: false}, estimated_cycles: {max_percent: 2}" ;;
	esac
	cat > kagari.yaml <<YAML
version: "1"
name: noisy
build:
  command: [cc, -O2, -o, "\${artifact}", prog.c]
defaults:
  metrics: {$metrics}
  regression: {$gates}
benchmarks:
  - name: loop
    commands:
      prog: {command: ["\${artifact}"]}
YAML
}
suite latency
g add -A && g commit -qm base

for _ in $(seq "$loaders"); do
	(while :; do :; done) &
	pids+=($!)
done

printf '%-17s %-34s %-34s %-34s\n' metric "A/A" "+3% work" "+10% work"
for m in latency cpu_total instructions estimated_cycles; do
	suite "$m"
	g add -A && { g commit -qm "$m" >/dev/null || true; }
	row=$(printf '%-17s' "$m")
	for pct in 0 3 10; do
		echo "#define WORK $((base_work * (100 + pct) / 100))L" > work.h
		: > "$work/trials"
		for t in $(seq "$trials"); do
			t0=$(date +%s%N)
			"$kagari" compare --against HEAD --format json --output "$work/r.json" \
				--seed "$((pct * 100 + t))" --quiet >/dev/null 2>"$work/err" || true
			t1=$(date +%s%N)
			"$PY" - "$work/r.json" "$m" $(((t1 - t0) / 1000000)) >>"$work/trials" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    c = r["suites"][0]["benchmarks"][0]["commands"][0]
    cp = c["comparisons"][sys.argv[2]]
    print(cp["verdict"][:3], cp["change_percent"], int(sys.argv[3]) / 1000, c["rounds"])
except Exception as e:
    print("err nan nan 0")
PY
		done
		cell=$("$PY" - "$work/trials" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
med = lambda k: statistics.median(float(r[k]) for r in rows)
print("%s %+.2f%% %.1fs %dr" % (",".join(r[0] for r in rows), med(1), med(2), med(3)))
PY
)
		row="$row $(printf '%-34s' "$cell")"
	done
	echo "$row"
	echo "#define WORK ${base_work}L" > work.h
done
echo
echo "cells: verdict, change measured, wall time of the compare, timed rounds"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, $loaders busy loops"
