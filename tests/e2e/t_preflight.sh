#!/bin/bash
# Checks made before anything runs name the suite file, the position and
# the field, like every validation error (docs/contract.md): a program that is
# not there or not executable is exit 4, a missing cwd is exit 2.
. "$(dirname "$0")/lib.sh"

cat > missing.yaml <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands:
      c: {command: [kagari-preflight-missing-zz]}
YAML
case_ "a program that is not found names file, line and field"
run_k run --quiet missing.yaml; expect_rc 4
expect_err "missing.yaml:6:"
expect_err "benchmarks[0].commands.c.command: command not found: 'kagari-preflight-missing-zz'"

printf '#!/bin/sh\n' > noexec.sh; chmod 644 noexec.sh
cat > noexec.yaml <<'YAML'
version: "1"
name: x
benchmarks:
  - name: first
    commands:
      ok: {command: ["true"]}
  - name: b
    commands:
      c: {command: [./noexec.sh]}
YAML
case_ "a program that is not executable names file, line and field"
if [ "$(id -u)" != 0 ]; then
	run_k run --quiet noexec.yaml; expect_rc 4
	expect_err "noexec.yaml:9:"
	expect_err "benchmarks[1].commands.c.command: cannot run './noexec.sh'"
fi

finish
