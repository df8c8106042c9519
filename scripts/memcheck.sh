#!/bin/bash
# make memcheck: the end-to-end tests (tests/e2e/t_*.sh) with kagari itself
# under valgrind memcheck.
#
#   scripts/memcheck.sh [BUILD-DIR] [t_NAME...]
#
# KAGARI points at a wrapper that runs BUILD-DIR/kagari under
#   valgrind --tool=memcheck --error-exitcode=99 --leak-check=full
#            --errors-for-leak-kinds=definite --trace-children=no --vgdb=no
# with one log per process (--vgdb=no: valgrind makes no FIFOs in $TMPDIR,
# which a kagari killed with SIGKILL, as in t_compare, would leave behind).
# Programs kagari executes (the measured commands, hooks, git) are not
# traced; the runner (KAGARI_RUNNER_FORK=1 keeps it a fork of kagari
# rather than the static kagari-runner) is kagari's own code and is traced
# like the parent. Every test must pass,
# and over all logs there must be zero errors and zero bytes definitely
# lost. The summary lines are printed at the end; the exit status is 0 only
# when all of that holds. Logs and each test's output are kept in
# BUILD-DIR/memcheck/.
set -u
build=${1:-build}
shift $(($# > 0 ? 1 : 0))
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd) || exit 1
kagari=$build/kagari
helper=$build/kagari-helper

valgrind=$(command -v valgrind) || {
	echo "memcheck: valgrind is not installed (apt-get install -y valgrind)" >&2
	exit 1
}
for f in "$kagari" "$helper"; do
	[ -x "$f" ] || { echo "memcheck: $f is missing; run make first" >&2; exit 1; }
done

# Tests that cannot work under memcheck, with the reason. Valgrind slows
# kagari itself (not the programs it measures) by 20-50x.
declare -A excluded=(
	[t_valgrind]="measures with instrument: valgrind; the traced kagari's environment holds valgrind's own LD_PRELOAD (vgpreload_core, vgpreload_memcheck), which reaches the measured valgrind and makes it exit with status 1"
	[t_counters]="its instrument: auto case falls back to valgrind here (no perf), which fails under memcheck for the reason given for t_valgrind"
)

# Valgrind logs and test outputs stay in BUILD-DIR/memcheck/ for reading.
work=$build/memcheck
logs=$work/logs
rm -rf "$work"
mkdir -p "$logs"
cat >"$work/kagari" <<EOF
#!/bin/sh
# The runner stays a fork of kagari, so its code is traced too, except for
# the tests that assert what is measured (t_run: a small peak RSS; t_compare:
# the size of a +20% change): a runner running under valgrind passes
# valgrind's resident set and its fork-and-exec cost on to what it measures.
case "\${KAGARI_MEMCHECK_TEST:-}" in
t_run|t_compare) ;;
*) export KAGARI_RUNNER_FORK=1 ;;
esac
exec "$valgrind" --tool=memcheck --error-exitcode=99 --leak-check=full \\
	--errors-for-leak-kinds=definite --trace-children=no --vgdb=no \\
	--log-file="$logs/\${KAGARI_MEMCHECK_TEST:-x}.%p.log" \\
	"$kagari" "\$@"
EOF
chmod +x "$work/kagari"

if [ $# -gt 0 ]; then
	tests=()
	for t in "$@"; do tests+=("$src/tests/e2e/${t%.sh}.sh"); done
else
	tests=("$src"/tests/e2e/t_*.sh)
fi

failed=0
results=""
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	if [ -n "${excluded[$name]:-}" ]; then
		results+="$name: skipped (${excluded[$name]})"$'\n'
		continue
	fi
	out=$work/$name.out
	(cd "$build" && KAGARI=$work/kagari KAGARI_HELPER=$helper \
		KAGARI_SOURCE_DIR=$src KAGARI_BUILD_DIR=$build \
		KAGARI_MEMCHECK_TEST=$name bash "$t") >"$out" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		failed=$((failed + 1))
		results+="$name: FAILED (exit $rc): $(grep -m 3 -E '^FAIL' "$out" | tr '\n' ' ')"$'\n'
	else
		results+="$name: $(tail -n 1 "$out")"$'\n'
	fi
done

# Sum over every process log.
nlogs=0
nexec=0
errors=0
lost=0
bad_logs=""
for log in "$logs"/*.log; do
	[ -e "$log" ] || continue
	nlogs=$((nlogs + 1))
	# A forked child that exec'd another program (the measured commands,
	# git, an exec'd runner) leaves a log without a summary: not traced on.
	if ! grep -q 'ERROR SUMMARY' "$log"; then
		nexec=$((nexec + 1))
		continue
	fi
	e=$(sed -n 's/.*ERROR SUMMARY: \([0-9,]*\) errors.*/\1/p' "$log" | tail -n 1 | tr -d ,)
	l=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$log" | tail -n 1 | tr -d ,)
	e=${e:-0}
	l=${l:-0}
	errors=$((errors + e))
	lost=$((lost + l))
	if [ "$e" -gt 0 ] || [ "$l" -gt 0 ]; then
		bad_logs+="$log"$'\n'
	fi
done

printf '%s' "$results"
if [ -n "$bad_logs" ]; then
	echo "memcheck: processes with errors or leaks:"
	while read -r log; do
		[ -n "$log" ] || continue
		echo "--- $(basename "$log")"
		grep -E '^==[0-9]+== (Invalid|Conditional|Syscall|Mismatched|Source|Use of|[0-9,]+ bytes in [0-9,]+ blocks are definitely|   (at|by) )' "$log" | head -n 40
	done <<<"$bad_logs"
fi
echo "memcheck: $((nlogs - nexec)) kagari processes ran to exit under memcheck ($nexec forked children exec'd another program), ERROR SUMMARY: $errors errors, definitely lost: $lost bytes"
if [ $failed -gt 0 ] || [ $errors -gt 0 ] || [ $lost -gt 0 ] || [ $nlogs -eq $nexec ]; then
	echo "memcheck: FAILED ($failed test files failed)"
	exit 1
fi
echo "memcheck: ok ($(( ${#tests[@]} )) test files, zero errors, zero definitely lost)"
exit 0
