#!/bin/bash
# Hooks, stdin, stdout files under ${workdir}, env layering and cwd.
. "$(dirname "$0")/lib.sh"

mkdir -p data sub
printf 'from a file\n' > data/in.txt
cat > kagari.yaml <<YAML
version: "1"
name: hooks
defaults:
  warmup: 1
  runs: 4
  env: {LAYER_A: defaults, LAYER_B: defaults}
benchmarks:
  - name: content
    env: {LAYER_B: benchmark}
    stdin: {content: "typed input\n"}
    setup: [{command: [sh, -c, "echo setup >> $T/setup.log"]}]
    prepare_each: [{command: [sh, -c, "echo run >> $T/prepare.log"]}]
    cleanup: [{command: [sh, -c, "cp \"\$0\"/out.txt $T/cat-out.txt; cp \"\$0\"/env.txt $T/env-out.txt", "\${workdir}"]}]
    commands:
      cat:
        command: ["$H", "cat"]
        stdout: out.txt
      env:
        command: ["$H", "env", "LAYER_A", "env", "LAYER_B", "env", "LAYER_C"]
        env: {LAYER_C: command}
        stdout: env.txt
  - name: file
    stdin: data/in.txt
    cwd: sub
    cleanup: [{command: [sh, -c, "cp \"\$0\"/o.txt $T/file-out.txt", "\${workdir}"]}]
    commands:
      cat:
        command: ["$H", "cat", "pwd"]
        stdout: o.txt
YAML

case_ "hooks run untimed: setup once per benchmark, prepare_each before every run"
run_k run --quiet; expect_rc 0
[ "$(wc -l < setup.log)" -eq 1 ] || fail "setup ran $(wc -l < setup.log) times"
# two commands x (1 warm-up + 4 measured) runs
[ "$(wc -l < prepare.log)" -eq 10 ] || fail "prepare_each ran $(wc -l < prepare.log) times, expected 10"

case_ "stdin content is given afresh to every run; stdout goes under \${workdir}"
[ "$(cat cat-out.txt)" = "typed input" ] || fail "stdout file: '$(cat cat-out.txt 2>/dev/null)'"

case_ "env layers defaults -> benchmark -> command"
grep -q '^defaults$' env-out.txt && grep -q '^benchmark$' env-out.txt && grep -q '^command$' env-out.txt || fail "env: $(cat env-out.txt 2>/dev/null)"

case_ "stdin from a suite-relative file, cwd relative to the suite"
head -1 file-out.txt | grep -qx 'from a file' || fail "stdin file: $(cat file-out.txt 2>/dev/null)"
grep -q "/sub\$" file-out.txt || fail "cwd: $(cat file-out.txt 2>/dev/null)"

finish
