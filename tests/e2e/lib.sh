# Shared helpers for the end-to-end tests. Each t_*.sh sources this file and
# drives $KAGARI (build/kagari or build/kagari-asan) against suites it writes
# into a private temporary folder, asserting exit codes, messages, files and
# JSON fields — what a user would observe.
set -u
: "${KAGARI:?set KAGARI to the kagari binary}"
: "${KAGARI_HELPER:?set KAGARI_HELPER to the test helper}"
T=$(mktemp -d "${TMPDIR:-/tmp}/kagari-e2e-XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
H=$KAGARI_HELPER
FAILS=0
CASES=0
PY=/usr/bin/python3
# Tests run beside each other: a make target a test runs (dist, deb,
# install) must find its packages, never install them (scripts/deps.sh;
# make check installed every one before the tests started).
export KAGARI_NO_INSTALL=1

fail() {
	echo "FAIL: $CASE: $*" >&2
	FAILS=$((FAILS + 1))
}

# run_k ARGS...: run kagari, capturing stdout, stderr and the exit code.
run_k() {
	"$KAGARI" "$@" >"$T/out" 2>"$T/err"
	RC=$?
}

# case NAME: start a named case.
case_() {
	CASE=$1
	CASES=$((CASES + 1))
}

expect_rc() {
	[ "$RC" -eq "$1" ] || fail "exit code $RC, expected $1; stderr: $(tail -c 1500 "$T/err")"
}

expect_err() {
	grep -qF -- "$1" "$T/err" || fail "stderr lacks '$1'; stderr: $(tail -c 1500 "$T/err")"
}

expect_out() {
	grep -qF -- "$1" "$T/out" || fail "stdout lacks '$1'; stdout: $(head -c 1500 "$T/out")"
}

# last_err_has TEXT: the last line on stderr (the one that explains a
# non-zero exit) contains TEXT (case-insensitive).
last_err_has() {
	tail -n 1 "$T/err" | grep -qiF -- "$1" || fail "last stderr line lacks '$1': $(tail -n 1 "$T/err")"
}

# json_check FILE PYTHON-EXPR: assert a Python expression over `r` (the
# parsed report) is true.
json_check() {
	"$PY" - "$1" "$2" <<'PYEOF' || fail "json check failed: $2"
import json, sys
r = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2])
if not ok:
    sys.stderr.write("expression false: %s\n" % sys.argv[2])
    sys.exit(1)
PYEOF
}

# wait_until TIMEOUT_S CMD...: run CMD every 20 ms until it succeeds; after
# TIMEOUT_S seconds, fail naming CMD and return 1. Tests wait on the
# condition they need (a pid file, a process, a line) instead of sleeping
# a fixed time: fast on a quiet machine, not flaky on a loaded one.
wait_until() {
	local limit=$1 start now
	shift
	start=${EPOCHREALTIME/./}
	until "$@"; do
		now=${EPOCHREALTIME/./}
		if [ $((now - start)) -ge $((limit * 1000000)) ]; then
			fail "gave up after ${limit} s waiting for: $*"
			return 1
		fi
		sleep 0.02
	done
}

# git_sandbox: a private TMPDIR, git with no system or user configuration
# and none of a calling hook's repository variables, and g, a git with a
# fixed author, no hooks and `main` as the first branch (for the tests that
# build repositories).
git_sandbox() {
	export TMPDIR="$T/tmp"
	mkdir -p "$TMPDIR"
	export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
	unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
}
g() { git -c user.name=t -c user.email=t@t -c core.hooksPath=/dev/null -c init.defaultBranch=main "$@"; }

# Conditions for wait_until.
# has_lines FILE N: FILE exists and has at least N lines.
has_lines() {
	[ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ]
}
# running PATTERN / none_running PATTERN: a process whose command line
# contains PATTERN runs / none does.
running() {
	pgrep -f -- "$1" >/dev/null
}
none_running() {
	! pgrep -f -- "$1" >/dev/null
}

# fifo_has_reader PATH: some process holds the FIFO at PATH open for
# reading, or is blocked opening it (the kernel counts a reader from the
# moment its open starts; it gets its descriptor only once a writer comes).
fifo_has_reader() {
	local want fd d
	want=$(readlink -f -- "$1")
	for d in /proc/[0-9]*; do
		for fd in "$d"/fd/*; do
			[ "$(readlink -- "$fd" 2>/dev/null)" = "$want" ] && return 0
		done
		[ "$(cat "$d/wchan" 2>/dev/null)" = wait_for_partner ] &&
			tr '\0' ' ' <"$d/cmdline" 2>/dev/null | grep -qF -- "$1" && return 0
	done
	return 1
}

# no_process_left PATTERN: nothing matching PATTERN (a unique marker in the
# command line) is still running, once the processes kagari stopped have
# had time to go.
no_process_left() {
	if ! wait_until 10 none_running "$1"; then
		echo "  left running: $(pgrep -af -- "$1" | head -5)" >&2
		pkill -9 -f -- "$1"
	fi
}

# Skips are visible: a test that cannot run here exits 77 (CTest's
# SKIP_RETURN_CODE) with its reason, and CTest lists it as skipped. A skip
# never hides a failure, and when the reason is a Debian package that
# scripts/deps.sh installs (the second argument), CI=true as root turns the
# skip into a failure: deps.sh had every chance to install it there.
SKIPS=0
skip_forbidden() { # skip_forbidden PACKAGE: true when this skip must fail
	[ -n "${1:-}" ] && [ "${CI:-}" = true ] && [ "$(id -u)" -eq 0 ]
}

# skip_test REASON [PACKAGE]: the whole test cannot run here.
skip_test() {
	if skip_forbidden "${2:-}"; then
		echo "FAIL: would skip ($1), but under CI=true as root scripts/deps.sh installs ${2}" >&2
		exit 1
	fi
	echo "SKIP: $1"
	exit 77
}

# skip_part REASON [PACKAGE]: one case cannot run here; the others go on, and
# finish exits 77 instead of 0 when nothing failed.
skip_part() {
	if skip_forbidden "${2:-}"; then
		fail "would skip ($1), but under CI=true as root scripts/deps.sh installs ${2}"
		return
	fi
	echo "SKIP (part): $CASE: $1"
	SKIPS=$((SKIPS + 1))
}

# Every kagari JSON output a test wrote (reports, aa, history) must
# validate against docs/report.schema.json (issue 24).
# malloc_loop_program N: in the current folder, prog.c, a program that makes
# N malloc/free pairs, N in n.h (a test changes it to make a change).
malloc_loop_program() {
	cat >prog.c <<'C'
#include <stdlib.h>
#include "n.h"
int main(void)
{
	for (int i = 0; i < N; i++) {
		volatile char *p = malloc(48);
		p[0] = 1;
		free((void *)p);
	}
	return 0;
}
C
	echo "#define N $1" >n.h
}

# malloc_loop_project NAME ALLOCS_MAX_PERCENT [BUDGET]: malloc_loop_program
# 2000 and a suite NAME of four single-run rounds in which allocs, gated at
# ALLOCS_MAX_PERCENT, is the comparison that decides (latency is not gated:
# four rounds cannot decide it). BUDGET: the command's `budget:` value, if
# any. t_alloc, t_reanalyze, p_install.
malloc_loop_project() {
	malloc_loop_program 2000
	cat >kagari.yaml <<YAML
version: "1"
name: $1
build:
  command: [cc, -O1, -o, "\${artifact}", prog.c]
defaults:
  warmup: 0
  runs: 4
  metrics: {allocations: true}
  regression:
    min_samples: 4
    latency: {max_percent: 50, gate: false}
    allocs: {max_percent: $2}
benchmarks:
  - name: m
    commands:
      prog:
        command: ["\${artifact}"]
YAML
	[ -z "${3:-}" ] || printf '        budget: %s\n' "$3" >>kagari.yaml
}

check_schema() {
	local out rc
	out=$("$PY" "$KAGARI_SOURCE_DIR/tests/e2e/validate_reports.py" \
		"$KAGARI_SOURCE_DIR/docs/report.schema.json" "$T" 2>/dev/null)
	rc=$?
	if [ "$rc" = 77 ]; then
		CASE="the JSON schema"
		CASES=$((CASES + 1))
		skip_part "python3-jsonschema is not installed (scripts/deps.sh check installs it)" python3-jsonschema
	elif [ "$rc" != 0 ]; then
		CASE="every JSON report validates against docs/report.schema.json"
		fail "$out"
	fi
}

finish() {
	check_schema
	if [ "$FAILS" -gt 0 ]; then
		echo "$FAILS of $CASES cases failed" >&2
		exit 1
	fi
	if [ "$SKIPS" -gt 0 ]; then
		echo "$((CASES - SKIPS)) cases passed, $SKIPS skipped (see the SKIP lines)"
		exit 77
	fi
	echo "$CASES cases passed"
	exit 0
}

# chrome ARGS...: headless Chromium ($CHROMIUM, which the test found) with a
# throw-away profile, no network services, 60 s at most; stdout/stderr are
# the caller's.
chrome() {
	local prof
	prof=$(mktemp -d "$T/chrome-XXXXXX")
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --disable-default-apps --mute-audio \
		--user-data-dir="$prof" "$@"
	local rc=$?
	rm -rf "$prof"
	return $rc
}
