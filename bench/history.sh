#!/bin/bash
# bench/history: how long the history takes with 10,000 stored runs
# (bench/history.c: appends through history_append(), then the queries
# `kagari history` and `--shard` make, and step detection), and then
# `kagari history --format json` end to end on that database. Prints a table.
#
#   bash bench/history.sh [BUILD-DIR] [RUNS]
#
# Built into a temporary folder from the sources in this tree; nothing in the
# tree changes. Needs gcc, libsqlite3 and a built kagari.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
runs=${2:-10000}
work=$(mktemp -d "${TMPDIR:-/tmp}/kagari-bench-history-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"
gcc -std=gnu11 -D_GNU_SOURCE -DKAGARI_VERSION='"bench"' -O2 -Isrc -o "$work/history" \
	bench/history.c src/history/history.c src/history/steps.c \
	src/model/result.c src/model/profile.c src/model/metric.c src/model/rng.c src/base/sbuf.c \
	src/base/strvec.c src/base/xalloc.c src/base/fileio.c \
	$(pkg-config --cflags --libs sqlite3) -lm
echo "== bench/history: $runs stored runs (20 result rows each) =="
"$work/history" "$work/h.sqlite" "$runs"
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
