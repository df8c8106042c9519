#!/bin/sh
# make demo: measure the bundled sort example with `kagari run` and print
# the results table. It runs in a copy of the example in a temporary folder,
# so nothing in the source tree changes.
set -eu
kagari=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kagari-demo-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
cp "$src/sort.c" "$src/slowdown.txt" "$src/kagari.yaml" "$work/"
cd "$work"
echo "kagari demo: measuring the sort example (20 runs per command) in $work"
rc=0
"$kagari" run kagari.yaml || rc=$?
if [ "$rc" -eq 0 ]; then
	echo "kagari demo: done - every command ran and stayed within its budgets (exit 0)."
else
	echo "kagari demo: kagari exited $rc - see the message above." >&2
fi
exit "$rc"
