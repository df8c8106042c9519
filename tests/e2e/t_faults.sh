#!/bin/bash
# Fault scenarios: signals during a hook, reports that cannot be written
# (read-only folder, file-size limit, a symlink), each asserting the exit
# code, the message, what is left on disk and in the process table.
. "$(dirname "$0")/lib.sh"

HP="$T/helper-faults-$$"
cp "$H" "$HP"

cat > hook.yaml <<YAML
version: "1"
name: hookint
defaults: {warmup: 0, runs: 3}
benchmarks:
  - name: b
    setup: [{command: ["$HP", "--pidfile", "$T/hook.pids", "spawn", "1", "sleep", "300000"]}]
    commands:
      c: {command: ["$HP", "sleep", "1"]}
YAML

for sig in INT TERM; do
	case_ "SIG$sig during a setup hook"
	rm -f r.json hook.pids
	"$KAGARI" run --quiet hook.yaml --format json --output r.json >"$T/out" 2>"$T/err" &
	pid=$!
	# The hook writes its child's pid once it runs.
	wait_until 30 has_lines hook.pids 1
	kill -s "$sig" "$pid"
	wait "$pid"; RC=$?
	expect_rc 4
	expect_err "interrupted"
	expect_err "setup hook 1"
	[ -s r.json ] && json_check r.json 'r["interrupted"] is True and r["summary"]["exit_code"] == 4'
	# The hook was stopped before any run: the command reports the hook.
	[ -s r.json ] && json_check r.json '(c := r["suites"][0]["benchmarks"][0]["commands"][0])["result"] == "error" and c["head"]["count"] == 0 and "setup hook 1" in c["error"] and c["error"].endswith("interrupted")'
	[ -s r.json ] || fail "no partial report"
	no_process_left "$HP"
done

cat > ok.yaml <<YAML
version: "1"
name: ok
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: b
    commands:
      c: {command: ["$HP", "sleep", "1"]}
YAML

if [ "$(id -u)" != 0 ]; then
	case_ "a read-only folder keeps the previous report"
	mkdir ro && echo previous > ro/r.json && chmod 555 ro
	run_k run --quiet ok.yaml --format json --output ro/r.json; expect_rc 4
	expect_err "cannot write"
	[ "$(cat ro/r.json)" = previous ] || fail "the previous report changed"
	chmod 755 ro
else
	echo "note: running as root, a read-only folder does not stop writes; the file-size limit case covers a failing write"
fi

case_ "a file-size limit (RLIMIT_FSIZE) keeps the previous report and leaves no temporary file"
mkdir -p lim && echo previous > lim/r.json
( ulimit -f 1; "$KAGARI" run --quiet ok.yaml --format json --output lim/r.json >"$T/out" 2>"$T/err" ); RC=$?
expect_rc 4
expect_err "lim/r.json"
[ "$(cat lim/r.json)" = previous ] || fail "the previous report changed"
ls lim | grep -q kagari-tmp && fail "a temporary file was left: $(ls lim)"

case_ "a report path that is a symlink is refused"
mkdir -p outside links && echo secret > outside/target && ln -s ../outside/target links/r.json
run_k run --quiet ok.yaml --format json --output links/r.json; expect_rc 4
expect_err "symbolic link"
[ "$(cat outside/target)" = secret ] || fail "kagari wrote through a symlink"

case_ "a report into a folder that does not exist"
run_k run --quiet ok.yaml --format json --output no/such/dir/r.json; expect_rc 4
expect_err "no/such/dir/r.json"

case_ "temporary folders are private and removed"
mkdir -p tmpd
TMPDIR="$T/tmpd" "$KAGARI" run --quiet ok.yaml >/dev/null 2>&1 || fail "run failed"
[ -z "$(ls -A tmpd)" ] || fail "temporary folder left: $(ls -A tmpd)"
cat > keep.yaml <<YAML
version: "1"
name: keep
defaults: {warmup: 0, runs: 1}
benchmarks:
  - name: b
    commands:
      c: {command: [sh, -c, "stat -c %a \"\$(dirname \"\$(dirname \"\$PWD_CHECK\")\")\" > $T/mode.txt"], env: {PWD_CHECK: "\${workdir}"}}
YAML
TMPDIR="$T/tmpd" "$KAGARI" run --quiet keep.yaml >/dev/null 2>"$T/err" || fail "run failed: $(cat "$T/err")"
[ "$(cat mode.txt 2>/dev/null)" = 700 ] || fail "the temporary folder's mode is $(cat mode.txt 2>/dev/null), expected 700"

# (As root every folder is readable anyway; this bites for normal users.)
case_ "a folder the measured program made unreadable is still removed"
mkdir -p tmpd2
cat > locked.yaml <<YAML
version: "1"
name: locked
defaults: {warmup: 0, runs: 1}
benchmarks:
  - name: b
    commands:
      c: {command: [sh, -c, "mkdir -p \"\$0\"/locked/deeper && touch \"\$0\"/locked/deeper/f && chmod 000 \"\$0\"/locked/deeper \"\$0\"/locked", "\${workdir}"]}
YAML
TMPDIR="$T/tmpd2" "$KAGARI" run --quiet locked.yaml >/dev/null 2>"$T/err" || fail "run failed: $(cat "$T/err")"
[ -z "$(ls -A tmpd2)" ] || fail "temporary folder left: $(ls -A tmpd2)"

no_process_left "$HP"
finish
