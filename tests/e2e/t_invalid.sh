#!/bin/bash
# Bad input as a user would try it: one clear message with FILE:LINE:COL and
# the field, the contract's exit code, and no earlier report overwritten.
. "$(dirname "$0")/lib.sh"

echo '{"earlier": true}' > report.json
cp report.json keep.json

bad() { # NAME EXPECTED-RC FRAGMENT... ; suite text on stdin
	local name=$1 rc=$2
	shift 2
	cat > "$name.yaml"
	case_ "$name"
	run_k run --quiet "$name.yaml" --format json --output report.json
	expect_rc "$rc"
	for f in "$@"; do expect_err "$f"; done
	cmp -s report.json keep.json || fail "the earlier report was modified"
}

bad misspelled 2 "misspelled.yaml:7:9:" "did you mean 'command'?" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands:
      c:
        comand: [true]
YAML

printf 'version: "1"\nname: x\nbenchmarks:\n\t- name: b\n' > tabs.yaml
case_ "tab indentation"
run_k run --quiet tabs.yaml; expect_rc 2; expect_err "tabs.yaml:4:"

bad wrong_unit 2 "wrong_unit.yaml:" "latency" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands:
      c:
        command: ["true"]
        budget: {latency: {p95: "<= 64MiB"}}
YAML

bad negative_runs 2 "negative_runs.yaml:3:" "runs" <<'YAML'
version: "1"
name: x
defaults: {runs: -3}
benchmarks:
  - name: b
    commands:
      c: {command: ["true"]}
YAML

bad string_without_shell 2 "string_without_shell.yaml:" "shell: true" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands:
      c: {command: "true | cat"}
YAML

bad missing_cwd 2 "missing_cwd.yaml:" "missing-folder" <<'YAML'
version: "1"
name: x
defaults: {runs: 1, warmup: 0}
benchmarks:
  - name: b
    cwd: missing-folder
    commands:
      c: {command: ["true"]}
YAML

bad several_errors 2 "several_errors.yaml:2:" "several_errors.yaml:5:" "several_errors.yaml:8:" <<'YAML'
version: "1"
nmae: x
benchmarks:
  - name: b
    runz: 3
    commands:
      c:
        command: 42
YAML

bad missing_program 4 "command not found" "kagari-missing-program-zz" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands:
      c: {command: [kagari-missing-program-zz]}
YAML

printf '#!/bin/sh\n' > noexec.sh; chmod 644 noexec.sh
bad not_executable 4 "not executable" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands:
      c: {command: [./noexec.sh]}
YAML

case_ "a directory without suites"
mkdir nosuite
run_k run nosuite; expect_rc 2

case_ "a missing suite file"
run_k validate does-not-exist.yaml; expect_rc 2; expect_err "does-not-exist.yaml"

case_ "validate lists every error and exits 2"
run_k validate several_errors.yaml; expect_rc 2
[ "$(grep -c 'several_errors.yaml:' "$T/err")" -ge 3 ] || fail "expected 3 errors at once: $(cat "$T/err")"

finish
