#!/bin/bash
# Hardware counters for real, through perf_event_open: instructions, cycles
# and ipc of a program that does a known amount of work. Needs a PMU, which
# virtual machines often lack: then the whole test is skipped (exit 77) with
# kagari doctor's advice as the reason. The software stand-in path, which
# runs everywhere, is t_counters.sh.
. "$(dirname "$0")/lib.sh"

"$KAGARI" doctor --format json > "$T/doctor.json"
PMU=$("$PY" -c "
import json,sys
d=json.load(open(sys.argv[1]))
print(int(any(c['item']=='event instructions' and c['status']=='ok' for c in d['checks'])))" "$T/doctor.json")
if [ "$PMU" != 1 ]; then
	skip_test "no PMU here: $("$PY" -c "
import json,sys
d=json.load(open(sys.argv[1]))
print([c['advice'] for c in d['checks'] if c['item']=='event instructions'][0])" "$T/doctor.json")"
fi

cat > s.yaml <<YAML
version: "1"
name: ctr
defaults:
  runs: 6
  warmup: 1
  metrics:
    counters: [instructions, cycles, ipc]
    instrument: perf
benchmarks:
  - name: w
    commands:
      small: {command: ["$H", "work", "200000"]}
      large: {command: ["$H", "work", "2000000"]}
YAML

case_ "instructions, cycles and ipc are counted, and grow with the work"
run_k run s.yaml --format json --output r.json --quiet
expect_rc 0
json_check r.json "r['environment']['counters_source'] == 'perf'"
json_check r.json "all(c['head']['metrics'][m]['status'] == 'ok' for c in r['suites'][0]['benchmarks'][0]['commands'] for m in ('instructions','cycles','ipc'))"
json_check r.json "r['suites'][0]['benchmarks'][0]['commands'][0]['head']['metrics']['instructions']['stats']['median'] > 200000"
json_check r.json "r['suites'][0]['benchmarks'][0]['commands'][1]['head']['metrics']['instructions']['stats']['median'] > 5 * r['suites'][0]['benchmarks'][0]['commands'][0]['head']['metrics']['instructions']['stats']['median']"
json_check r.json "r['suites'][0]['benchmarks'][0]['commands'][0]['head']['metrics']['ipc']['stats']['median'] > 0"

finish
