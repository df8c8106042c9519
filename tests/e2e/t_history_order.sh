#!/bin/bash
# kagari history puts a series' points in the order of the commits — the
# first-parent line of HEAD, oldest first, then other commits by commit
# date — not in the order they were measured (the tip measured first by
# `ci` is not the first point, and the planted step reads c3 .. c4); each
# point carries the interval of its runs (low, high); each series says the
# noise of one run and how many runs per commit a step of --detect P
# percent needs; the HTML trend plot draws the intervals.
. "$(dirname "$0")/lib.sh"

git_sandbox
unset KAGARI_MACHINE_ID

# suite N: a suite whose one command makes N allocations.
suite() {
	cat > kagari.yaml <<YAML
version: "1"
name: s
defaults: {warmup: 0, runs: 3, metrics: {allocations: true, cpu: false}}
benchmarks:
  - name: b
    commands:
      m: {command: ["$H", "mallocs", "$1"]}
YAML
}

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
C=()
for i in 1 2 3 4 5 6; do
	n=1000
	[ "$i" -ge 4 ] && n=1300
	suite $n
	echo "$i" > i.txt
	g add -A && g commit -qm "c$i"
	C[$i]=$(g rev-parse HEAD)
done
# A side branch from c3, not on main's first-parent line.
g checkout -q -b side "${C[3]}"
echo side > i.txt
g commit -qam side
SIDE=$(g rev-parse HEAD)
g checkout -q main

measure() { # SHA [TIMES]
	g checkout -q --detach "$1"
	for _ in $(seq 1 "${2:-1}"); do
		"$KAGARI" run kagari.yaml --quiet >/dev/null 2>"$T/err" || fail "run at $1: $(cat "$T/err")"
	done
}
# The tip first (as ci would), then the rest out of order; c2 three times.
measure "${C[6]}"
measure "${C[1]}"
measure "$SIDE"
measure "${C[3]}"
measure "${C[2]}" 3
measure "${C[5]}"
measure "${C[4]}"
g checkout -q main

case_ "points in first-parent order of HEAD, then the other commits"
run_k history --format json --metric allocs
expect_rc 0
cp "$T/out" "$T/h.json"
json_check "$T/h.json" "[p['sha'] for p in r['series'][0]['points']] == '${C[*]} $SIDE'.split()"

case_ "the step reads from c3 to c4"
json_check "$T/h.json" "[(s['from_sha'], s['to_sha'], s['change_percent']) for s in r['series'][0]['steps']] == [('${C[3]}', '${C[4]}', 30.0)]"
run_k history --metric allocs
expect_out "step ${C[3]:0:10} → ${C[4]:0:10}  +30.0%"
# The latest value is HEAD's (c6: 1300), not the side branch's after it.
expect_out "7 commits, ${C[1]:0:10} .. ${SIDE:0:10}, latest 1300"

case_ "each point has the interval of its runs"
json_check "$T/h.json" "[(p['runs'], p['low'], p['high']) for p in r['series'][0]['points']][1] == (3, 1000.0, 1000.0)"
run_k history --format json --metric latency
json_check "$T/out" "[p for p in r['series'][0]['points'] if p['sha'] == '${C[2]}'][0]['runs'] == 3"
json_check "$T/out" "all(p['low'] <= p['median'] <= p['high'] for p in r['series'][0]['points'])"
json_check "$T/out" "[p['low'] < p['high'] for p in r['series'][0]['points'] if p['sha'] == '${C[2]}'] == [True]"
json_check "$T/out" "all(p['low'] == p['high'] == p['median'] for p in r['series'][0]['points'] if p['runs'] == 1)"

case_ "the noise of one run and the runs per commit a step needs"
json_check "$T/out" "r['series'][0]['noise_percent'] >= 0 and r['series'][0]['detect']['step_percent'] == 5 and r['series'][0]['detect']['runs_per_commit'] >= 1"
cp "$T/out" "$T/l5.json"
run_k history --format json --metric latency --detect 50
json_check "$T/out" "r['series'][0]['detect']['step_percent'] == 50"
"$PY" - "$T/l5.json" "$T/out" <<'PYEOF' || fail "a larger step does not need fewer or as many runs"
import json, sys
a = json.load(open(sys.argv[1]))['series'][0]['detect']['runs_per_commit']
b = json.load(open(sys.argv[2]))['series'][0]['detect']['runs_per_commit']
assert b <= a, (a, b)
PYEOF
# Allocation counts are exact: any step needs one run.
json_check "$T/h.json" "r['series'][0]['noise_percent'] < 1e-6 and r['series'][0]['detect']['runs_per_commit'] == 1"
run_k history --metric allocs
expect_out "noise of one run ±0.0%; a 5% step needs 1 run per commit to be found (these have 1-3)"
run_k history --metric allocs --detect nope
expect_rc 3
expect_err "--detect 'nope'"
run_k history --metric allocs --format markdown
expect_out "a 5% step needs 1 run per commit"

case_ "the HTML trend plot draws the intervals of the runs"
run_k history --metric latency --format html
expect_rc 0
grep -q 'class="iv"' "$T/out" || fail "no interval bar in the trend plot"
expect_out "noise of one run ±"
case_ "a merged side branch is shown after HEAD's first-parent line, never searched for steps"
# main: m1 m2 m3 (1000 allocations), m4 m5 (1300), then M, the merge of a
# side branch s1 s2 s3 forked at m2 whose commits make 2000 (the merge
# keeps main's 1300), then m6. Searched over every point, the side
# branch's level after the line's tip would be a +54 % step; searched on
# the first-parent line alone, the one step is m3 -> m4.
R2="$T/merge"
mkdir -p "$R2"
cd "$R2" || exit 1
g init -q .
at=1700000000
commit() { # MESSAGE
	at=$((at + 60))
	g add -A
	GIT_COMMITTER_DATE="@$at +0000" GIT_AUTHOR_DATE="@$at +0000" g commit -qm "$1"
}
declare -A S
for i in 1 2 3 4 5; do
	n=1000
	[ "$i" -ge 4 ] && n=1300
	suite $n
	echo "$i" > i.txt
	commit "m$i"
	S[m$i]=$(g rev-parse HEAD)
done
g checkout -q -b side "${S[m2]}"
for i in 1 2 3; do
	suite 2000
	echo "s$i" > s.txt
	commit "s$i"
	S[s$i]=$(g rev-parse HEAD)
done
g checkout -q main
at=$((at + 60))
GIT_COMMITTER_DATE="@$at +0000" GIT_AUTHOR_DATE="@$at +0000" g merge -q -s ours --no-edit side
S[M]=$(g rev-parse HEAD)
suite 1300
echo 6 > i.txt
commit m6
S[m6]=$(g rev-parse HEAD)
[ "$(g rev-list --first-parent HEAD | wc -l)" -eq 7 ] || fail "the first-parent line is not m1..m5 M m6"
# The side branch measured between the line's commits, the tip first.
for c in m6 s2 m1 m4 s1 M m2 s3 m5 m3; do
	measure "${S[$c]}"
done
g checkout -q main
run_k history --format json --metric allocs
expect_rc 0
json_check "$T/out" "[p['sha'] for p in r['series'][0]['points']] == '${S[m1]} ${S[m2]} ${S[m3]} ${S[m4]} ${S[m5]} ${S[M]} ${S[m6]} ${S[s1]} ${S[s2]} ${S[s3]}'.split()"
json_check "$T/out" "[p['median'] for p in r['series'][0]['points']] == [1000.0] * 3 + [1300.0] * 4 + [2000.0] * 3"
json_check "$T/out" "[(s['from_sha'], s['to_sha'], s['change_percent']) for s in r['series'][0]['steps']] == [('${S[m3]}', '${S[m4]}', 30.0)]"
run_k history --metric allocs
expect_rc 0
expect_out "10 commits, ${S[m1]:0:10} .. ${S[s3]:0:10}, latest 1300"
[ "$(grep -c '^  step ' "$T/out")" -eq 1 ] || fail "not exactly one step: $(cat "$T/out")"
expect_out "step ${S[m3]:0:10} → ${S[m4]:0:10}  +30.0%"
case_ "points that differ more than their runs do: the noise between sessions, and no number of runs finds a small step"
# Two runs of every commit agree exactly (allocation counts), while the
# commits alternate 1000 / 1100: their scatter is the sessions' (tau =
# 1.4826 * 100 / sqrt 2 = 104.8, 9.5 % of 1100), and more runs per commit
# cannot make a 5 % step visible (it needs more than 5 tau, 47.7 %).
R3="$T/sessions"
mkdir -p "$R3"
cd "$R3" || exit 1
g init -q .
A=()
for i in 1 2 3 4 5 6; do
	suite $((i % 2 ? 1000 : 1100))
	g add -A && g commit -qm "a$i"
	A[$i]=$(g rev-parse HEAD)
done
for i in 1 2 3 4 5 6; do
	measure "${A[$i]}" 2
done
g checkout -q main
run_k history --metric allocs
expect_rc 0
expect_out "noise of one run ±0.0%, between sessions ±9.5%; no number of runs per commit finds a 5% step: the noise between sessions alone makes it more than 47.7% (these have 2)"
run_k history --metric allocs --format json
json_check "$T/out" "abs(r['series'][0]['between_percent'] - 1.4826 * 100 / 2 ** 0.5 / 11) < 0.01 and r['series'][0]['detect']['runs_per_commit'] is None and abs(r['series'][0]['detect']['min_step_percent'] - 5 * 1.4826 * 100 / 2 ** 0.5 / 11) < 0.05"
# A step above 5 tau: the runs it needs (1: the runs agree exactly).
run_k history --metric allocs --format json --detect 60
json_check "$T/out" "r['series'][0]['detect']['runs_per_commit'] == 1"
finish
