#!/bin/bash
# kagari run: what is measured and how it is reported; budgets.
. "$(dirname "$0")/lib.sh"

cat > kagari.yaml <<YAML
version: "1"
name: e2e
defaults:
  warmup: 1
  runs: 4
  metrics: {cpu: true, memory: true}
benchmarks:
  - name: basic
    tags: [fast]
    commands:
      sleep:
        command: ["$H", "sleep", "20"]
      alloc:
        command: ["$H", "alloc", "64"]
YAML

case_ "run measures every command and writes the contract's JSON"
run_k run --quiet --format json --output r.json --seed 42; expect_rc 0
[ -s r.json ] || fail "no report written"
json_check r.json 'r["schema_version"] == "1" and r["tool"] == "kagari" and r["seed"] == 42'
json_check r.json 'r["summary"]["commands"] == 2 and r["summary"]["pass"] == 2 and r["summary"]["exit_code"] == 0'
json_check r.json 'all(k in r["environment"] for k in ["os","kernel","arch","cpu_model","logical_cpus","ci"])'
# The hypervisor's steal over the run: a percentage where /proc/stat has
# the column (Linux), null elsewhere; the Markdown report shows it.
json_check r.json '(lambda s: s is None or 0 <= s <= 100)(r["environment"]["steal_percent"])'
if grep -q '^cpu  *[0-9]* [0-9]* [0-9]* [0-9]* [0-9]* [0-9]* [0-9]* [0-9]' /proc/stat 2>/dev/null; then
	json_check r.json 'isinstance(r["environment"]["steal_percent"], (int, float))'
	run_k report r.json --format markdown
	expect_out "| hypervisor steal | "
fi
json_check r.json 'r["suites"][0]["benchmarks"][0]["rounds"] == 4'
# sleep 20 ms: at least 20 ms of wall time, integer nanoseconds
json_check r.json '(lambda m: m["unit"] == "ns" and isinstance(m["stats"]["median"], int) and m["stats"]["min"] >= 20000000)(r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]["latency"])'
json_check r.json 'len(r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]["latency"]["samples"]) == 4'
json_check r.json 'sorted(s["round"] for s in r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]["latency"]["samples"]) == [1,2,3,4]'
json_check r.json '"base" not in r["suites"][0]["benchmarks"][0]["commands"][0] or r["suites"][0]["benchmarks"][0]["commands"][0]["base"] is None'
# peak RSS: the 64 MiB allocation shows, the sleeper stays small
json_check r.json 'r["suites"][0]["benchmarks"][0]["commands"][1]["head"]["metrics"]["peak_rss"]["stats"]["min"] >= 64*1024*1024'
json_check r.json 'r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]["peak_rss"]["stats"]["max"] < 32*1024*1024'
json_check r.json 'all(m in r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"] for m in ["cpu_user","cpu_system","cpu_total","cpu_utilization"])'

case_ "the same seed gives the same run order, another seed another one"
run_k run --quiet --format json --output r2.json --seed 42; expect_rc 0
json_check r2.json 'r["seed"] == 42'
# Each command logs its name when it runs: the log is the order. 2 rounds
# of 8 units each: two seeds agree by chance with odds of 1 in 2520^2.
cat > order.yaml <<YAML
version: "1"
name: order
defaults: {warmup: 0, runs: 4}
benchmarks:
  - name: b
    commands:
      a: {command: [sh, -c, "echo a >> $T/order.log"]}
      b: {command: [sh, -c, "echo b >> $T/order.log"]}
      c: {command: [sh, -c, "echo c >> $T/order.log"]}
      d: {command: [sh, -c, "echo d >> $T/order.log"]}
YAML
for seed in 7 7 8; do
	rm -f order.log
	run_k run --quiet order.yaml --seed $seed; expect_rc 0
	mv order.log "order.$seed.$(ls order.$seed.* 2>/dev/null | wc -l)"
done
[ "$(wc -l <order.7.0)" -eq 16 ] || fail "expected 16 runs in the order log: $(cat order.7.0)"
cmp -s order.7.0 order.7.1 || fail "seed 7 gave two run orders: $(paste -sd' ' order.7.0) / $(paste -sd' ' order.7.1)"
cmp -s order.7.0 order.8.0 && fail "seeds 7 and 8 gave the same run order: $(paste -sd' ' order.7.0)"

case_ "table is the default and shows commands and the seed"
run_k run --quiet --runs 2 --no-color; expect_rc 0
expect_out "sleep"; expect_out "alloc"; expect_out "seed"
grep -q $'\033\[' "$T/out" && fail "colour escapes with --no-color"

case_ "csv and samples-csv"
run_k run --quiet --runs 2 --format samples-csv --output s.csv; expect_rc 0
head -1 s.csv | grep -qx 'suite,benchmark,command,side,round,run,metric,unit,value,layout_pad' || fail "samples-csv header: $(head -1 s.csv)"
[ "$(grep -c ',sleep,head,.*,latency,' s.csv)" -eq 2 ] || fail "samples-csv: expected 2 latency samples for sleep"
run_k run --quiet --runs 2 --format csv --output c.csv; expect_rc 0
head -1 c.csv | grep -q '^suite,benchmark,command,side,metric' || fail "csv header: $(head -1 c.csv)"
grep -q '^e2e,basic,sleep,head,latency,' c.csv || fail "csv: no latency row for sleep: $(head -c 600 c.csv)"
grep -q '^e2e,basic,alloc,head,peak_rss,' c.csv || fail "csv: no peak_rss row for alloc: $(head -c 600 c.csv)"

case_ "--filter selecting nothing is a usage error and overwrites no report"
cp r.json keep.json
run_k run --quiet --filter nomatch --format json --output r.json; expect_rc 3
expect_err "no benchmark matches"
cmp -s r.json keep.json || fail "an earlier report was modified"

case_ "budgets: exceeded is exit 1 naming the budget, value and limit"
cat > budget.yaml <<YAML
version: "1"
name: budgets
defaults: {warmup: 0, runs: 3, metrics: {memory: true}}
benchmarks:
  - name: b
    commands:
      slow:
        command: ["$H", "sleep", "30"]
        budget:
          latency: {max: "<= 5ms"}
          peak_rss: {max: "<= 1GiB"}
YAML
run_k run --quiet budget.yaml --format json --output b.json; expect_rc 1
expect_err "latency"; expect_err "<= 5ms"
json_check b.json '[x["status"] for x in r["suites"][0]["benchmarks"][0]["commands"][0]["budgets"]] == ["fail","pass"]'
json_check b.json 'r["suites"][0]["benchmarks"][0]["commands"][0]["budgets"][0]["actual"] >= 30000000 and r["suites"][0]["benchmarks"][0]["commands"][0]["budgets"][0]["limit"] == 5000000'
json_check b.json 'r["summary"]["over_budget"] == 1 and r["summary"]["exit_code"] == 1'

case_ "budgets: a budget on a metric the suite does not measure is a load error"
cat > unassessable.yaml <<YAML
version: "1"
name: unassessable
defaults: {warmup: 0, runs: 2, metrics: {cpu: false}}
benchmarks:
  - name: b
    commands:
      c:
        command: ["$H", "sleep", "1"]
        budget: {cpu_total: {max: "<= 10s"}}
YAML
run_k run --quiet unassessable.yaml; expect_rc 2
expect_err "unassessable.yaml:9:18: benchmarks[0].commands.c.budget.cpu_total: a budget on cpu_total needs the benchmark to measure cpu"

case_ "budgets: a percentile passes when within the limit"
cat > ok.yaml <<YAML
version: "1"
name: ok
defaults: {warmup: 0, runs: 5, metrics: {cpu: true}}
benchmarks:
  - name: b
    commands:
      c:
        command: ["$H", "sleep", "1"]
        budget: {latency: {p95: "< 10s", median: "<= 10s"}, cpu_utilization: {max: "<= 100%"}}
YAML
run_k run --quiet ok.yaml --format json --output ok.json; expect_rc 0
# Each budget passes with the measured value of its own statistic (a run
# that ignored budgets would exit 0 too).
json_check ok.json '[(x["metric"], x["aggregation"], x["limit_text"], x["status"]) for x in r["suites"][0]["benchmarks"][0]["commands"][0]["budgets"]] == [("latency", "p95", "< 10s", "pass"), ("latency", "median", "<= 10s", "pass"), ("cpu_utilization", "max", "<= 100%", "pass")]'
json_check ok.json '(lambda c: [x["actual"] for x in c["budgets"]] == [c["head"]["metrics"]["latency"]["stats"]["p95"], c["head"]["metrics"]["latency"]["stats"]["median"], c["head"]["metrics"]["cpu_utilization"]["stats"]["max"]])(r["suites"][0]["benchmarks"][0]["commands"][0])'
json_check ok.json 'r["suites"][0]["benchmarks"][0]["commands"][0]["budgets"][0]["actual"] >= 1000000 and r["suites"][0]["benchmarks"][0]["commands"][0]["budgets"][0]["limit"] == 10000000000'
json_check ok.json 'r["suites"][0]["benchmarks"][0]["commands"][0]["result"] == "pass" and r["summary"]["over_budget"] == 0 and r["summary"]["pass"] == 1'
run_k run --quiet --no-color ok.yaml; expect_rc 0
expect_out "budget latency p95 < 10s: pass (actual "
expect_out "budget latency median <= 10s: pass (actual "
expect_out "budget cpu_utilization max <= 100%: pass (actual "

case_ "adaptive runs stay between min_runs and max_runs"
cat > adaptive.yaml <<YAML
version: "1"
name: adaptive
defaults: {warmup: 0, min_runs: 3, max_runs: 6, min_time: 1ms}
benchmarks:
  - name: b
    commands:
      c: {command: ["$H", "sleep", "2"]}
YAML
run_k run --quiet adaptive.yaml --format json --output a.json; expect_rc 0
json_check a.json '3 <= r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["count"] <= 6'
sed -i 's/min_time: 1ms/min_time: 1h/' adaptive.yaml
run_k run --quiet adaptive.yaml --format json --output a.json; expect_rc 0
json_check a.json 'r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["count"] == 6'

case_ "report.outputs are written beside the suite"
cat > outputs.yaml <<YAML
version: "1"
name: outputs
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: b
    commands:
      c: {command: ["$H", "sleep", "1"]}
report:
  outputs:
    - {format: json, path: reports/report.json}
    - {format: samples-csv, path: reports/samples.csv}
YAML
mkdir -p reports
run_k run --quiet outputs.yaml; expect_rc 0
[ -s reports/report.json ] && [ -s reports/samples.csv ] || fail "report.outputs missing"
[ -s reports/report.json ] && json_check reports/report.json 'r["suites"][0]["name"] == "outputs" and r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["count"] == 2'
[ "$(grep -c '^outputs,b,c,head,[0-9]*,[0-9]*,latency,ns,' reports/samples.csv)" -eq 2 ] || fail "samples.csv: expected 2 latency samples: $(head -c 600 reports/samples.csv)"
ls reports | grep -q kagari-tmp && fail "temporary files left in out/"

case_ "--summary appends Markdown and keeps what the file held"
printf '# Earlier step\nkept line' > summary.md
run_k run --quiet ok.yaml --summary summary.md; expect_rc 0
head -1 summary.md | grep -qx '# Earlier step' || fail "summary lost its earlier content"
grep -qx 'kept line' summary.md || fail "summary: the earlier last line was changed"
grep -q 'kagari:begin' summary.md || fail "summary has no kagari section"

case_ "--section rewrites only its own part of a Markdown page"
printf 'intro\r\n<!-- kagari:begin other -->\nother text\n<!-- kagari:end other -->\noutro\n' > page.md
cp page.md page.orig
run_k run --quiet ok.yaml --format markdown --output page.md --section perf; expect_rc 0
grep -q 'kagari:begin perf' page.md || fail "section perf missing"
head -c 6 page.md | cmp -s - <(printf 'intro\r') || fail "text before the sections changed"
grep -q '^other text$' page.md || fail "another section was changed"
run_k run --quiet ok.yaml --format markdown --output page.md --section perf; expect_rc 0
[ "$(grep -c 'kagari:begin perf' page.md)" -eq 1 ] || fail "the section was added twice"
cp page.md page.keep
run_k run --quiet ok.yaml --format json --output x.json --section perf; expect_rc 3
expect_err "a section ('perf') needs format markdown and an output file"
[ -e x.json ] && fail "a report was written despite the usage error"
run_k run --quiet ok.yaml --format markdown --output page.md --section 'bad name'; expect_rc 3
expect_err "invalid section name 'bad name'"
cmp -s page.md page.keep || fail "the page changed despite the usage error"

case_ "baseline: ratios relative to a named command"
cat > baseline.yaml <<YAML
version: "1"
name: baseline
defaults: {warmup: 0, runs: 3}
benchmarks:
  - name: b
    baseline: fast
    commands:
      fast: {command: ["$H", "sleep", "5"]}
      slow: {command: ["$H", "sleep", "50"]}
YAML
run_k run --quiet --no-color baseline.yaml; expect_rc 0
expect_out "relative to fast (median latency): fast 1.00x, slow"
run_k run --quiet baseline.yaml --format json --output bl.json; expect_rc 0
json_check bl.json 'r["suites"][0]["benchmarks"][0]["baseline"] == "fast"'

finish
