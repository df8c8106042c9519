#!/bin/bash
# kagari report SAVED.json --reanalyze: the saved samples go through the
# analysis again with the saved settings. With the report's own seed every
# statistic and verdict comes back exactly (the `suites` JSON compares
# equal); --max-percent METRIC=P and --confidence C answer "what if" without
# measuring, with compare's exit code. Allocation counts are exact, so the
# verdicts here do not depend on the machine's timing.
. "$(dirname "$0")/lib.sh"

git_sandbox

# same_suites A B: the `suites` of two reports are equal.
same_suites() {
	"$PY" - "$1" "$2" <<'PYEOF' || fail "suites of $1 and $2 differ"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
if a["suites"] != b["suites"]:
    sys.exit(1)
PYEOF
}

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
# Timing comparisons cannot reach a verdict in two rounds; allocs (+50% in
# the head) is the one that decides, and passes at T = 60.
malloc_loop_project re 60 '{allocs: {max: "<= 100000"}}'
g add -A && g commit -qm base
echo '#define N 3000' > n.h
A='r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["allocs"]'

case_ "compare at T = 60: +50% allocs passes, exit 0; the settings are saved"
run_k compare --against HEAD --format json --output "$T/c.json" --quiet --seed 11
expect_rc 0
json_check "$T/c.json" "$A['verdict'] == 'pass' and $A['max_percent'] == 60"
json_check "$T/c.json" 'r["suites"][0]["benchmarks"][0]["commands"][0]["analysis"]["metrics"]["allocs"]["max_percent"] == 60'
json_check "$T/c.json" 'r["suites"][0]["benchmarks"][0]["commands"][0]["analysis"]["min_samples"] == 4'
sum_before=$(sha256sum "$T/c.json")

case_ "--reanalyze with the report's own seed reproduces suites exactly"
run_k report "$T/c.json" --reanalyze --format json --output "$T/same.json"
expect_rc 0
same_suites "$T/c.json" "$T/same.json"
json_check "$T/same.json" 'r["seed"] == 11 and r["summary"]["exit_code"] == 0'

case_ "a tighter tolerance turns the pass into a gated regression, exit 1"
run_k report "$T/c.json" --reanalyze --max-percent allocs=10 --format json --output "$T/tight.json"
expect_rc 1
expect_err "1 gated regression found"
json_check "$T/tight.json" "$A['verdict'] == 'regression' and $A['max_percent'] == 10"
json_check "$T/tight.json" 'r["suites"][0]["benchmarks"][0]["commands"][0]["analysis"]["metrics"]["allocs"]["max_percent"] == 10'
json_check "$T/tight.json" 'r["summary"]["regression"] == 1 and r["summary"]["exit_code"] == 1 and r["suites"][0]["result"] == "regression"'
# The samples are the saved ones: nothing was measured again.
json_check "$T/tight.json" 'r["suites"][0]["benchmarks"][0]["commands"][0]["head"] == json.load(open("'"$T"'/c.json"))["suites"][0]["benchmarks"][0]["commands"][0]["head"]'
[ "$(sha256sum "$T/c.json")" = "$sum_before" ] || fail "the saved report was modified"

case_ "the table of a what-if shows the regression; the saved report's own exit code is unchanged"
run_k report "$T/c.json" --reanalyze --max-percent allocs=10
expect_rc 1
expect_out "regression"
run_k report "$T/c.json"
expect_rc 0

case_ "a what-if report analysed again with its seed reproduces itself"
run_k report "$T/tight.json" --reanalyze --format json --output "$T/tight2.json"
expect_rc 1
same_suites "$T/tight.json" "$T/tight2.json"

case_ "--max-percent is repeatable and takes a percent sign; --confidence applies to every comparison"
run_k report "$T/c.json" --reanalyze --max-percent latency=20 --max-percent 'allocs=70%' --confidence 0.9 --format json --output "$T/conf.json"
expect_rc 0
json_check "$T/conf.json" "$A['max_percent'] == 70 and $A['verdict'] == 'pass'"
json_check "$T/conf.json" 'r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["latency"]["max_percent"] == 20'
json_check "$T/conf.json" 'all(c["confidence"] == 0.9 for c in r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"].values())'

case_ "--fail-on-inconclusive with --reanalyze: exit 1 exactly when a gated comparison is inconclusive"
# Two rounds cannot decide the timing metrics, so some gated one (cpu_total,
# peak_rss) is inconclusive unless every one of them passed.
want=$("$PY" -c 'import json,sys; print(1 if json.load(open(sys.argv[1]))["summary"]["inconclusive"] else 0)' "$T/c.json")
run_k report "$T/c.json" --reanalyze --fail-on-inconclusive
expect_rc "$want"
[ "$want" = 1 ] && expect_err "inconclusive (--fail-on-inconclusive)"

case_ "bad --reanalyze arguments are usage errors (exit 3)"
for args in "--max-percent allocs=10" "--confidence 0.9" "--reanalyze --max-percent allocs" \
	"--reanalyze --max-percent nosuch=5" "--reanalyze --max-percent allocs=abc" \
	"--reanalyze --confidence 2" "--reanalyze --max-percent instructions=5"; do
	# shellcheck disable=SC2086
	run_k report "$T/c.json" $args
	expect_rc 3
done
run_k report "$T/c.json" --reanalyze --max-percent nosuch=5
expect_err "'nosuch' is not a metric that can be compared"
run_k report "$T/c.json" --reanalyze --max-percent instructions=5
expect_err "no command of"
run_k report "$T/c.json" --max-percent allocs=10
expect_err "need --reanalyze"

case_ "a report saved without analysis settings cannot be analysed again (exit 2)"
"$PY" - "$T/c.json" "$T/old.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
for s in r["suites"]:
    for b in s["benchmarks"]:
        for c in b["commands"]:
            c.pop("analysis", None)
json.dump(r, open(sys.argv[2], "w"))
PYEOF
run_k report "$T/old.json" --reanalyze
expect_rc 2
expect_err "no \`analysis\` settings"
run_k report "$T/old.json"
expect_rc 0

case_ "a report asking for a bootstrap above the limit (resamples x samples) is refused naming the file and field (exit 2)"
"$PY" - "$T/c.json" "$T/costly.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["suites"][0]["benchmarks"][0]["commands"][0]
c["analysis"]["resamples"] = 10000000
# 150 samples a side: 1.5e9 draws, above the limit of 1e9.
for side in ("base", "head"):
    for m in c[side]["metrics"].values():
        s = m.get("samples") or []
        if not s:
            continue
        more = []
        for i in range(150):
            x = json.loads(json.dumps(s[i % len(s)]))
            if isinstance(x, dict):
                x["round"] = i + 1
                x["run"] = i + 1
            more.append(x)
        m["samples"] = more
json.dump(r, open(sys.argv[2], "w"))
PYEOF
run_k report "$T/costly.json" --reanalyze
expect_rc 2
expect_err "$T/costly.json: suites[0].benchmarks[0].commands[0].analysis.resamples: 10000000 resamples x 150 samples per side"
expect_err "more than the limit of 1000000000"
# Within the limit it is read (the same resamples, fewer samples).
"$PY" - "$T/c.json" "$T/cheap.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["suites"][0]["benchmarks"][0]["commands"][0]["analysis"]["resamples"] = 10000
json.dump(r, open(sys.argv[2], "w"))
PYEOF
run_k report "$T/cheap.json" --reanalyze --format json --output "$T/cheap2.json"
[ "$RC" -le 1 ] || fail "a report within the limit: exit $RC: $(tail -3 "$T/err")"

case_ "a suite asking for a bootstrap above the limit is refused at resamples' line and column (exit 2)"
cat > "$T/costly.kagari.yaml" <<'YAML'
version: "1"
name: costly
defaults:
  max_runs: 1000000
  regression:
    resamples: 5000
benchmarks:
  - name: a
    commands:
      c: {command: ["true"]}
  - name: b
    runs: 500
    regression:
      resamples: 9000000
    commands:
      c: {command: ["true"]}
YAML
run_k validate "$T/costly.kagari.yaml"
expect_rc 2
expect_err "costly.kagari.yaml:6:16: defaults.regression.resamples: 5000 resamples x 1000000 samples per side (max_runs of defaults)"
expect_err "costly.kagari.yaml:14:18: benchmarks[1].regression.resamples: 9000000 resamples x 500 samples per side (runs of benchmarks[1])"
run_k run "$T/costly.kagari.yaml"
expect_rc 2
# Within the limit: valid.
sed -i 's/max_runs: 1000000/max_runs: 100000/; s/resamples: 9000000/resamples: 2000000/' "$T/costly.kagari.yaml"
run_k validate "$T/costly.kagari.yaml"
expect_rc 0

case_ "a verdict outside docs/contract.md's list is refused, naming the field (exit 2)"
"$PY" - "$T/c.json" "$T/badverdict.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["allocs"]["verdict"] = "passed"
json.dump(r, open(sys.argv[2], "w"))
PYEOF
run_k report "$T/badverdict.json"
expect_rc 2
expect_err "comparisons.allocs.verdict: unknown value 'passed'"
rm -f "$T/badverdict.json" # finish validates every report left in $T

case_ "a result outside the known names is refused, naming the field, with or without --reanalyze (exit 2)"
for level in suite benchmark command; do
	"$PY" - "$T/c.json" "$T/badresult.json" "$level" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["suites"][0]
o = {"suite": s, "benchmark": s["benchmarks"][0],
     "command": s["benchmarks"][0]["commands"][0]}[sys.argv[3]]
o["result"] = "passed"
json.dump(r, open(sys.argv[2], "w"))
PYEOF
	path="suites[0]"
	[ "$level" = suite ] || path="$path.benchmarks[0]"
	[ "$level" = command ] && path="$path.commands[0]"
	for again in "" --reanalyze; do
		run_k report "$T/badresult.json" $again
		expect_rc 2
		expect_err "$T/badresult.json: $path.result: unknown value 'passed'"
	done
done
# Every name kagari writes reads back; null is a result not analysed yet.
"$PY" - "$T/c.json" "$T/oddresult.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["suites"][0]
s["result"] = None
s["benchmarks"][0]["result"] = "not_run"
s["benchmarks"][0]["commands"][0]["result"] = "within_noise"
json.dump(r, open(sys.argv[2], "w"))
PYEOF
run_k report "$T/oddresult.json" --format json --output "$T/oddresult2.json"
expect_rc 0
json_check "$T/oddresult2.json" 'r["suites"][0]["result"] is None and r["suites"][0]["benchmarks"][0]["result"] == "not_run" and r["suites"][0]["benchmarks"][0]["commands"][0]["result"] == "within_noise"'
rm -f "$T/badresult.json" "$T/oddresult.json" "$T/oddresult2.json"

# edit_c OUT PYTHON: a copy of c.json with PYTHON run over c (its one
# command), a (its analysis) and `samples(side, metric)`.
edit_c() {
	"$PY" - "$T/c.json" "$1" "$2" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["suites"][0]["benchmarks"][0]["commands"][0]
a = c["analysis"]
def samples(side, metric):
    return c[side]["metrics"][metric]["samples"]
exec(sys.argv[3])
json.dump(r, open(sys.argv[2], "w"))
PYEOF
}
# run_kt ARGS...: run_k with a time limit, so that a hang fails the case
# instead of the test.
run_kt() {
	timeout 60 "$KAGARI" "$@" >"$T/out" 2>"$T/err"
	RC=$?
	[ "$RC" != 124 ] || fail "kagari $* did not end within 60 s"
}
CP="suites[0].benchmarks[0].commands[0]"

case_ "a sequential analysis without max_rounds (absent, null or 0) is refused naming the field, not replayed forever (exit 2)"
for cap in 'a.pop("max_rounds", None)' 'a["max_rounds"] = None' 'a["max_rounds"] = 0'; do
	edit_c "$T/nocap.json" "a['sequential'] = True; a['metrics']['latency']['gate'] = True; $cap"
	for again in "report --reanalyze" "report --reanalyze --max-percent allocs=10"; do
		# shellcheck disable=SC2086
		run_kt $again "$T/nocap.json"
		expect_rc 2
		expect_err "$T/nocap.json: $CP.analysis.max_rounds: "
	done
done
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); r["shard"].update(replicate=True); json.dump(r, open(sys.argv[1],"w"))' "$T/nocap.json"
run_kt merge --replicate "$T/nocap.json"
expect_rc 2
expect_err "$CP.analysis.max_rounds"

case_ "rounds past max_rounds (as merge --replicate pools them) are judged to the last round, and the reason says what ended them"
# c.json has 4 rounds: a cap of 1 is passed, and latency (gated here, so
# the looks judge it) cannot decide in 4.
edit_c "$T/pooled.json" 'a["sequential"] = True; a["max_rounds"] = 1; a["metrics"]["latency"]["gate"] = True'
run_kt report "$T/pooled.json" --reanalyze --format json --output "$T/pooled2.json"
[ "$RC" -le 1 ] || fail "exit $RC: $(tail -3 "$T/err")"
json_check "$T/pooled2.json" 'any(" rounds (max_runs reached)" in (x.get("reason") or "") for x in r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"].values())'
# With a cap above the rounds, neither reached nor interrupted: a what-if
# analysis of rounds that stopped when measuring decided them.
edit_c "$T/short.json" 'a["sequential"] = True; a["max_rounds"] = 50; a["metrics"]["latency"]["gate"] = True'
run_kt report "$T/short.json" --reanalyze --format json --output "$T/short2.json"
json_check "$T/short2.json" 'any(" rounds (measuring stopped there" in (x.get("reason") or "") for x in r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"].values())'
json_check "$T/short2.json" 'not any("or interrupted" in (x.get("reason") or "") for x in r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"].values())'
edit_c "$T/short.json" 'a["sequential"] = True; a["max_rounds"] = 50; a["metrics"]["latency"]["gate"] = True; r["interrupted"] = True'
run_kt report "$T/short.json" --reanalyze --format json --output "$T/short2.json"
json_check "$T/short2.json" 'any(" rounds (interrupted)" in (x.get("reason") or "") for x in r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"].values())'
edit_c "$T/short.json" 'a["sequential"] = True; a["max_rounds"] = 50; a["metrics"]["latency"]["gate"] = True; c["stopped_by_suite_max_time"] = True'
run_kt report "$T/short.json" --reanalyze --format json --output "$T/short2.json"
json_check "$T/short2.json" 'any(" rounds (the suite'"'"'s max_time was reached)" in (x.get("reason") or "") for x in r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"].values())'
json_check "$T/short2.json" 'r["suites"][0]["benchmarks"][0]["commands"][0]["stopped_by_suite_max_time"] is True'

case_ "a saved tolerance outside the suite's range is refused naming the field (exit 2)"
for p in 0 1e-300 0.0001 1e9 1000.5 -5; do
	edit_c "$T/tol.json" "a['metrics']['allocs']['max_percent'] = $p"
	run_kt report "$T/tol.json" --reanalyze
	expect_rc 2
	expect_err "$T/tol.json: $CP.analysis.metrics.allocs.max_percent: "
	expect_err "expected a percentage from 0.001 to 1000"
done
# The range's ends are taken.
for p in 0.001 1000; do
	edit_c "$T/tol.json" "a['metrics']['allocs']['max_percent'] = $p"
	run_kt report "$T/tol.json" --reanalyze --format json --output "$T/tol2.json"
	[ "$RC" -le 1 ] || fail "max_percent $p: exit $RC: $(tail -3 "$T/err")"
done
run_kt report "$T/c.json" --reanalyze --max-percent allocs=0.0001
expect_rc 3
expect_err "--max-percent 'allocs=0.0001': percentage '0.0001' is out of range [0.001, 1000]"

case_ "a sample no measurement writes (negative; fractional where values are whole) is refused naming it (exit 2)"
edit_c "$T/neg.json" 'samples("base", "latency")[1]["value"] = -5'
run_kt report "$T/neg.json" --reanalyze
expect_rc 2
expect_err "$T/neg.json: $CP.base.metrics.latency.samples[1].value: latency sample -5 is negative"
edit_c "$T/frac.json" 'samples("head", "allocs")[0]["value"] = 2.5'
run_kt report "$T/frac.json" --reanalyze
expect_rc 2
expect_err "$T/frac.json: $CP.head.metrics.allocs.samples[0].value: allocs sample 2.5 is not a whole number: allocs is measured in whole counts"
run_kt merge "$T/frac.json"
expect_rc 2
# A ratio may be fractional; a whole number written as 3.0 is whole.
edit_c "$T/whole.json" 'samples("head", "allocs")[0]["value"] = float(samples("head", "allocs")[0]["value"])'
run_kt report "$T/whole.json" --reanalyze --format json --output "$T/whole2.json"
[ "$RC" -le 1 ] || fail "a whole value written as a float: exit $RC: $(tail -3 "$T/err")"
rm -f "$T/nocap.json" "$T/neg.json" "$T/frac.json" "$T/tol.json" # finish validates what is left in $T

case_ "a run report: budgets and summaries are analysed again, same suites, same exit code"
sed -i 's/<= 100000/<= 1000/' kagari.yaml
run_k run --format json --output "$T/run.json" --quiet --seed 5
expect_rc 1
run_k report "$T/run.json" --reanalyze --format json --output "$T/run2.json"
expect_rc 1
expect_err "over budget"
same_suites "$T/run.json" "$T/run2.json"

finish
