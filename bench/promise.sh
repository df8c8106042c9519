#!/bin/bash
# bench/promise: the property test of the gate's promise (tests/unit/
# test_promise.c, docs/statistics.md "The promise, tested") as a larger
# sweep: CASES seeded cases (default 5000) over bench/traces, each judged
# as compare judges it, and the table of the three properties per scenario
# family (cases, violations), with the smallest violating case of each.
#
#   bash bench/promise.sh [CASES [SEED]]
#
# `make check` runs the same test with 800 cases (100 under ASan). Every
# violation is printed too with KAGARI_PROMISE_ALL=1; a case is replayed
# with its samples by KAGARI_PROMISE_CASE=I build/test_promise. The driver
# is build/test_promise (KAGARI_BUILD: another build folder); nothing in
# the tree changes. Exit status: the test's (non-zero on a violation).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${KAGARI_BUILD:-$root/build}
[ -f "$build/build.ninja" ] || cmake -S "$root" -B "$build" -G Ninja >/dev/null
cmake --build "$build" --target test_promise >/dev/null
echo "== bench/promise: ${1:-5000} cases, seed ${2:-39} =="
start=$(date +%s)
set +e
KAGARI_PROMISE_CASES=${1:-5000} KAGARI_PROMISE_SEED=${2:-39} \
	"$build/test_promise" 2>&1 | grep -v '^\['
rc=${PIPESTATUS[0]}
set -e
echo "== $(( $(date +%s) - start )) s; test_promise exit $rc =="
exit "$rc"
