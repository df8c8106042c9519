#!/bin/bash
# bench/instructions: what instruction counts buy and what each way of
# measuring costs. Prints two tables.
#
#   bash bench/instructions.sh [BUILD-DIR] [TRIALS] [RUNS]
#
# 1. Sensitivity of valgrind instruction counts (`instrument: valgrind`,
#    regression.instructions.max_percent 0.25, the latency gate off):
#    `kagari compare` of a git repository whose small C program does WORK
#    iterations, TRIALS times each (a different seed each time) for A/A (the
#    same source on both sides), a head doing +0.5% work and one doing +1%.
#    A regression must be found 10/10 for +0.5% and +1%, and never in A/A.
# 2. Cost per run of each mode beside plain timing, for the kagari-helper
#    `work 100000` program, RUNS runs each, the median of 5 interleaved
#    repetitions of the whole `kagari run`: plain timing; perf counters (timed runs that
#    also open the counter events on the runner; on a machine without a PMU
#    only the software stand-ins of KAGARI_TEST_COUNTERS_SOFTWARE=1 open);
#    valgrind (RUNS extra runs under cachegrind); the allocation shim (RUNS
#    extra runs with LD_PRELOAD). Extra-run modes are charged the difference
#    to plain timing, per extra run; the latency kagari measured in the
#    timed runs is shown too (does counting disturb the time measured?).
set -eu
build=$(cd "${1:-build}" && pwd)
trials=${2:-10}
runs=${3:-20}
kagari=$build/kagari
helper=$build/kagari-helper
work=$(mktemp -d "${TMPDIR:-/tmp}/kagari-bench-instr-XXXXXX")
trap 'rm -rf "$work"' EXIT
PY=/usr/bin/python3
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
g() { git -c user.name=b -c user.email=b@b -c core.hooksPath=/dev/null -c init.defaultBranch=main "$@"; }

if ! command -v valgrind >/dev/null; then
	echo "valgrind is not installed (apt-get install -y valgrind)" >&2
	exit 1
fi

# ---- 1. sensitivity -------------------------------------------------------
base_work=2000000
repo=$work/repo
mkdir -p "$repo"
cd "$repo"
g init -q .
cat > prog.c <<'C'
#include <stdio.h>
#include "work.h"
int main(void)
{
	unsigned long long x = 88172645463325252ULL;
	for (long i = 0; i < WORK; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	printf("%llu\n", x & 1);
	return 0;
}
C
set_work() { echo "#define WORK ${1}L" > work.h; }
set_work $base_work
cat > kagari.yaml <<'YAML'
version: "1"
name: instr
build:
  command: [cc, -O1, -o, "${artifact}", prog.c]
defaults:
  warmup: 0
  runs: 6
  metrics: {counters: [instructions], instrument: valgrind, cpu: false, memory: false}
  regression:
    min_samples: 6
    latency: {max_percent: 50, gate: false}
    instructions: {max_percent: 0.25}
benchmarks:
  - name: loop
    commands:
      prog:
        command: ["${artifact}"]
YAML
g add -A && g commit -qm base

declare -A found changes
for label in "A/A" "+0.5%" "+1%"; do
	case $label in
	"A/A") w=$base_work ;;
	"+0.5%") w=$((base_work + base_work / 200)) ;;
	"+1%") w=$((base_work + base_work / 100)) ;;
	esac
	set_work $w
	n=0
	ch=""
	for t in $(seq "$trials"); do
		rc=0
		"$kagari" compare --against HEAD --quiet --seed "$t" --format json \
			--output "$work/c.json" >/dev/null 2>"$work/c.err" || rc=$?
		if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
			echo "kagari compare failed (exit $rc): $(tail -3 "$work/c.err")" >&2
			exit 1
		fi
		v=$("$PY" -c '
import json, sys
c = json.load(open(sys.argv[1]))["suites"][0]["benchmarks"][0]["commands"][0]
k = c["comparisons"]["instructions"]
print(k["verdict"], "%.4f" % k["change_percent"])' "$work/c.json")
		[ "${v%% *}" = regression ] && n=$((n + 1))
		ch="$ch ${v##* }"
	done
	found[$label]=$n
	changes[$label]=$ch
done
set_work $base_work

echo
echo "valgrind instruction counts: regression found in $trials trials (max_percent 0.25, latency gate off)"
printf '%-8s %-12s %-14s %s\n' "head" "regressions" "expected" "change % per trial (min..max)"
for label in "A/A" "+0.5%" "+1%"; do
	exp=$([ "$label" = "A/A" ] && echo "0/$trials" || echo "$trials/$trials")
	range=$(printf '%s\n' ${changes[$label]} | sort -g | sed -n '1p;$p' | paste -sd' ' | awk '{printf "%s .. %s", $1, $2}')
	printf '%-8s %-12s %-14s %s\n' "$label" "${found[$label]}/$trials" "$exp" "$range"
done

# ---- 2. cost per run of each mode -----------------------------------------
cd "$work"
mode_suite() { # FILE METRICS-LINE
	cat > "$1" <<YAML
version: "1"
name: cost
defaults:
  warmup: 0
  runs: $runs
  runs_per_round: 1
  metrics: $2
  regression: {min_samples: $runs}
benchmarks:
  - name: work
    commands:
      h: {command: ["$helper", "work", "100000"]}
YAML
}
mode_suite plain.yaml "{cpu: true, memory: true}"
mode_suite perf.yaml "{counters: true, instrument: perf}"
mode_suite valgrind.yaml "{counters: [instructions], instrument: valgrind}"
mode_suite shim.yaml "{allocations: true}"

now_ns() { date +%s%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}'; }
declare -A ws ls
for _ in 1 2 3 4 5; do
	# Modes interleaved, so that a busy spell of a shared machine spreads
	# over all of them.
	for mode in plain perf valgrind shim; do
		t0=$(now_ns)
		if [ $mode = perf ]; then
			KAGARI_TEST_COUNTERS_SOFTWARE=1 "$kagari" run --quiet --format json --output r.json $mode.yaml
		else
			"$kagari" run --quiet --format json --output r.json $mode.yaml
		fi
		t1=$(now_ns)
		ws[$mode]="${ws[$mode]:-} $(( (t1 - t0) / 1000 ))"
		ls[$mode]="${ls[$mode]:-} $("$PY" -c '
import json, sys
c = json.load(open(sys.argv[1]))["suites"][0]["benchmarks"][0]["commands"][0]
print(c["head"]["metrics"]["latency"]["stats"]["median"] / 1000)' r.json)"
	done
done
declare -A wall lat
for mode in plain perf valgrind shim; do
	wall[$mode]=$(printf '%s\n' ${ws[$mode]} | median)
	lat[$mode]=$(printf '%s\n' ${ls[$mode]} | median)
done

echo
echo "cost per run, kagari-helper work 100000, $runs runs, median of 5 whole 'kagari run's (modes interleaved)"
printf '%-44s %14s %10s %18s\n' "mode" "us per run" "vs plain" "latency median us"
p=$(awk -v w="${wall[plain]}" -v n="$runs" 'BEGIN{printf "%.0f", w/n}')
printf '%-44s %14s %10s %18s\n' "plain timing" "$p" "1.00x" "${lat[plain]}"
x=$(awk -v w="${wall[perf]}" -v n="$runs" 'BEGIN{printf "%.0f", w/n}')
printf '%-44s %14s %10s %18s\n' "perf counters (software stand-ins here)" "$x" \
	"$(awk -v a="$x" -v b="$p" 'BEGIN{printf "%.2fx", a/b}')" "${lat[perf]}"
for mode in valgrind shim; do
	x=$(awk -v w="${wall[$mode]}" -v q="${wall[plain]}" -v n="$runs" 'BEGIN{printf "%.0f", (w-q)/n}')
	name=$([ $mode = valgrind ] && echo "valgrind (each extra untimed run)" || echo "allocation shim (each extra untimed run)")
	printf '%-44s %14s %10s %18s\n' "$name" "$x" \
		"$(awk -v a="$x" -v b="$p" 'BEGIN{printf "%.2fx", a/b}')" "${lat[$mode]}"
done
