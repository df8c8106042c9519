#!/bin/bash
# bench/chatty: what a program that floods a discarded stderr costs, against
# the same flood to a discarded stdout (/dev/null, the floor). Prints a
# table: mean wall time of a run as kagari measures it, the whole kagari
# call's wall time, and the peak growth of the machine's shared memory
# (Shmem in /proc/meminfo, sampled every 10 ms; a stderr kept in a memfd
# shows up there) and of the runner's resident set (VmHWM).
#
#   bash bench/chatty.sh [BUILD-DIR] [MB] [RUNS] [REPEATS]
#
# Times are medians over REPEATS kagari calls, memory the largest seen.
# Shmem is machine-wide: other programs can move it by a few MiB.
set -eu
build=${1:-build}
mb=${2:-500}
runs=${3:-3}
reps=${4:-3}
kagari=$build/kagari
work=$(mktemp -d "${TMPDIR:-/tmp}/kagari-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
PY=/usr/bin/python3
bytes=$((mb * 1000000))

shmem_kib() { awk '/^Shmem:/ {print $2}' /proc/meminfo; }
median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f\n", m}'; }

printf '%-8s %10s %14s %12s %14s %16s\n' target MB "run mean ms" "call ms" \
	"Shmem +MiB" "runner HWM MiB"
for target in stdout stderr; do
	fd=1
	[ "$target" = stderr ] && fd=2
	cat > "$work/s.yaml" <<YAML
version: "1"
name: chatty
defaults: {warmup: 0, runs: $runs, runs_per_round: 1}
benchmarks:
  - name: flood
    commands:
      flood: {command: [sh, -c, "head -c $bytes /dev/zero >&$fd"]}
YAML
	means=(); calls=(); grow=0; hwm=0
	for _ in $(seq "$reps"); do
		base=$(shmem_kib)
		t0=$(date +%s%N)
		"$kagari" run --quiet --format json --output "$work/r.json" "$work/s.yaml" &
		pid=$!
		peak=$base
		while kill -0 "$pid" 2>/dev/null; do
			s=$(shmem_kib)
			[ "$s" -gt "$peak" ] && peak=$s
			r=$(pgrep -P "$pid" -x kagari-runner | head -1 || true)
			if [ -n "$r" ]; then
				h=$(awk '/^VmHWM:/ {print $2}' "/proc/$r/status" 2>/dev/null || echo 0)
				[ "${h:-0}" -gt "$hwm" ] && hwm=$h
			fi
			sleep 0.01
		done
		wait "$pid" || true
		t1=$(date +%s%N)
		[ $((peak - base)) -gt "$grow" ] && grow=$((peak - base))
		means+=("$("$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); c=r["suites"][0]["benchmarks"][0]["commands"][0]["head"]; print("%.1f" % (c["metrics"]["latency"]["stats"]["mean"]/1e6))' "$work/r.json")")
		calls+=($(((t1 - t0) / 1000000)))
	done
	printf '%-8s %10s %14s %12s %14.1f %16.1f\n' "$target" "$mb" \
		"$(printf '%s\n' "${means[@]}" | median)" \
		"$(printf '%s\n' "${calls[@]}" | median)" \
		"$(echo "$grow / 1024" | bc -l)" "$(echo "$hwm / 1024" | bc -l)"
done
