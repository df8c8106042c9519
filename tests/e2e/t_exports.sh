#!/bin/bash
# Exports other tools read (issue 15): --format hyperfine-json (hyperfine's
# --export-json schema, src/benchmark/benchmark_result.rs), bmf (Bencher
# Metric Format: its JSON schema https://bencher.dev/bmf.json) and junit
# (JUnit XML as GitLab and Jenkins read it), from run, compare and report.
# Each output is parsed with Python's json / xml.etree and checked field by
# field and type by type against its format's definition.
. "$(dirname "$0")/lib.sh"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
g() { git -c user.name=t -c user.email=t@t -c core.hooksPath=/dev/null -c init.defaultBranch=main "$@"; }

cat > s.yaml <<YAML
version: "1"
name: ex
defaults:
  warmup: 0
  runs: 5
  metrics: {cpu: true, memory: true}
benchmarks:
  - name: b
    commands:
      fast: {command: ["$H", "sleep", "1"]}
      slow:
        command: ["$H", "sleep", "30"]
        budget: {latency: {max: "<= 1us"}}
YAML

# check_hyperfine FILE N_RESULTS [SIDES]: hyperfine's schema, field by field.
check_hyperfine() {
	"$PY" - "$@" <<'PYEOF' || fail "hyperfine-json check failed for $1"
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
assert list(d) == ["results"], list(d)
res = d["results"]
assert len(res) == n, len(res)
num = (int, float)
for x in res:
    for k in ("command", "mean", "stddev", "median", "user", "system", "min", "max", "times", "exit_codes"):
        assert k in x, k
    assert isinstance(x["command"], str) and "/" in x["command"]
    for k in ("mean", "stddev", "median", "user", "system", "min", "max"):
        assert isinstance(x[k], num) and not isinstance(x[k], bool), (k, x[k])
    t = x["times"]
    assert len(t) >= 2 and all(isinstance(v, num) for v in t)
    # seconds, as hyperfine writes them: a 1-5 ms sleep is 0.001-0.5 s
    assert 0.0005 < x["min"] <= x["median"] <= x["max"] < 30, x
    assert abs(sum(t) / len(t) - x["mean"]) < 1e-9 and min(t) == x["min"] and max(t) == x["max"]
    assert x["exit_codes"] == [0] * len(t)
    assert all(isinstance(v, int) and v > 0 for v in x["memory_usage_byte"]) and len(x["memory_usage_byte"]) == len(t)
    assert 0 <= x["user"] < 30 and 0 <= x["system"] < 30
if len(sys.argv) > 3:
    assert sorted(x["parameters"]["side"] for x in res) == sorted(sys.argv[3].split(",")), [x.get("parameters") for x in res]
else:
    assert all("parameters" not in x for x in res)
by = {x["command"]: x for x in res}
if "b/fast" in by and "b/slow" in by:
    assert by["b/slow"]["median"] > by["b/fast"]["median"]
PYEOF
}

# check_bmf FILE NAMES: Bencher's JSON schema (an object of objects of
# {value, lower_value?, upper_value?} numbers, value required).
check_bmf() {
	"$PY" - "$@" <<'PYEOF' || fail "bmf check failed for $1"
import json, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d, dict) and sorted(d) == sorted(sys.argv[2].split(",")), list(d)
num = (int, float)
for bench, measures in d.items():
    assert isinstance(measures, dict) and measures
    for slug, m in measures.items():
        assert slug == slug.lower() and "_" not in slug, slug
        assert set(m) <= {"value", "lower_value", "upper_value"} and "value" in m, m
        assert all(isinstance(v, num) and not isinstance(v, bool) for v in m.values()), m
        assert m.get("lower_value", m["value"]) <= m["value"] <= m.get("upper_value", m["value"]), m
    # latency is Bencher's built-in measure, in nanoseconds
    assert 5e5 < measures["latency"]["value"] < 5e8, measures["latency"]
    assert "cpu-total" in measures and "peak-rss" in measures
PYEOF
}

# check_junit FILE PYTHON-EXPR: the JUnit XML validates against the
# junit-10 schema (Jenkins' xunit plugin, tests/data/junit-10.xsd); counts
# add up; every failure and error has its details as text; the time of
# <testsuites> is the run's elapsed time (at least the measured time of
# every test case); EXPR over `cases` (name -> testcase element) holds.
check_junit() {
	if command -v xmllint >/dev/null 2>&1; then
		xmllint --noout --schema "$KAGARI_SOURCE_DIR/tests/data/junit-10.xsd" "$1" 2>"$T/xmllint.err" ||
			fail "$1 is not valid junit-10: $(cat "$T/xmllint.err")"
	else
		skip_part "xmllint is not installed (Debian package libxml2-utils; scripts/deps.sh check installs it)" libxml2-utils
	fi
	"$PY" - "$@" <<'PYEOF' || fail "junit check failed for $1: $2"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
assert "skipped" not in root.attrib, root.attrib
assert float(root.get("time")) + 0.01 >= sum(float(tc.get("time")) for tc in root.iter("testcase")), root.get("time")
for k in ("failure", "error"):
    for e in root.iter(k):
        assert e.text and e.text.strip() and e.get("message"), (k, e.attrib, e.text)
cases = {}
tot = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
for ts in root.findall("testsuite"):
    n = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for tc in ts.findall("testcase"):
        assert tc.get("classname") and tc.get("name") and float(tc.get("time")) >= 0
        kids = [k.tag for k in tc if k.tag != "system-out"]
        assert len(kids) <= 1 and set(kids) <= {"failure", "error", "skipped"}, kids
        n["tests"] += 1
        for k, key in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
            n[key] += k in kids
        cases[tc.get("name")] = tc
    for k in n:
        assert int(ts.get(k)) == n[k], (k, ts.get(k), n[k])
        tot[k] += n[k]
for k in ("tests", "failures", "errors"):
    assert int(root.get(k)) == tot[k], (k, root.get(k), tot[k])
fail = lambda name: cases[name].find("failure")
ok = eval(sys.argv[2])
if not ok:
    sys.stderr.write("cases: %s\n" % {k: [c.tag for c in v] for k, v in cases.items()})
    sys.exit(1)
PYEOF
}

case_ "run --format hyperfine-json: hyperfine's export schema, in seconds"
run_k run s.yaml --quiet --format hyperfine-json --output "$T/h.json"
expect_rc 1
check_hyperfine "$T/h.json" 2

case_ "run --format bmf: Bencher Metric Format"
run_k run s.yaml --quiet --format bmf
expect_rc 1
cp "$T/out" "$T/b.json"
check_bmf "$T/b.json" "b/fast,b/slow"

case_ "run --format junit: a testcase per command and budget, a failure per exceeded budget"
run_k run s.yaml --quiet --format junit --output "$T/j.xml"
expect_rc 1
check_junit "$T/j.xml" 'set(cases) == {"fast", "slow", "slow budget latency max <= 1us"} and fail("slow budget latency max <= 1us").get("type") == "over_budget" and fail("fast") is None and fail("slow") is None and cases["fast"].get("classname") == "ex.b"'

case_ "report re-renders a saved run in the three formats"
run_k run s.yaml --quiet --format json --output "$T/saved.json"
for f in hyperfine-json bmf junit; do
	run_k report "$T/saved.json" --format "$f" --output "$T/re.$f"
	expect_rc 1 # report exits as the saved run did
done
check_hyperfine "$T/re.hyperfine-json" 2
check_bmf "$T/re.bmf" "b/fast,b/slow"
check_junit "$T/re.junit" 'fail("slow budget latency max <= 1us") is not None'

case_ "hyperfine-json without metrics.cpu: user and system are numbers, exit codes the real ones"
cat > nocpu.yaml <<YAML
version: "1"
name: nocpu
defaults: {warmup: 0, runs: 3}
benchmarks:
  - name: b
    commands:
      three: {command: ["$H", "burn", "2", "exit", "3"], exit_codes: [3]}
YAML
run_k run nocpu.yaml --quiet --format json --output "$T/nocpu.json"
expect_rc 0
run_k report "$T/nocpu.json" --format hyperfine-json --output "$T/nocpu.hf.json"
expect_rc 0
"$PY" - "$T/nocpu.hf.json" "$T/nocpu.json" <<'PYEOF' || fail "hyperfine-json without metrics.cpu: $(cat "$T/nocpu.hf.json")"
import json, sys
x = json.load(open(sys.argv[1]))["results"][0]
for k in ("user", "system"):
    assert isinstance(x[k], float) and x[k] >= 0, (k, x[k])
assert x["user"] + x["system"] > 0, x
assert x["exit_codes"] == [3, 3, 3], x["exit_codes"]
r = json.load(open(sys.argv[2]))
c = r["suites"][0]["benchmarks"][0]["commands"][0]
assert "cpu_user" not in c["head"]["metrics"] and c["head"]["runs"]["exit_code"] == [3, 3, 3]
PYEOF

case_ "a command that fails is a junit <error> with its message"
cat > bad.yaml <<YAML
version: "1"
name: bad
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: b
    commands:
      boom: {command: ["$H", "exit", "3"]}
YAML
run_k run bad.yaml --quiet --format junit
expect_rc 4
cp "$T/out" "$T/bad.xml"
check_junit "$T/bad.xml" 'cases["boom"].find("error") is not None and "3" in cases["boom"].find("error").get("message")'
run_k run bad.yaml --quiet --format hyperfine-json
cp "$T/out" "$T/bad.json"
"$PY" -c 'import json,sys; assert json.load(open(sys.argv[1])) == {"results": []}' "$T/bad.json" ||
	fail "a failed command is in the hyperfine export: $(cat "$T/bad.json")"

case_ "compare: hyperfine-json has both sides, bmf the head, junit a failure per regression"
R="$T/repo"
mkdir -p "$R" && cd "$R" || exit 1
g init -q .
echo "exec '$H' sleep 2" > work.sh
cat > kagari.yaml <<'YAML'
version: "1"
name: cmp
defaults:
  warmup: 1
  runs: 30
  metrics: {cpu: true, memory: true}
  regression:
    latency: {max_percent: 10}
benchmarks:
  - name: w
    commands:
      work:
        command: [sh, work.sh]
        budget: {latency: {max: "<= 1us"}}
YAML
g add -A && g commit -qm base
echo "exec '$H' sleep 20" > work.sh
run_k compare --against main --quiet --format json --output "$T/c.json"
expect_rc 1
for f in hyperfine-json bmf junit; do
	run_k report "$T/c.json" --format "$f" --output "$T/c.$f"
	expect_rc 1
done
check_hyperfine "$T/c.hyperfine-json" 2 base,head
check_bmf "$T/c.bmf" "w/work"
"$PY" - "$T/c.bmf" "$T/c.json" <<'PYEOF' || fail "bmf of a compare is not the head's values"
import json, sys
import statistics
b = json.load(open(sys.argv[1]))["w/work"]["latency"]
v = [s["value"] for s in json.load(open(sys.argv[2]))["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]["latency"]["samples"]]
# Bencher's hyperfine adapter: the mean, bounds one standard deviation apart
assert abs(b["value"] - statistics.mean(v)) < 1e-6 * b["value"], (b, statistics.mean(v))
sd = statistics.stdev(v)
assert abs(b["upper_value"] - b["value"] - sd) < 1e-6 * b["value"] + 1, (b, sd)
PYEOF
check_junit "$T/c.junit" 'fail("work budget latency max <= 1us").get("type") == "over_budget" and fail("work") is None and "work latency" in cases'
# the latency test case fails exactly when the comparison is a regression
# (it should be, 10x slower; a busy machine can leave it inconclusive)
V=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["latency"]["verdict"])' "$T/c.json")
if [ "$V" = regression ]; then
	check_junit "$T/c.junit" 'fail("work latency").get("type") == "regression" and "regression" in fail("work latency").get("message")'
else
	check_junit "$T/c.junit" 'fail("work latency") is None'
fi
run_k compare --against main --quiet --format junit --output "$T/cc.junit"
expect_rc 1
check_junit "$T/cc.junit" 'fail("work budget latency max <= 1us") is not None'
cd "$T" || exit 1

case_ "bmf: a name longer than Bencher's 1,024 characters is cut with a hash suffix"
LONG=$(printf 'x%.0s' $(seq 1100))
run_k bench -n "${LONG}a" -n "${LONG}b" "$H sleep 1" "$H sleep 1" --runs 2 --quiet --format bmf
expect_rc 0
"$PY" - "$T/out" <<'PYEOF' || fail "long BMF names: $(head -c 300 "$T/out")"
import json, re, sys
d = json.load(open(sys.argv[1]))
assert len(d) == 2, list(d)
for k in d:
    assert len(k) <= 1024 and re.search("#[0-9a-f]{16}$", k), (len(k), k[-30:])
    assert set(d[k]) == {"latency"}, d[k]
PYEOF

case_ "bmf: a name bench was given twice stays apart"
run_k bench -N -L n 1,2 "$H sleep 1" --runs 2 --quiet --format bmf
expect_rc 0
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert sorted(d) == [sys.argv[2], sys.argv[2] + " #2"], list(d)' "$T/out" "$H sleep 1" ||
	fail "duplicate BMF names: $(head -c 300 "$T/out")"

case_ "--help and the suite's report.outputs know the formats"
run_k help run
for f in hyperfine-json bmf junit; do expect_out "$f"; done
run_k help report
for f in hyperfine-json bmf junit; do expect_out "$f"; done
sed 's/^benchmarks:/report:\n  outputs: [{format: junit, path: out.junit}, {format: bmf, path: out.bmf}, {format: hyperfine-json, path: out.hyperfine-json}, {format: json, path: out.json}]\nbenchmarks:/' s.yaml > o.yaml
run_k run o.yaml --quiet --filter b
expect_rc 1
check_junit out.junit 'len(cases) == 3'
check_bmf out.bmf "b/fast,b/slow"
check_hyperfine out.hyperfine-json 2
# the same run re-rendered from its JSON report: byte for byte the same
for f in hyperfine-json bmf junit; do
	run_k report out.json --format "$f" --output "re2.$f"
	cmp -s "out.$f" "re2.$f" || fail "report --format $f of the saved run differs from what run wrote"
done
finish
