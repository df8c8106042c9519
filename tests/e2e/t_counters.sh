#!/bin/bash
# Counter metrics through perf_event_open. On this kind of machine (often a
# VM without a PMU) the hardware events do not open: `instrument: perf`
# then reports each counter `unsupported` with the reason (exit 6 when
# required, 0 with `counters: true` or `unsupported: skip`), and `auto`
# falls back to valgrind. The perf path itself is exercised for real with
# KAGARI_TEST_COUNTERS_SOFTWARE=1, which stands software events in for the
# hardware ones: per-run samples in the timed runs, ipc derived,
# environment.counters_source "perf". The hardware-only case is
# t_counters_hw.sh, skipped as a whole where there is no PMU.
. "$(dirname "$0")/lib.sh"

suite() { # suite FILE COUNTERS INSTRUMENT [EXTRA-METRICS-LINE]
	cat > "$1" <<YAML
version: "1"
name: ctr
defaults:
  runs: 6
  warmup: 1
  metrics:
    counters: $2
    instrument: $3
${4:-}
benchmarks:
  - name: w
    commands:
      h:
        command: ["$H", "work", "200000"]
YAML
}

# Does this machine have hardware counters? (doctor says so.)
"$KAGARI" doctor --format json > "$T/doctor.json"
PMU=$("$PY" -c "
import json,sys
d=json.load(open(sys.argv[1]))
print(int(any(c['item']=='event instructions' and c['status']=='ok' for c in d['checks'])))" "$T/doctor.json")

case_ "instrument perf, counters true: unsupported explained, exit 0"
suite s1.yaml true perf
run_k run s1.yaml --format json --output r1.json --quiet
if [ "$PMU" = 1 ]; then
	expect_rc 0
	json_check r1.json "r['environment']['counters_source'] == 'perf'"
	json_check r1.json "r['suites'][0]['benchmarks'][0]['commands'][0]['head']['metrics']['instructions']['status'] == 'ok'"
else
	expect_rc 0
	json_check r1.json "all(r['suites'][0]['benchmarks'][0]['commands'][0]['head']['metrics'][m]['status'] == 'unsupported' for m in ('instructions','cycles','branch_misses','cache_misses','ipc'))"
	json_check r1.json "'PMU' in r['suites'][0]['benchmarks'][0]['commands'][0]['head']['metrics']['cycles']['reason']"
	json_check r1.json "r['environment'].get('counters_source') is None"
fi

case_ "instrument perf, a listed counter is required: exit 6 without a PMU"
suite s2.yaml "[instructions, cycles]" perf
run_k run s2.yaml --quiet
if [ "$PMU" = 1 ]; then
	expect_rc 0
else
	expect_rc 6
	expect_err "'instructions'"
	expect_err "PMU"
	suite s3.yaml "[instructions, cycles]" perf "    unsupported: skip"
	run_k run s3.yaml --quiet
	expect_rc 0
fi

case_ "instrument auto: perf when instructions open, else valgrind"
suite s4.yaml true auto
run_k run s4.yaml --format json --output r4.json --quiet
expect_rc 0
if [ "$PMU" = 1 ]; then
	json_check r4.json "r['environment']['counters_source'] == 'perf'"
elif command -v valgrind >/dev/null; then
	json_check r4.json "r['environment']['counters_source'] == 'valgrind'"
	json_check r4.json "r['suites'][0]['benchmarks'][0]['commands'][0]['head']['metrics']['instructions']['status'] == 'ok'"
	json_check r4.json "'valgrind gives instructions, estimated_cycles and cache_misses only' in r['suites'][0]['benchmarks'][0]['commands'][0]['head']['metrics']['cycles']['reason']"
else
	skip_part "valgrind is not installed (scripts/deps.sh check installs it)" valgrind
fi

case_ "the perf path with software stand-ins: one sample per measured run"
suite s5.yaml true perf
KAGARI_TEST_COUNTERS_SOFTWARE=1 run_k run s5.yaml --format json --output r5.json --quiet
expect_rc 0
json_check r5.json "r['environment']['counters_source'] == 'perf'"
for m in instructions cycles branch_misses cache_misses ipc; do
	json_check r5.json "r['suites'][0]['benchmarks'][0]['commands'][0]['head']['metrics']['$m']['status'] == 'ok'"
done
# 6 measured runs, the warm-up not counted; samples numbered like latency's.
json_check r5.json "[(s['round'], s['run']) for s in r['suites'][0]['benchmarks'][0]['commands'][0]['head']['metrics']['instructions']['samples']] == [(s['round'], s['run']) for s in r['suites'][0]['benchmarks'][0]['commands'][0]['head']['metrics']['latency']['samples']]"
json_check r5.json "len(r['suites'][0]['benchmarks'][0]['commands'][0]['head']['metrics']['cycles']['samples']) == 6"
json_check r5.json "all(s['value'] > 0 for s in r['suites'][0]['benchmarks'][0]['commands'][0]['head']['metrics']['instructions']['samples'])"
json_check r5.json "r['suites'][0]['benchmarks'][0]['commands'][0]['head']['metrics']['instructions']['unit'] == 'count'"
json_check r5.json "r['suites'][0]['benchmarks'][0]['commands'][0]['head']['metrics']['ipc']['unit'] == 'ratio'"
# Counts are integers even when scaled.
json_check r5.json "all(float(s['value']).is_integer() for s in r['suites'][0]['benchmarks'][0]['commands'][0]['head']['metrics']['cycles']['samples'])"

case_ "the perf path: a budget on a counter is assessed"
suite s6.yaml "[instructions]" perf
"$PY" - s6.yaml <<'PYEOF'
import sys
p = sys.argv[1]
s = open(p).read().replace('command: ["', 'budget: {instructions: {max: "<= 1"}}\n        command: ["')
open(p, "w").write(s)
PYEOF
KAGARI_TEST_COUNTERS_SOFTWARE=1 run_k run s6.yaml --quiet --format json --output r6.json
expect_rc 1
json_check r6.json "r['suites'][0]['benchmarks'][0]['commands'][0]['budgets'][0]['status'] == 'fail'"

case_ "ipc may be listed: derived from instructions and cycles"
suite s7.yaml "[ipc]" perf
KAGARI_TEST_COUNTERS_SOFTWARE=1 run_k run s7.yaml --quiet --format json --output r7.json
expect_rc 0
json_check r7.json "r['suites'][0]['benchmarks'][0]['commands'][0]['head']['metrics']['ipc']['status'] == 'ok'"
suite s8.yaml "[ipc]" valgrind
run_k run s8.yaml --quiet
expect_rc 6
expect_err "'ipc'"

finish
