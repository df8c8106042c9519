#!/bin/bash
# A program that floods a discarded stderr: kagari keeps only the tail that
# failure messages show (the last 2 KiB), in bounded memory; the stderr the
# program writes to is not a file that grows with what it writes.
. "$(dirname "$0")/lib.sh"

# wait_for FILE: wait up to 60 s for FILE to exist.
wait_for() {
	local i
	for ((i = 0; i < 1200; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	fail "timed out waiting for $1"
	return 1
}

# 200 MB to stderr, then (once the test has looked at where it went) a
# last line and a failing exit.
cat > kagari.yaml <<YAML
version: "1"
name: chatty
defaults: {warmup: 0, runs: 1}
benchmarks:
  - name: flood
    commands:
      loud: {command: [sh, -c, "echo \$\$ > $T/pid; yes 0123456789abcdef | head -c 200000000 >&2; touch $T/written; while [ ! -e $T/go ]; do sleep 0.05; done; echo LAST-LINE-OF-STDERR >&2; exit 3"]}
YAML

case_ "200 MB to a discarded stderr: the sink stays small, the tail is reported"
"$KAGARI" run --quiet --format json --output r.json >"$T/out" 2>"$T/err" &
pid=$!
wait_for written
cmd=$(cat pid)
# What the program's fd 2 holds: a pipe (0 blocks) or a file; never the
# whole flood (200 MB).
blocks=$(stat -L -c %b "/proc/$cmd/fd/2" 2>/dev/null || echo 0)
size=$(stat -L -c %s "/proc/$cmd/fd/2" 2>/dev/null || echo 0)
[ "$blocks" -lt 32768 ] || fail "stderr sink holds $((blocks / 2)) KiB allocated"
[ "$size" -lt 16777216 ] || fail "stderr sink is $size bytes long"
touch go
wait "$pid"; RC=$?
expect_rc 4
expect_err "LAST-LINE-OF-STDERR"
expect_err "0123456789abcdef"
if [ -s r.json ]; then
	json_check r.json 'r["suites"][0]["benchmarks"][0]["commands"][0]["stderr_tail"].endswith("LAST-LINE-OF-STDERR\n")'
	json_check r.json '0 < len(r["suites"][0]["benchmarks"][0]["commands"][0]["stderr_tail"]) <= 2048'
else
	fail "no report"
fi

case_ "a short stderr comes whole, and never leaks into the next run"
cat > short.yaml <<YAML
version: "1"
name: short
defaults: {warmup: 0, runs: 3}
benchmarks:
  - name: a
    commands:
      noisy: {command: [sh, -c, "echo only-line >&2"]}
  - name: b
    commands:
      fails: {command: [sh, -c, "echo second-bench >&2; exit 5"]}
YAML
run_k run --quiet --format json --output r2.json short.yaml
expect_rc 4
expect_err "second-bench"
grep -q "only-line" "$T/err" && fail "the tail of an earlier run leaked into a later failure"
json_check r2.json 'r["suites"][0]["benchmarks"][1]["commands"][0]["stderr_tail"] == "second-bench\n"'

finish
