#!/bin/bash
# metrics.syscalls, for real: `kagari compare` on a git repository whose
# static C program makes N one-byte write(2) calls, half of them in a forked
# child. Base N=200, head N=400:
# - the total per run is the same in every run of a side (exact counts);
# - the report names the change, write 200 → 400, in JSON
#   (commands[].syscall_changes, sides' syscalls_by_name), the table, the
#   Markdown, GitHub and HTML reports, and again when re-rendered from the
#   JSON by `kagari report`;
# - regression.syscalls gates it: a regression, exit 1;
# - where the tracepoints cannot be used (here: not root, so no tracefs and
#   no tracepoint events) a required syscalls is exit 6 with the reason.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ] && ! [ -r /sys/kernel/tracing/events/raw_syscalls/sys_enter/id ]; then
	skip_test "counting system calls needs root or a readable tracefs (docs/suite.md)" ""
fi
git_sandbox

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
cat > prog.c <<'C'
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "n.h"
static void writes(int fd, int n)
{
	for (int i = 0; i < n; i++)
		if (write(fd, "x", 1) != 1)
			_exit(3);
}
int main(void)
{
	int fd = open("/dev/null", O_WRONLY);
	pid_t pid = fork();
	if (pid == 0) {
		writes(fd, N / 2);
		_exit(0);
	}
	writes(fd, N - N / 2);
	int st;
	waitpid(pid, &st, 0);
	return 0;
}
C
echo '#define N 200' > n.h
cat > kagari.yaml <<'YAML'
version: "1"
name: sc
build:
  command: [cc, -O1, -static, -o, "${artifact}", prog.c]
defaults:
  warmup: 0
  runs: 3
  min_runs: 3
  metrics: {syscalls: true}
  regression:
    min_samples: 3
    latency: {max_percent: 50, gate: false}
    syscalls: {max_percent: 1}
benchmarks:
  - name: writer
    commands:
      w:
        command: ["${artifact}"]
YAML
g add -A && g commit -qm base

C0='r["suites"][0]["benchmarks"][0]["commands"][0]'

case_ "A/A: the same system calls in every run, write counted exactly"
run_k compare --against HEAD --format json --output "$T/aa.json" --seed 1 --quiet
expect_rc 0
json_check "$T/aa.json" "$C0['head']['metrics']['syscalls']['status'] == 'ok'"
json_check "$T/aa.json" "len({s['value'] for d in ('base', 'head') for s in $C0[d]['metrics']['syscalls']['samples']}) == 1"
json_check "$T/aa.json" "$C0['head']['syscalls_by_name']['write'] == 200"
json_check "$T/aa.json" "$C0['base']['syscalls_by_name']['write'] == 200"
json_check "$T/aa.json" "$C0['syscall_changes'] == []"
json_check "$T/aa.json" "$C0['comparisons']['syscalls']['verdict'] == 'pass'"
json_check "$T/aa.json" "$C0['head']['metrics']['syscalls']['stats']['median'] > 200"

case_ "twice the writes: write 200 → 400 in every format, a regression"
echo '#define N 400' > n.h
run_k compare --against HEAD --format json --output "$T/more.json" --seed 2 --quiet
expect_rc 1
json_check "$T/more.json" "$C0['syscall_changes'][0] == {'name': 'write', 'base': 200, 'head': 400}"
json_check "$T/more.json" "len($C0['syscall_changes']) == 1"
json_check "$T/more.json" "$C0['comparisons']['syscalls']['verdict'] == 'regression'"
json_check "$T/more.json" "$C0['head']['metrics']['syscalls']['stats']['median'] - $C0['base']['metrics']['syscalls']['stats']['median'] == 200"
for fmt in table markdown github html; do
	run_k report "$T/more.json" --format "$fmt"
	expect_out "write 200 → 400"
done
run_k report "$T/more.json" --format json --output "$T/again.json"
json_check "$T/again.json" "$C0['syscall_changes'][0] == {'name': 'write', 'base': 200, 'head': 400}"
"$PY" -c 'import json,sys; c=json.load(open(sys.argv[1]))["suites"][0]["benchmarks"][0]["commands"][0]; print("N 200 -> 400: syscalls %d -> %d (%s), changes %s" % (c["base"]["metrics"]["syscalls"]["stats"]["median"], c["head"]["metrics"]["syscalls"]["stats"]["median"], c["comparisons"]["syscalls"]["verdict"], c["syscall_changes"]))' "$T/more.json"
echo '#define N 200' > n.h

case_ "doctor says whether system calls can be counted"
run_k doctor
expect_out "syscalls (metrics.syscalls)"
expect_out "call names"

case_ "a one-sided run lists the most frequent calls"
run_k run kagari.yaml --quiet
expect_rc 0
expect_out "write 200"

case_ "without root (no tracefs, no tracepoint events): exit 6 with the reason"
if [ "$(id -u)" = 0 ] && ! mount | grep -q tracefs && command -v setpriv >/dev/null; then
	cat > "$T/np.yaml" <<YAML
version: "1"
name: np
defaults: {warmup: 0, runs: 2, metrics: {syscalls: true}}
benchmarks:
  - name: b
    commands:
      c: {command: ["$H", "writes", "10"]}
YAML
	chmod 755 "$T"
	chmod 644 "$T/np.yaml"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$KAGARI" run "$T/np.yaml" --quiet >"$T/out" 2>"$T/err"
	RC=$?
	expect_rc 6
	expect_err "'syscalls'"
	expect_err "system calls cannot be counted here"
	expect_err "tracefs"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$KAGARI" doctor >"$T/out" 2>"$T/err"
	expect_out "syscalls (metrics.syscalls): cannot be counted"
else
	skip_part "needs root, an unmounted tracefs and setpriv" ""
fi

finish
