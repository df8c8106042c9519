#!/bin/bash
# bench/history: how long the history takes with 10,000 stored runs
# (bench/history.c: appends through history_append(), then the queries
# `kagari history` and `--shard` make, and step detection), and then, end
# to end on that database in a repository of 2,000 commits whose
# first-parent line the runs measured (every fifth run a `ci` with a
# paired comparison), `kagari history` (table and JSON), `history check`
# and the trend site, with the site's size. Prints a table.
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
# The repository: 2,000 commits on main, made by one fast-import.
repo=$work/repo
git init -q -b main "$repo"
commits=$((runs / 5))
for i in $(seq 0 $((commits - 1))); do
	printf 'commit refs/heads/main\nmark :%d\ncommitter b <b@example.org> %d +0000\ndata <<E\nc%d\nE\n' \
		$((i + 1)) $((1700000000 + i * 60)) "$i"
	[ "$i" = 0 ] || printf 'from :%d\n' "$i"
	printf 'M 644 inline n.txt\ndata <<E\n%d\nE\n\n' "$i"
done | git -C "$repo" fast-import --quiet
git -C "$repo" reset -q --hard main
git -C "$repo" rev-list --reverse --first-parent main >"$work/shas"
echo "== bench/history: $runs stored runs (20 result rows each) =="
"$build/kagari-bench-history" "$work/h.sqlite" "$runs" "$work/shas"
{
	printf 'version: "1"\nname: s\nbenchmarks:\n'
	for b in 0 1 2 3 4; do
		printf '  - name: b%d\n    commands:\n      c0: {command: ["true"]}\n      c1: {command: ["true"]}\n' "$b"
	done
} > "$repo/kagari.yaml"
# best NAME CMD...: the best of 3 runs of CMD: its wall time and its CPU
# time (user + system; on a machine shared with other builds the wall
# time waits for a core, the CPU time does not), in ms, printed.
best() {
	local name=$1 b= c= t u
	shift
	for rep in 1 2 3; do
		/usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >"$work/out" 2>"$work/err" || true
		read -r t u < <(tail -n 1 "$work/time" | awk '{printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000}')
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t c=$u; fi
	done
	printf '%-44s %9d ms  (CPU %d ms; best of 3; %s bytes out)\n' "$name" "$b" "$c" "$(wc -c <"$work/out")"
}
K=$build/kagari
best "kagari history (table)" "$K" history "$repo/kagari.yaml" --history "$work/h.sqlite"
best "kagari history --format json" "$K" history "$repo/kagari.yaml" --history "$work/h.sqlite" --format json
best "kagari history check --since HEAD~10" "$K" history check --since HEAD~10 "$repo/kagari.yaml" --history "$work/h.sqlite"
since=$(sed -n 1190p "$work/shas")
best "kagari history check (range with the step)" "$K" history check --since "$since" "$repo/kagari.yaml" --history "$work/h.sqlite"
grep -c '^| \[\?`' "$work/out" | awk '{printf "%-44s %12s\n", "  alerts in that range", $1}'
best "kagari history --format html --output site/" "$K" history "$repo/kagari.yaml" --history "$work/h.sqlite" --format html --output "$work/site/"
wc -c <"$work/site/index.html" | awk '{printf "%-44s %9.2f MB\n", "site size (index.html)", $1 / 1e6}'
du -h "$work/h.sqlite" | awk '{printf "%-44s %12s\n", "database size", $1}'
