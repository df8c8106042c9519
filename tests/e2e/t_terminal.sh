#!/bin/bash
# `terminal: true`: the command runs on an 80x24 pseudo-terminal (stdin,
# stdout, stderr and controlling terminal), stdin is typed once the program
# is ready, what the terminal shows goes to the `stdout` file, and errors
# quote its last output.
. "$(dirname "$0")/lib.sh"

printf 'from a file\nlast line' > typed.txt
cat > kagari.yaml <<YAML
version: "1"
name: terminal
defaults: {warmup: 1, runs: 3}
benchmarks:
  - name: tty
    terminal: true
    cleanup: [{command: [sh, -c, "cp \"\$0\"/tty.txt $T/tty-out.txt", "\${workdir}"]}]
    commands:
      tty: {command: ["$H", "tty"], stdout: tty.txt}
  - name: content
    terminal: true
    stdin: {content: "typed input\n"}
    cleanup: [{command: [sh, -c, "cp \"\$0\"/cat.txt $T/cat-out.txt", "\${workdir}"]}]
    commands:
      cat: {command: ["$H", "cat"], stdout: cat.txt}
  - name: file
    terminal: true
    stdin: typed.txt
    cleanup: [{command: [sh, -c, "cp \"\$0\"/f.txt $T/file-out.txt", "\${workdir}"]}]
    commands:
      cat: {command: ["$H", "tty", "cat"], stdout: f.txt}
  - name: plain
    cleanup: [{command: [sh, -c, "cp \"\$0\"/p.txt $T/plain-out.txt", "\${workdir}"]}]
    commands:
      tty: {command: ["$H", "tty"], stdout: p.txt}
YAML

case_ "terminal: true runs on an 80x24 terminal that is the controlling one"
run_k run --quiet --format json --output r.json; expect_rc 0
grep -qF 'tty 0:1 1:1 2:1 ctty:1 fg:1 size:80x24' tty-out.txt ||
	fail "not on a terminal: $(cat tty-out.txt)"
grep -qF 'tty 0:0 1:0 2:0 ctty:0' plain-out.txt ||
	fail "a plain run is on a terminal: $(cat plain-out.txt)"
json_check r.json 'all(c["head"]["count"] == 3 for b in r["suites"][0]["benchmarks"] for c in b["commands"])'

case_ "stdin content is typed into the terminal, then end-of-file"
[ "$(tr -d '\r' < cat-out.txt | grep -o 'typed input' | wc -l)" -eq 2 ] ||
	fail "unexpected terminal output: $(od -c cat-out.txt | head)"

case_ "a stdin file is typed once the program has written"
# The terminal echoes what is typed while the program copies it: how the
# two interleave depends on scheduling, so count rather than compare.
out=$(tr -d '\r' < file-out.txt)
head -1 file-out.txt | tr -d '\r' | grep -qx 'tty 0:1 1:1 2:1 ctty:1 fg:1 size:80x24' ||
	fail "first line is not the tty report: $(od -c file-out.txt | head)"
[ "$(grep -o 'from a file' <<<"$out" | wc -l)" -eq 2 ] && [ "$(grep -o 'last line' <<<"$out" | wc -l)" -eq 2 ] ||
	fail "expected each typed line echoed and copied once: $(od -c file-out.txt | head)"

case_ "a failing command on a terminal quotes what the terminal showed"
cat > fail.yaml <<YAML
version: "1"
name: terminal-fail
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: fails
    terminal: true
    commands:
      f: {command: ["$H", "stdout", "boom on the tty", "exit", "3"]}
YAML
run_k run --quiet fail.yaml; expect_rc 4
# The table on stdout shows the error and the tail; stderr does not repeat
# them (its last line gives the exit's reason).
expect_out "exited with status 3"
expect_out "boom on the tty"
[ "$(cat "$T/out" "$T/err" | grep -c "exited with status 3")" = 1 ] ||
	fail "the error is not printed exactly once: $(cat "$T/out" "$T/err")"
last_err_has "command failed to run"
run_k run --quiet fail.yaml --format json --output "$T/fail.json"; expect_rc 4
expect_err "exited with status 3"
expect_err "boom on the tty"

case_ "terminal: true with stderr is refused"
cat > bad.yaml <<YAML
version: "1"
name: terminal-bad
benchmarks:
  - name: b
    terminal: true
    commands:
      c: {command: ["$H", "exit", "0"], stderr: e.txt}
YAML
run_k run --quiet bad.yaml; expect_rc 2
expect_err "cannot be combined with 'stderr'"

finish
