#!/bin/bash
# Every signal that ends a process by default is handled like SIGTERM: the
# running command's group is stopped, cleanup hooks run, a partial report
# marked `interrupted` is written, temporary folders and the base worktree
# are removed, exit 4. A report written to a closed pipe (EPIPE) ends the
# same way. A measured command that kills the runner fails its benchmark
# with a clear reason; nothing it started is left, cleanup runs on a fresh
# runner and the next benchmarks are measured.
#
# No sleeps to synchronise: the measured commands write marker files, and
# the test waits for them (or for processes to go) with a time limit.
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

# gone PATTERN: nothing whose command line matches PATTERN runs (waits up
# to 10 s for processes being killed to disappear).
gone() {
	local i
	for ((i = 0; i < 200; i++)); do
		pgrep -f -- "$1" >/dev/null || return 0
		sleep 0.05
	done
	fail "processes left running: $(pgrep -af -- "$1" | head -5)"
	pkill -9 -f -- "$1"
}

# no_tmp: kagari's temporary folders under $TMPDIR are gone.
no_tmp() {
	local left
	left=$(find "$TMPDIR" -mindepth 1 -maxdepth 1 -name 'kagari-*' 2>/dev/null)
	[ -z "$left" ] || fail "temporary folders left: $left"
}

mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
HP="$T/helper-sig-$$"
cp "$H" "$HP"

cat > kagari.yaml <<YAML
version: "1"
name: signals
defaults: {warmup: 0, runs: 50, runs_per_round: 1}
benchmarks:
  - name: quick
    commands:
      ok: {command: ["true"]}
  - name: b
    cleanup: [{command: [sh, -c, "echo cleaned > $T/cleanup.log"]}]
    commands:
      slow: {command: [sh, -c, "touch $T/started; exec $HP spawn 1 sleep 300"]}
YAML

for sig in HUP QUIT USR1 ALRM XCPU XFSZ TERM; do
	case_ "SIG$sig during a measured run: cleanup, partial report, exit 4"
	rm -f cleanup.log r.json started
	"$KAGARI" run --quiet --format json --output r.json >"$T/out" 2>"$T/err" &
	pid=$!
	wait_for started
	kill -s "$sig" "$pid"
	wait "$pid"; RC=$?
	expect_rc 4
	expect_err "interrupted"
	[ -f cleanup.log ] || fail "cleanup hook did not run"
	if [ -s r.json ]; then
		json_check r.json 'r["interrupted"] is True and r["summary"]["exit_code"] == 4'
		json_check r.json 'r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["count"] >= 1'
	else
		fail "no partial report"
	fi
	gone "$HP"
	no_tmp
done

case_ "a second signal exits at once with 4"
rm -f started
cat > slowclean.yaml <<YAML
version: "1"
name: slowclean
defaults: {warmup: 0, runs: 50, runs_per_round: 1}
benchmarks:
  - name: b
    cleanup: [{command: [sh, -c, "touch $T/cleaning; exec $HP sleep 60000"]}]
    commands:
      slow: {command: [sh, -c, "touch $T/started; exec $HP sleep 300000"]}
YAML
"$KAGARI" run --quiet slowclean.yaml >"$T/out" 2>"$T/err" &
pid=$!
wait_for started
kill -HUP "$pid"
wait_for cleaning
kill -QUIT "$pid"
wait "$pid"; RC=$?
expect_rc 4
expect_err "second signal"
gone "$HP"
# Leaving at once leaves the temporary folder (documented).
rm -rf "${TMPDIR:?}"/kagari-*

# ---- compare: the base worktree is removed after a signal ----
mkdir repo
(
	cd repo && git init -q . && git config user.email t@e && git config user.name t &&
	cp ../kagari.yaml . && git add kagari.yaml && git commit -qm base
) || fail "git setup"
for sig in HUP QUIT; do
	case_ "SIG$sig during compare: no worktree left registered"
	rm -f cleanup.log started
	(cd repo && exec "$KAGARI" compare --against HEAD --quiet >"$T/out" 2>"$T/err") &
	pid=$!
	wait_for started
	kill -s "$sig" "$pid"
	wait "$pid"; RC=$?
	expect_rc 4
	[ -f cleanup.log ] || fail "cleanup hook did not run"
	n=$(git -C repo worktree list --porcelain | grep -c '^worktree ')
	[ "$n" -eq 1 ] || fail "worktrees left: $(git -C repo worktree list)"
	gone "$HP"
	no_tmp
done

# ---- a report to a closed pipe (EPIPE; SIGPIPE is ignored) ----
# The read end is closed before kagari starts, so the first write of the
# report fails; cleanup must still happen, with the documented exit 4.
closed_pipe() {
	"$PY" - "$@" <<'PYEOF'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
with open("err", "w") as e:
    p = subprocess.run(sys.argv[1:], stdout=w, stderr=e)
print(p.returncode)
PYEOF
}
cat > quick.yaml <<YAML
version: "1"
name: quick
defaults: {warmup: 0, runs: 3}
benchmarks:
  - name: b
    cleanup: [{command: [sh, -c, "echo cleaned > $T/cleanup.log"]}]
    commands:
      ok: {command: ["true"]}
YAML
case_ "run: the report to a closed pipe fails cleanly with 4"
rm -f cleanup.log
RC=$(closed_pipe "$KAGARI" run --format json quick.yaml)
expect_rc 4
expect_err "could not"
[ -f cleanup.log ] || fail "cleanup hook did not run"
no_tmp

case_ "compare: the report to a closed pipe fails cleanly with 4"
cp quick.yaml repo/kagari.yaml
rm -f cleanup.log
RC=$(cd repo && closed_pipe "$KAGARI" compare --against HEAD --format json && mv err ..)
expect_rc 4
expect_err "could not"
[ -f cleanup.log ] || fail "cleanup hook did not run"
n=$(git -C repo worktree list --porcelain | grep -c '^worktree ')
[ "$n" -eq 1 ] || fail "worktrees left: $(git -C repo worktree list)"
no_tmp

# ---- a measured command that kills the runner ----
cat > killer.yaml <<YAML
version: "1"
name: killer
defaults: {warmup: 0, runs: 5}
benchmarks:
  - name: kills-runner
    cleanup: [{command: [sh, -c, "echo cleaned > $T/cleanup.log"]}]
    commands:
      k: {command: [sh, -c, "$HP setsid-escape; kill -9 \$PPID; exec $HP sleep 300000"]}
  - name: after
    commands:
      ok: {command: ["true"]}
YAML
case_ "a command that kills the runner: its benchmark fails, the next is measured"
rm -f cleanup.log r.json
run_k run --quiet --format json --output r.json killer.yaml
expect_rc 4
expect_err "runner"
[ -f cleanup.log ] || fail "cleanup hook did not run after the runner died"
if [ -s r.json ]; then
	json_check r.json 'r["suites"][0]["benchmarks"][0]["result"] == "error"'
	json_check r.json '"runner" in json.dumps(r["suites"][0]["benchmarks"][0])'
	json_check r.json 'r["suites"][0]["benchmarks"][1]["commands"][0]["head"]["count"] == 5'
	json_check r.json 'r["summary"]["exit_code"] == 4'
else
	fail "no report"
fi
gone "$HP"
no_tmp

finish
