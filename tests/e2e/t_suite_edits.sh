#!/bin/bash
# The gate's suite is the base's (issue 39): every way a change can edit
# its suite files, with the program made 10x slower in the same change.
# `ci` finds the base commit's suites by the rule the working tree's are
# found by, so that deleting, renaming, moving, shadowing or loosening a
# suite — or changing runs, caps, min_difference, env, hooks or the names
# a filter picks — cannot turn the slowdown into a pass: exit 1, and the
# JSON report names the base's copy (suite_from "base", gating true). A
# suite only the head has is measured and reported, not gating, in one
# line; a base without any suite (the change that adopts kagari) lets the
# head's suite gate.
. "$(dirname "$0")/lib.sh"
git_sandbox
unset KAGARI_BASE_REF GITHUB_EVENT_NAME GITHUB_EVENT_PATH GITHUB_STEP_SUMMARY GITHUB_WORKSPACE \
	GITLAB_CI CI_MERGE_REQUEST_DIFF_BASE_SHA CI_COMMIT_BEFORE_SHA

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .

# The measured program: 5 ms of CPU in the base. The head's takes 50 ms — unless
# FAST=1 is in its environment or a file named `cache` is beside it, which
# a suite's env or setup hook could arrange.
base_prog() {
	printf '#!/bin/sh\nexec "%s" burn 5\n' "$H" >prog.sh
	chmod +x prog.sh
}
slow_prog() {
	cat >prog.sh <<SH
#!/bin/sh
[ "\${FAST:-}" = 1 ] && exec "$H" burn 5
[ -f cache ] && exec "$H" burn 5
exec "$H" burn 50
SH
	chmod +x prog.sh
}
# suite FILE NAME [EXTRA-DEFAULTS] [EXTRA-BENCH-KEYS]: a suite of one
# benchmark 'nap' running ./prog.sh (from the suite's folder, found with
# ${root}-free relative paths: PROG is the path to prog.sh from there).
# Only CPU time gates (regression.cpu_total, REG to change it): a 10x
# slower program shows there on a loaded machine, where the wall clock's
# noise can hide it.
DEFREG="{cpu_total: {max_percent: 10}}"
suite() {
	cat >"$1" <<YAML
version: "1"
name: $2
defaults:
  warmup: 0
  runs: 10
  metrics: {cpu: true}
  regression: ${REG:-$DEFREG}
${3:-}
benchmarks:
  - name: nap
${4:-}
    commands:
      prog: {command: ["${PROG:-./prog.sh}"]}
YAML
}

base_prog
suite kagari.yaml demo
g add -A
g commit -qm base
# A second base holding only himorime.yaml, and one with no suite at all.
g checkout -q -b hbase
g mv kagari.yaml himorime.yaml
g commit -qm "himorime base"
g checkout -q -b nosuite main
g rm -q kagari.yaml
g commit -qm "no suite"
g checkout -q main

# start NAME [BASE]: a case, on a fresh branch from BASE (main) with the
# program made slower.
start() {
	case_ "$1"
	g checkout -q -f "${2:-main}"
	g clean -qfdx
	g checkout -q -B "case$CASES"
	slow_prog
}
commit() {
	g add -A
	g commit -qm head
}
# ci_json ARGS...: kagari ci against BASE (main unless BASE is set), the
# JSON report in $T/r.json.
ci_json() {
	run_k ci --against "${BASE:-main}" --quiet --format json --output "$T/r.json" "$@"
}
# base_gates FILE: exit 1 for a gated CPU-time regression of the base's copy
# FILE (as the report names it), the only gating suite.
base_gates() {
	expect_rc 1
	json_check "$T/r.json" "[(s['file'], s['suite_from']) for s in r['suites'] if s['gating']] == [('$1', 'base')]"
	json_check "$T/r.json" "any(c['comparisons']['cpu_total']['verdict'] == 'regression' and c['comparisons']['cpu_total']['gate'] for s in r['suites'] if s['gating'] for b in s['benchmarks'] for c in b['commands'])"
	last_err_has "gated regression"
}
# not_gating FILE REL: the suite FILE (REL in the repository) ran, the head's copy, and none of its
# comparisons gates; one line on stderr says it gates from the next change on.
not_gating() {
	json_check "$T/r.json" "[(s['suite_from'], s['gating']) for s in r['suites'] if s['file'] == '$1'] == [('head', False)]"
	json_check "$T/r.json" "all(not v['gate'] for s in r['suites'] if s['file'] == '$1' for b in s['benchmarks'] for c in b['commands'] for v in c['comparisons'].values())"
	[ "$(grep -cF "($2) is not in ${BASE:-main}: " "$T/err")" = 1 ] &&
		grep -F "($2) is not in ${BASE:-main}: " "$T/err" | grep -q "not gating.*it gates from the next change on" ||
		fail "not one line saying $2 gates from the next change on: $(cat "$T/err")"
}

start "delete kagari.yaml, add himorime.yaml with max_percent 1000: the base's kagari.yaml gates"
g rm -q kagari.yaml
REG="{cpu_total: {max_percent: 1000}}" suite himorime.yaml demo
commit
ci_json
base_gates kagari.yaml
expect_err "both sides run main's copy of kagari.yaml, which the working tree has as himorime.yaml"
ci_json .
base_gates ./kagari.yaml
ci_json himorime.yaml
base_gates ./kagari.yaml
expect_err "himorime.yaml is not in main: main's suites in its folder '.' take its place"
# compare --suite-from base finds the base's suites the same way; compare's
# own default still runs what the working tree has.
run_k compare --against main --suite-from base --quiet --format json --output "$T/r.json"
base_gates kagari.yaml
run_k compare --against main --quiet --format json --output "$T/r.json"
expect_rc 0
json_check "$T/r.json" "[(s['file'], s['suite_from']) for s in r['suites']] == [('himorime.yaml', 'head')]"

start "delete kagari.yaml, add himorime.yaml under another suite name: the base's gates, the new one does not"
g rm -q kagari.yaml
REG="{cpu_total: {max_percent: 1000}}" suite himorime.yaml other
commit
ci_json
base_gates kagari.yaml
not_gating himorime.yaml himorime.yaml
expect_err "both sides run main's copy of kagari.yaml, which is not among the working tree's suites"

start "rename kagari.yaml to x.kagari.yaml with a looser tolerance: the folder, the file and no argument"
g mv kagari.yaml x.kagari.yaml
REG="{cpu_total: {max_percent: 1000}}" suite x.kagari.yaml demo
commit
ci_json
base_gates kagari.yaml
expect_err "the working tree: no suite given and neither kagari.yaml nor himorime.yaml"
ci_json .
base_gates ./kagari.yaml
expect_err "which the working tree has as x.kagari.yaml, changed (matched by the suite's name"
ci_json x.kagari.yaml
base_gates ./kagari.yaml

start "move the suite into a subfolder, loosened"
mkdir -p bench
g mv kagari.yaml bench/kagari.yaml
PROG=../prog.sh REG="{cpu_total: {max_percent: 1000}}" suite bench/kagari.yaml demo
commit
ci_json
base_gates kagari.yaml
ci_json .
base_gates ./kagari.yaml

start "shadow: a looser *.kagari.yaml beside kagari.yaml, with the same suite name"
REG="{cpu_total: {max_percent: 1000}}" suite a.kagari.yaml demo
commit
ci_json .
base_gates ./kagari.yaml
not_gating ./a.kagari.yaml a.kagari.yaml

start "shadow: a kagari.yaml beside the base's himorime.yaml (no argument finds kagari.yaml first)" hbase
commit
REG="{cpu_total: {max_percent: 1000}}" suite kagari.yaml demo
# Not committed yet: the file the base's copy ran in place of is kagari's
# own, not a change to the code measured.
BASE=hbase ci_json
base_gates himorime.yaml
json_check "$T/r.json" "r['git']['dirty'] is False"
commit
BASE=hbase ci_json
base_gates himorime.yaml

start "loosen the tolerance in place"
REG="{cpu_total: {max_percent: 1000, gate: false}}" suite kagari.yaml demo
commit
ci_json
base_gates kagari.yaml
expect_err "both sides run main's copy of kagari.yaml, which differs from the working tree's"

start "min_difference of a second"
REG="{cpu_total: {min_difference: 1s}}" suite kagari.yaml demo
commit
ci_json
base_gates kagari.yaml

start "runs: 2 (too few rounds to decide)"
sed -i 's/runs: 10/runs: 2/' kagari.yaml
commit
ci_json
base_gates kagari.yaml

start "max_runs: the sequential rounds capped at 3"
sed -i 's/  runs: 10/  min_runs: 3\n  max_runs: 3/' kagari.yaml
commit
ci_json
base_gates kagari.yaml

start "env: FAST=1 makes the head's program fast"
suite kagari.yaml demo "  env: {FAST: \"1\"}"
commit
ci_json
base_gates kagari.yaml

start "hooks: a setup hook makes the head's cache"
suite kagari.yaml demo "" "    setup:
      - {command: [touch, cache]}"
commit
ci_json
base_gates kagari.yaml

start "filters: a tag the workflow skips, on the slow benchmark"
suite kagari.yaml demo "" "    tags: [slow-ok]"
commit
ci_json --skip-tag slow-ok
base_gates kagari.yaml

start "delete every suite"
g rm -q kagari.yaml
commit
ci_json
base_gates kagari.yaml
expect_err "which is not among the working tree's suites"

start "a new suite only the head has: measured and reported, not gating"
mkdir -p extra
PROG=../prog.sh REG="{cpu_total: {max_percent: 1}}" suite extra/new.kagari.yaml fresh
commit
ci_json . extra
base_gates ./kagari.yaml
not_gating extra/new.kagari.yaml extra/new.kagari.yaml
json_check "$T/r.json" "[s['benchmarks'][0]['commands'][0]['comparisons']['cpu_total']['verdict'] for s in r['suites'] if s['file'] == 'extra/new.kagari.yaml'] == ['regression']"
# Where the base's suite gates nothing that changed, the new suite's
# regression alone cannot fail the check: exit 0.
g checkout -q main
g checkout -q -B quietbase
REG="{cpu_total: {gate: false}}" suite kagari.yaml demo
g commit -qam "the base suite gates nothing"
g checkout -q -B newsuite
slow_prog
mkdir -p extra
PROG=../prog.sh REG="{cpu_total: {max_percent: 1}}" suite extra/new.kagari.yaml fresh
commit
BASE=quietbase ci_json . extra
expect_rc 0
BASE=quietbase not_gating extra/new.kagari.yaml extra/new.kagari.yaml
# The table says it by the suite's name.
run_k ci --against quietbase --quiet --no-history . extra
expect_rc 0
expect_out "fresh (extra/new.kagari.yaml) · not gating (new: gates from the next change on)"
json_check "$T/r.json" "[s['benchmarks'][0]['commands'][0]['comparisons']['cpu_total']['verdict'] for s in r['suites'] if s['file'] == 'extra/new.kagari.yaml'] == ['regression']"

start "no suite in the base (adoption): the head's suite gates" nosuite
suite kagari.yaml demo
commit
BASE=nosuite ci_json
expect_rc 1
json_check "$T/r.json" "[(s['file'], s['suite_from'], s['gating']) for s in r['suites']] == [('kagari.yaml', 'head', True)]"
expect_err "nosuite has no suite"
expect_err "the change that adopts kagari"
run_k ci --against nosuite --suite-from base --quiet
expect_rc 3
expect_err "--suite-from base: nosuite has no suite"

start "a file argument where the base has no suite in its folder: the head's gates, and it says so"
mkdir -p fresh
PROG=../prog.sh suite fresh/kagari.yaml fresh
commit
ci_json fresh/kagari.yaml
expect_rc 1
json_check "$T/r.json" "[(s['file'], s['suite_from'], s['gating']) for s in r['suites']] == [('fresh/kagari.yaml', 'head', True)]"
expect_err "main has no suite at 'fresh'"
expect_err "the change that adopts kagari"

g checkout -q -f main
finish
