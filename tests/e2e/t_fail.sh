#!/bin/bash
# Failing commands: exit status, signals, missing programs, timeouts that
# must leave nothing running, and secrets masked in stderr tails.
. "$(dirname "$0")/lib.sh"

# A private copy of the helper, so that pgrep finds only this test's processes.
HP="$T/helper-$$"
cp "$H" "$HP"

suite() { # NAME COMMAND-YAML [EXTRA-COMMAND-KEYS]
	cat > "$1.yaml" <<YAML
version: "1"
name: $1
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: b
    commands:
      c:
        command: $2
${3:-}
YAML
}

case_ "a non-zero exit status is exit 4 with the status and stderr tail"
suite status "[\"$HP\", \"stderr\", \"something broke\", \"exit\", \"3\"]"
run_k run --quiet status.yaml --format json --output s.json; expect_rc 4
expect_err "exited with status 3"; expect_err "something broke"
json_check s.json 'r["summary"]["error"] == 1 and r["summary"]["exit_code"] == 4'
json_check s.json '"status 3" in r["suites"][0]["benchmarks"][0]["commands"][0]["error"]'

case_ "exit_codes accepts a declared status"
suite codes "[\"$HP\", \"exit\", \"3\"]" "        exit_codes: [0, 3]"
run_k run --quiet codes.yaml; expect_rc 0

case_ "death by a signal is named"
suite segv "[\"$HP\", \"signal\", \"SEGV\"]"
run_k run --quiet segv.yaml; expect_rc 4; expect_err "SIGSEGV"

case_ "a command that does not exist"
suite missing '["kagari-no-such-program-xyz"]'
run_k run --quiet missing.yaml; expect_rc 4; expect_err "command not found"; expect_err "kagari-no-such-program-xyz"

case_ "a command that is not executable"
printf '#!/bin/sh\n' > notexec.sh; chmod 644 notexec.sh
suite notexec '["./notexec.sh"]'
run_k run --quiet notexec.yaml; expect_rc 4; expect_err "not executable"

case_ "secret-looking environment values are masked in the stderr tail"
suite secret '"echo \"token is $API_TOKEN\" >&2; exit 1"' "        shell: true
        env: {API_TOKEN: hunter2-very-secret}"
run_k run --quiet secret.yaml --format json --output sec.json; expect_rc 4
grep -q "hunter2-very-secret" "$T/err" && fail "secret printed on stderr"
grep -q "hunter2-very-secret" sec.json && fail "secret written to the JSON report"
expect_err "***"

case_ "a timeout kills children, grandchildren and a setsid escapee"
suite hang "[\"$HP\", \"spawn\", \"2\", \"grandchild\", \"setsid-escape\", \"--pidfile\", \"$T/escapee.pid\", \"sleep\", \"600000\"]" "        timeout: 500ms"
run_k run --quiet hang.yaml; expect_rc 4; expect_err "timed out"
no_process_left "$HP"
if [ -s "$T/escapee.pid" ]; then
	kill -0 "$(cat "$T/escapee.pid")" 2>/dev/null && fail "the setsid escapee is still alive"
fi

case_ "a failing setup hook is reported and the command is not measured"
cat > hook.yaml <<YAML
version: "1"
name: hook
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: b
    setup: [{command: ["$HP", "stderr", "setup exploded", "exit", "7"]}]
    commands:
      c: {command: ["$HP", "sleep", "1"]}
YAML
run_k run --quiet hook.yaml; expect_rc 4; expect_err "setup"; expect_err "setup exploded"

no_process_left "$HP"
finish
