#!/bin/bash
# SIGINT/SIGTERM: stop the running command's group, run cleanup, write what
# was measured marked `interrupted`, exit 4; nothing is left running.
. "$(dirname "$0")/lib.sh"

HP="$T/helper-int-$$"
cp "$H" "$HP"
cat > kagari.yaml <<YAML
version: "1"
name: interrupt
defaults: {warmup: 0, runs: 50, runs_per_round: 1}
benchmarks:
  - name: b
    cleanup: [{command: [sh, -c, "echo cleaned > $T/cleanup.log"]}]
    commands:
      slow: {command: ["$HP", "--pidfile", "$T/runs.pids", "spawn", "1", "sleep", "300"]}
YAML

for sig in INT TERM; do
	case_ "SIG$sig during a measured run"
	rm -f cleanup.log r.json runs.pids
	"$KAGARI" run --quiet --format json --output r.json >"$T/out" 2>"$T/err" &
	pid=$!
	# Each run appends its child's pid: a second line means the first
	# measured run is over and the second is under way.
	wait_until 30 has_lines runs.pids 2
	kill -s "$sig" "$pid"
	wait "$pid"; RC=$?
	expect_rc 4
	expect_err "interrupted"
	[ -f cleanup.log ] || fail "cleanup hook did not run"
	[ -s r.json ] || fail "no partial report"
	[ -s r.json ] && json_check r.json 'r["interrupted"] is True and r["summary"]["exit_code"] == 4'
	# The runs that ended are in the report; the one stopped is not (or,
	# had it just ended when the signal came, it is).
	started=$(wc -l <runs.pids)
	[ -s r.json ] && json_check r.json "$started - 1 <= r['suites'][0]['benchmarks'][0]['commands'][0]['head']['count'] <= $started and r['suites'][0]['benchmarks'][0]['commands'][0]['head']['count'] >= 1"
	no_process_left "$HP"
done

finish
