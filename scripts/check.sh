#!/bin/bash
# Run every test with CTest and make its summary line the last line printed
# (CI reads it). Skipped tests (exit 77, SKIP_RETURN_CODE) are listed with
# their reasons just before the summary, so a skip is never silent. Exits
# with CTest's status.
set -u
build=${1:-build}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
( cd "$build" && ctest --output-on-failure -j2 ) >"$log" 2>&1
rc=$?
summary=$(grep -E '^[0-9]+% tests passed' "$log" | tail -n 1)
grep -v -E '^[0-9]+% tests passed' "$log"
# The reasons: the SKIP lines of each skipped test's own output, from
# CTest's log of the last run.
skipped=$(grep -E '^[[:space:]]*[0-9]+ - .* \(Skipped\)$' "$log" | sed -E 's/^[[:space:]]*[0-9]+ - (.*) \(Skipped\)$/\1/')
if [ -n "$skipped" ]; then
	echo "skipped tests, with their reasons:"
	last="$build/Testing/Temporary/LastTest.log"
	for t in $skipped; do
		why=$(awk -v t="$t" '
			$0 ~ "^[0-9]+/[0-9]+ Test: " { cur = $3 }
			cur == t && /^SKIP/ { print; exit }' "$last" 2>/dev/null)
		echo "  $t: ${why:-no reason printed}"
	done
fi
if [ -n "$summary" ]; then
	# CTest's percentage counts a skipped test as passed; say it apart.
	total=$(echo "$summary" | sed -E 's/.* out of ([0-9]+).*/\1/')
	failed=$(echo "$summary" | sed -E 's/.*, ([0-9]+) tests failed.*/\1/')
	nskip=$(printf '%s' "$skipped" | grep -c . || true)
	echo "kagari: $((total - failed - nskip)) passed, $nskip skipped, $failed failed, of $total tests"
	echo "$summary"
else
	echo "ctest did not print a summary (exit $rc)"
	[ $rc -eq 0 ] && rc=1
fi
exit $rc
