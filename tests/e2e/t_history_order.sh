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
finish
