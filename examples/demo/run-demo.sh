#!/bin/sh
# make demo: the main job on a bundled example. It makes a git repository of
# the sort example in a temporary folder, commits it (the base), makes the
# working tree do 20% more work (the head, uncommitted), and runs
# `kagari compare --against HEAD`. kagari should find a regression of about
# +20% and exit 1; the demo exits 0 when it does, so a newcomer does not read
# make's error as a failure. Nothing in the source tree changes.
set -u
kagari=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kagari-demo-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
cp "$src/sort.c" "$src/kagari.yaml" "$work/"
echo 0 > "$work/slowdown.txt"
cd "$work" || exit 1
git init -q . && git add -A &&
	git -c user.name=kagari-demo -c user.email=demo@kagari.invalid commit -qm "base: slowdown 0" ||
	{ echo "kagari demo: git is needed (apt-get install -y git)" >&2; exit 1; }
echo 20 > slowdown.txt
echo "kagari demo: base = the committed sort example; head = the working tree, slowed by 20%."
echo "kagari demo: running 'kagari compare --against HEAD' (both built here, measured interleaved)..."
echo
rc=0
# The table goes to the terminal; the suite's report.outputs also writes result.json.
"$kagari" compare --against HEAD 2>err.txt || rc=$?
found=$(/usr/bin/env python3 -c '
import json
r = json.load(open("result.json"))
c = r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["latency"]
print("%s %.1f" % (c["verdict"], c["change_percent"]))' 2>/dev/null || echo "unknown 0")
echo
if [ "$rc" -eq 1 ] && [ "${found%% *}" = regression ]; then
	echo "kagari demo: kagari found the planted slowdown: latency regression of ${found#* }% (exit 1 from kagari, as a CI gate would fail); demo OK."
	exit 0
fi
cat err.txt >&2
echo "kagari demo: kagari exited $rc with latency verdict '${found%% *}' (planted: +20%); on a very noisy machine try again." >&2
exit 1
