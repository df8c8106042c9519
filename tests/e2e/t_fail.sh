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
run_k run --quiet codes.yaml --format json --output codes.json; expect_rc 0
json_check codes.json 'r["suites"][0]["benchmarks"][0]["commands"][0]["result"] == "pass" and r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["count"] == 2 and r["suites"][0]["benchmarks"][0]["commands"][0].get("error") is None'
json_check codes.json 'r["summary"]["pass"] == 1 and r["summary"]["error"] == 0'

case_ "death by a signal is named"
suite segv "[\"$HP\", \"signal\", \"SEGV\"]"
run_k run --quiet segv.yaml --format json --output segv.json; expect_rc 4
expect_err "benchmark 'b', command 'c': killed by signal SIGSEGV"
json_check segv.json 'r["suites"][0]["benchmarks"][0]["commands"][0]["error"] == "killed by signal SIGSEGV" and r["suites"][0]["benchmarks"][0]["commands"][0]["result"] == "error" and r["summary"]["exit_code"] == 4'

case_ "a command that does not exist"
suite missing '["kagari-no-such-program-xyz"]'
run_k run --quiet missing.yaml; expect_rc 4
expect_err "missing.yaml:7:7: benchmarks[0].commands.c.command: command not found: 'kagari-no-such-program-xyz'"

case_ "a command that is not executable"
printf '#!/bin/sh\n' > notexec.sh; chmod 644 notexec.sh
suite notexec '["./notexec.sh"]'
run_k run --quiet notexec.yaml; expect_rc 4
expect_err "notexec.yaml:7:7: benchmarks[0].commands.c.command: cannot run"
expect_err "notexec.sh': permission denied (not executable)"

case_ "secret-looking environment values are masked in the stderr tail"
suite secret '"echo \"token is $API_TOKEN\" >&2; exit 1"' "        shell: true
        env: {API_TOKEN: hunter2-very-secret}"
run_k run --quiet secret.yaml --format json --output sec.json; expect_rc 4
grep -q "hunter2-very-secret" "$T/err" && fail "secret printed on stderr"
grep -q "hunter2-very-secret" sec.json && fail "secret written to the JSON report"
expect_err "token is ***"
json_check sec.json 'r["suites"][0]["benchmarks"][0]["commands"][0]["stderr_tail"] == "token is ***\n" and "status 1" in r["suites"][0]["benchmarks"][0]["commands"][0]["error"]'

case_ "a timeout kills children, grandchildren and a setsid escapee"
# --pidfile first: the pids of the 2 children, the child and grandchild,
# and the escapee are written to it.
suite hang "[\"$HP\", \"--pidfile\", \"$T/hang.pids\", \"spawn\", \"2\", \"grandchild\", \"setsid-escape\", \"sleep\", \"600000\"]" "        timeout: 500ms"
run_k run --quiet hang.yaml --format json --output hang.json; expect_rc 4
expect_err "benchmark 'b', command 'c': timed out after 500 ms (its process group was killed)"
json_check hang.json 'r["suites"][0]["benchmarks"][0]["commands"][0]["error"].startswith("timed out after 500 ms") and r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["count"] == 0'
no_process_left "$HP"
# Every process of the run is gone (a zombie is dead too).
all_gone() {
	local p st
	while read -r p; do
		st=$(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null) || continue
		[ "$st" = Z ] || return 1
	done <"$1"
}
[ "$(wc -l <"$T/hang.pids" 2>/dev/null)" = 5 ] || fail "expected 5 pids in hang.pids: $(cat "$T/hang.pids" 2>&1)"
wait_until 10 all_gone "$T/hang.pids" || fail "still alive: $(cat "$T/hang.pids")"

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
run_k run --quiet hook.yaml --format json --output hook.json; expect_rc 4
expect_err "benchmark 'b', command 'c': setup hook 1 ("
expect_err "failed: exited with status 7"; expect_err "setup exploded"
json_check hook.json '(c := r["suites"][0]["benchmarks"][0]["commands"][0])["result"] == "error" and c["head"]["count"] == 0 and c["error"].startswith("setup hook 1 (") and "exited with status 7" in c["error"] and "setup exploded" in c["error"] + (c["stderr_tail"] or "")'

no_process_left "$HP"
finish
