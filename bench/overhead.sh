#!/bin/bash
# bench/overhead: what one measured run costs kagari, against the floor (a
# bare posix_spawn+wait4 loop in C) and hyperfine -N, and whether the peak
# RSS kagari reports matches /usr/bin/time. Prints two tables.
#
#   bash bench/overhead.sh [BUILD-DIR] [RUNS] [REPEATS]
#
# Each cell is the median over REPEATS repetitions (the machine is shared and
# noisy: medians and ratios, never one time).
set -eu
build=${1:-build}
runs=${2:-1000}
reps=${3:-5}
kagari=$build/kagari
helper=$build/kagari-helper
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kagari-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
PY=/usr/bin/python3

cc -O2 -o "$work/floor" "$here/overhead_floor.c"
if ! command -v hyperfine >/dev/null; then
	echo "hyperfine is not installed (apt-get install -y hyperfine); its column is skipped" >&2
fi

cat > "$work/true.yaml" <<YAML
version: "1"
name: overhead
defaults: {warmup: 0, runs: $runs, runs_per_round: 1}
benchmarks:
  - name: true
    commands:
      true: {command: [/bin/true]}
YAML

now_ns() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f\n", m}'; }

floor_us=(); kagari_us=(); hf_us=()
for _ in $(seq "$reps"); do
	t0=$(now_ns); "$work/floor" 1 "$runs" >/dev/null; t1=$(now_ns)
	floor_us+=("$(( (t1 - t0) / runs / 1000 )).$(( ((t1 - t0) / runs) % 1000 / 100 ))")
	t0=$(now_ns); "$kagari" run --quiet --format json --output "$work/r.json" "$work/true.yaml"; t1=$(now_ns)
	kagari_us+=("$(( (t1 - t0) / runs / 1000 )).$(( ((t1 - t0) / runs) % 1000 / 100 ))")
	if command -v hyperfine >/dev/null; then
		t0=$(now_ns); hyperfine -N --runs "$runs" --warmup 0 --style none /bin/true >/dev/null 2>&1; t1=$(now_ns)
		hf_us+=("$(( (t1 - t0) / runs / 1000 )).$(( ((t1 - t0) / runs) % 1000 / 100 ))")
	fi
done
f=$(printf '%s\n' "${floor_us[@]}" | median)
k=$(printf '%s\n' "${kagari_us[@]}" | median)
echo
echo "per-run cost of /bin/true, $runs runs, median of $reps (whole-process wall time / runs)"
printf '%-34s %12s %10s\n' "tool" "us/run" "vs floor"
printf '%-34s %12s %10s\n' "bare posix_spawn+wait4 (C floor)" "$f" "1.00x"
printf '%-34s %12s %10s\n' "kagari run" "$k" "$(awk -v a="$k" -v b="$f" 'BEGIN{printf "%.2fx", a/b}')"
if [ ${#hf_us[@]} -gt 0 ]; then
	h=$(printf '%s\n' "${hf_us[@]}" | median)
	printf '%-34s %12s %10s\n' "hyperfine -N" "$h" "$(awk -v a="$h" -v b="$f" 'BEGIN{printf "%.2fx", a/b}')"
fi

# Peak RSS: kagari's report against /usr/bin/time -f %M (KiB).
cat > "$work/rss.yaml" <<YAML
version: "1"
name: rss
defaults: {warmup: 0, runs: 5}
benchmarks:
  - name: rss
    commands:
      true: {command: [/bin/true]}
      touch-100MiB: {command: ["$(cd "$(dirname "$helper")" && pwd)/$(basename "$helper")", alloc, "100"]}
YAML
"$kagari" run --quiet --format json --output "$work/rss.json" "$work/rss.yaml"
echo
echo "peak RSS (median of 5 runs for kagari; one /usr/bin/time run)"
printf '%-16s %14s %18s %8s\n' "program" "kagari (KiB)" "/usr/bin/time (KiB)" "ratio"
for cmd in true touch-100MiB; do
	kib=$("$PY" -c "
import json,sys
r=json.load(open('$work/rss.json'))
for c in r['suites'][0]['benchmarks'][0]['commands']:
    if c['name']=='$cmd': print(int(c['head']['metrics']['peak_rss']['stats']['median'])//1024)")
	if [ "$cmd" = true ]; then
		t=$(/usr/bin/time -f %M /bin/true 2>&1 >/dev/null | tail -1)
	else
		t=$(/usr/bin/time -f %M "$helper" alloc 100 2>&1 >/dev/null | tail -1)
	fi
	printf '%-16s %14s %18s %8s\n' "$cmd" "$kib" "$t" "$(awk -v a="$kib" -v b="$t" 'BEGIN{printf "%.3f", a/b}')"
done
