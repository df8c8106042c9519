#!/bin/bash
# bench/counts: what the count instruments cost. Prints two tables.
#
#   bash bench/counts.sh [BUILD-DIR] [REPS]
#
# 1. estimated_cycles against instructions under valgrind: the wall time of
#    one valgrind run as kagari wraps it for `counters: [instructions]`
#    (--cache-sim=no) and for `counters: [estimated_cycles]` (--cache-sim=yes
#    with the fixed cache model, src/measure/valgrind.h), REPS interleaved
#    runs each (default 5), the median; for a CPU loop (kagari-helper work),
#    sort of 200,000 numbers, gzip of 4 MB and a recursive listing; and
#    the three runs per side kagari makes of a deterministic command:
#    three plain counts for `instructions`, and for `estimated_cycles` one
#    simulated run and two plain counts that confirm it (execute_instrument.c),
#    each sequence timed whole. The target (issue 42): at most 1.5x.
# 2. system calls: a command making 100,000 one-byte writes, run plain and
#    with the syscall tracepoints open (kagari-bench-syscalls, the same
#    measure/syscalls.c kagari uses), 41 interleaved runs each, the median;
#    and, for scale, the same command under `strace -c -f` (ptrace) when
#    strace is installed. The target: at most 2x a plain run.
# Needs valgrind, and root (or a mounted tracefs and tracepoint permission)
# for the second table. Nothing in the tree changes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
reps=${2:-5}
[ -f "$build/build.ninja" ] || cmake -S "$root" -B "$build" -G Ninja >/dev/null
cmake --build "$build" --target kagari-helper kagari-bench-syscalls >/dev/null
helper=$build/kagari-helper
work=$(mktemp -d "${TMPDIR:-/tmp}/kagari-bench-counts-XXXXXX")
trap 'rm -rf "$work"' EXIT
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }

seq 1 200000 | awk 'BEGIN{srand(1)} {print int(rand()*1e9)}' > "$work/numbers"
head -c 4000000 /dev/urandom | base64 > "$work/blob"

# now_ns: a monotonic clock in ns.
now_ns() { date +%s%N; }

# vg_run CACHE CMD...: one valgrind run as kagari wraps it; prints its ns.
vg_run() {
	local cache=$1 t0 t1
	shift
	rm -f "$work"/cg.* "$work"/vg.*
	local sim=(--cache-sim=no)
	[ "$cache" = 1 ] && sim=(--cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64)
	t0=$(now_ns)
	valgrind --tool=cachegrind "${sim[@]}" --branch-sim=no --trace-children=yes \
		--cachegrind-out-file="$work/cg.%p" --log-file="$work/vg.%p.log" "$@" >/dev/null
	t1=$(now_ns)
	echo $((t1 - t0))
	# the run's instruction count, summed over its processes, for vg_seq
	cat "$work"/cg.* | awk '/^summary:/{s+=$2} END{printf "%.0f\n", s}' > "$work/ir"
}

median() { sort -n | awk '{v[NR]=$1} END{print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

# vg_seq SIMS CMD...: three valgrind runs, the first SIMS of them with the
# cache simulation, the rest without; prints their ns together. When a
# later run's instruction count differs from the first's, kagari would
# simulate every run: "$work/varies" says so.
vg_seq() {
	local sims=$1 total=0 k first=
	shift
	for k in 1 2 3; do
		total=$((total + $(vg_run $((k <= sims)) "$@")))
		[ -n "$first" ] || first=$(cat "$work/ir")
		[ "$(cat "$work/ir")" = "$first" ] || touch "$work/varies"
	done
	echo "$total"
}

echo "== 1. valgrind: estimated_cycles (cache simulation) vs instructions, median of $reps =="
printf '%-28s %12s %12s %6s | %14s %14s %6s\n' workload "instr. 1 run" "est. 1 run" ratio \
	"instr. 3 runs" "est. 1+2 runs" ratio
while IFS='|' read -r name cmd; do
	a=() b=() c=() d=()
	rm -f "$work/varies"
	for _ in $(seq "$reps"); do
		# shellcheck disable=SC2086
		a+=("$(vg_run 0 $cmd)")
		# shellcheck disable=SC2086
		b+=("$(vg_run 1 $cmd)")
		# shellcheck disable=SC2086
		c+=("$(vg_seq 0 $cmd)")
		# shellcheck disable=SC2086
		d+=("$(vg_seq 1 $cmd)")
	done
	ma=$(printf '%s\n' "${a[@]}" | median)
	mb=$(printf '%s\n' "${b[@]}" | median)
	mc=$(printf '%s\n' "${c[@]}" | median)
	md=$(printf '%s\n' "${d[@]}" | median)
	if [ -e "$work/varies" ]; then
		# The counts vary from run to run: kagari simulates every run,
		# so a comparison costs the one-run ratio.
		awk -v n="$name" -v a="$ma" -v b="$mb" \
			'BEGIN{printf "%-28s %9.0f ms %9.0f ms %5.2fx | counts vary: every run simulates, %5.2fx\n", n, a/1e6, b/1e6, b/a, b/a}'
	else
		awk -v n="$name" -v a="$ma" -v b="$mb" -v c="$mc" -v d="$md" \
			'BEGIN{printf "%-28s %9.0f ms %9.0f ms %5.2fx | %11.0f ms %11.0f ms %5.2fx\n", n, a/1e6, b/1e6, b/a, c/1e6, d/1e6, d/c}'
	fi
done <<EOF2
cpu loop (helper work 3M)|$helper work 3000000
sort -n 200,000 numbers|sort -n $work/numbers
sort -n, one thread|sort --parallel=1 -n $work/numbers
gzip -c 4 MB|gzip -c $work/blob
ls -lR /usr/include|ls -lR /usr/include
EOF2

echo
echo "== 2. system calls: 100,000 one-byte writes, plain vs counted (tracepoints), median of 41 =="
"$build/kagari-bench-syscalls" 41 "$helper" writes 100000 || echo "(cannot count system calls here)"
if command -v strace >/dev/null; then
	s=()
	for _ in 1 2 3; do
		t0=$(now_ns)
		strace -c -f -o /dev/null "$helper" writes 100000
		t1=$(now_ns)
		s+=($((t1 - t0)))
	done
	printf '%-10s %10.3f ms  (strace -c -f, ptrace; median of 3, for scale)\n' strace \
		"$(printf '%s\n' "${s[@]}" | median | awk '{print $1/1e6}')"
fi
echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
