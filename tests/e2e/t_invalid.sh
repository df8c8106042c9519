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
	[ -s "$T/out" ] && fail "stdout is not empty: $(head -c 300 "$T/out")"
}

bad misspelled 2 "misspelled.yaml:7:9: benchmarks[0].commands.c.comand: unknown key 'comand', did you mean 'command'?" <<'YAML'
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
run_k run --quiet tabs.yaml; expect_rc 2
expect_err "tabs.yaml:4:1: invalid YAML: "
expect_err "tabs cannot be used for indentation in YAML, use spaces"
last_err_has "kagari: error: invalid suite: nothing was run"

bad wrong_unit 2 "wrong_unit.yaml:8:33: benchmarks[0].commands.c.budget.latency.p95: budget '<= 64MiB': latency expects a duration such as '300ms' ('64MiB' is a size)" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands:
      c:
        command: ["true"]
        budget: {latency: {p95: "<= 64MiB"}}
YAML

last_err_has "kagari: error: invalid suite: nothing was run"

bad negative_runs 2 "negative_runs.yaml:3:18: defaults.runs: must be at least 1, got -3" <<'YAML'
version: "1"
name: x
defaults: {runs: -3}
benchmarks:
  - name: b
    commands:
      c: {command: ["true"]}
YAML

bad string_without_shell 2 "string_without_shell.yaml:6:20: benchmarks[0].commands.c.command: a string command needs 'shell: true'" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands:
      c: {command: "true | cat"}
YAML

bad missing_cwd 2 "missing_cwd.yaml:" "cwd: folder 'missing-folder' does not exist" <<'YAML'
version: "1"
name: x
defaults: {runs: 1, warmup: 0}
benchmarks:
  - name: b
    cwd: missing-folder
    commands:
      c: {command: ["true"]}
YAML

bad several_errors 2 "several_errors.yaml:2:1: nmae: unknown key 'nmae', did you mean 'name'?" \
	"several_errors.yaml:5:5: benchmarks[0].runz: unknown key 'runz', did you mean 'runs'?" \
	"several_errors.yaml:8:18: benchmarks[0].commands.c.command: " <<'YAML'
version: "1"
nmae: x
benchmarks:
  - name: b
    runz: 3
    commands:
      c:
        command: 42
YAML

last_err_has "kagari: error: invalid suite: nothing was run"

bad missing_program 4 "missing_program.yaml:6:7: benchmarks[0].commands.c.command: command not found: 'kagari-missing-program-zz'" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands:
      c: {command: [kagari-missing-program-zz]}
YAML

printf '#!/bin/sh\n' > noexec.sh; chmod 644 noexec.sh
bad not_executable 4 "not_executable.yaml:6:7: benchmarks[0].commands.c.command: cannot run" "noexec.sh': permission denied (not executable)" <<'YAML'
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
expect_err "kagari: error: nosuite: no suite in this directory (looked for kagari.yaml, *.kagari.yaml, himorime.yaml, *.himorime.yaml)"

case_ "a missing suite file"
run_k validate does-not-exist.yaml; expect_rc 2
expect_err "kagari: error: does-not-exist.yaml: no such file or directory"

case_ "validate lists every error and exits 2"
run_k validate several_errors.yaml; expect_rc 2
[ "$(grep -cE '^several_errors\.yaml:[0-9]+:[0-9]+: [^ ]+: ' "$T/err")" -eq 3 ] || fail "expected 3 FILE:LINE:COL: field: message lines at once: $(cat "$T/err")"
expect_err "several_errors.yaml:2:1: nmae: unknown key 'nmae'"
expect_err "several_errors.yaml:5:5: benchmarks[0].runz: unknown key 'runz'"
expect_err "several_errors.yaml:8:18: benchmarks[0].commands.c.command: "
last_err_has "kagari: error: invalid suite: nothing was run"
grep -q ok "$T/out" && fail "validate said ok: $(cat "$T/out")"

finish
