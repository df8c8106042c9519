#!/bin/bash
# bench/history: how long the history takes with 10,000 stored runs
# (bench/history.c: appends through history_append(), then the queries
# `kagari history` and `--shard` make, and step detection), and then
# `kagari history --format json` end to end on that database. Prints a table.
#
#   bash bench/history.sh [BUILD-DIR] [RUNS]
#
# Its driver is BUILD-DIR/kagari-bench-history (built here with kagari when
# missing); the database goes to a temporary folder, nothing in the tree
# changes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
runs=${2:-10000}
work=$(mktemp -d "${TMPDIR:-/tmp}/kagari-bench-history-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"
# The driver is a CMake target built with the tests (make check), linked
# with the same kagari_core as kagari; built here when it is missing.
cmake --build "$build" --target kagari kagari-bench-history >/dev/null
echo "== bench/history: $runs stored runs (20 result rows each) =="
"$build/kagari-bench-history" "$work/h.sqlite" "$runs"
{
	printf 'version: "1"\nname: s\nbenchmarks:\n'
	for b in 0 1 2 3 4; do
		printf '  - name: b%d\n    commands:\n      c0: {command: ["true"]}\n      c1: {command: ["true"]}\n' "$b"
	done
} > "$work/kagari.yaml"
best=
for rep in 1 2 3; do
	s=${EPOCHREALTIME/./}
	"$build/kagari" history "$work/kagari.yaml" --history "$work/h.sqlite" --format json >"$work/out.json"
	e=${EPOCHREALTIME/./}
	t=$(((e - s) / 1000))
	[ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
done
printf '%-44s %9d ms  (best of 3; %s bytes of JSON)\n' "kagari history --format json (end to end)" "$best" "$(wc -c <"$work/out.json")"
du -h "$work/h.sqlite" | awk '{printf "%-44s %12s\n", "database size", $1}'
