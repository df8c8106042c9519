#!/bin/bash
# kagari doctor: runs anywhere, exits 0, and reports every item it promises
# (counters, valgrind, shim, CPU, governor, turbo, ASLR, load, terminal),
# each line `ok|warn|info  item: value [— advice]`; --format json too.
. "$(dirname "$0")/lib.sh"

case_ "doctor: exit 0 and every item"
run_k doctor
expect_rc 0
for item in "perf_event_paranoid:" "event cycles:" "event instructions:" \
	"event branch-misses:" "event cache-misses:" "event task-clock:" \
	"event page-faults:" "PMU:" "counters source (instrument: auto):" \
	"valgrind:" "allocation shim:" "CPU model:" "CPUs:" \
	"sampling (--profile):" "frequency governor:" "turbo:" "ASLR:" "load average:" "stdout:"; do
	expect_out "$item"
done
if grep -vqE '^(ok|warn|info) +[^:]+: ' "$T/out"; then
	fail "a line does not read 'ok|warn|info  item: value': $(grep -vE '^(ok|warn|info) +[^:]+: ' "$T/out" | head -3)"
fi
# On a shared machine the metric that decides is CPU time, not wall time:
# doctor says so, and that only a time metric stands in for latency.
expect_out "time metrics: latency is wall time, cpu_total CPU time"
expect_out "gate cpu_total beside it"
expect_out "never peak_rss"
# Not a terminal here (stdout is a file).
expect_out "stdout: not a terminal"
# Software events open wherever perf_event_open is allowed.
if [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)" = 2 ]; then
	expect_out "event task-clock: opens"
	# cpu-clock sampling works for one's own processes at paranoid 2
	grep -qE "^(ok) +sampling \(--profile\): works, event (cpu-clock|cycles)" "$T/out" ||
		fail "sampling does not work at perf_event_paranoid 2: $(grep sampling "$T/out")"
fi

case_ "doctor --format json"
run_k doctor --format json
expect_rc 0
json_check "$T/out" "all(set(c) == {'status', 'item', 'value', 'advice'} and c['status'] in ('ok', 'warn', 'info') for c in r['checks'])"
json_check "$T/out" "len(r['checks']) >= 18"

case_ "doctor: usage errors"
run_k doctor extra
expect_rc 3
run_k doctor --format xml
expect_rc 3
run_k help doctor
expect_rc 0
expect_out "--format"

finish
