#!/bin/sh
# Run every libFuzzer target of a fuzz build for SECONDS each.
#
#   fuzz/run.sh BUILD-DIR SECONDS [TARGET...]     (make fuzz FUZZ_SECONDS=N)
#
# BUILD-DIR is a tree configured with -DKAGARI_FUZZ=ON (targets in
# BUILD-DIR/fuzz/fuzz_<name>). Each target works on a copy of its seeds in
# BUILD-DIR/fuzz/corpus/<name>/, so the committed files stay small while the
# working corpus grows from run to run. The seeds are fuzz/corpus/<name>/
# (inputs no test uses), the test data of the same parser (seeds_of below:
# the suites of tests/data/suites/ and tests/data/cases/, the GitHub events
# of tests/data/events/) and the replayed crashes of
# tests/data/fuzz-regressions/<name>/, copied at run time rather than kept
# twice. fuzz/<name>.dict is used when it exists. Crashing inputs land in
# BUILD-DIR/fuzz/artifacts/<name>/; minimise one with
#   BUILD-DIR/fuzz/fuzz_<name> -minimize_crash=1 -runs=100000 CRASH-FILE
# and keep it under tests/data/fuzz-regressions/<name>/.
#
# Prints one line per target with libFuzzer's executions
# (stat::number_of_executed_units) and exits 1 if any target failed.
set -u
if [ $# -lt 2 ]; then
	echo "usage: $0 BUILD-DIR SECONDS [TARGET...]" >&2
	exit 3
fi
build=$1
seconds=$2
shift 2
src=$(cd "$(dirname "$0")" && pwd)
case $seconds in
'' | *[!0-9]*)
	echo "$0: SECONDS must be a whole number, got '$seconds'" >&2
	exit 3
	;;
esac

if [ $# -eq 0 ]; then
	set --
	for bin in "$build"/fuzz/fuzz_*; do
		[ -x "$bin" ] || continue
		set -- "$@" "${bin##*/fuzz_}"
	done
fi
if [ $# -eq 0 ]; then
	echo "$0: no fuzz targets in $build/fuzz (configure with -DKAGARI_FUZZ=ON)" >&2
	exit 1
fi

# seeds_of NAME: the test data files that are seeds of target NAME.
seeds_of() {
	local name=$1 f
	case $name in
	suite) set -- "$src"/../tests/data/suites/*/*.yaml \
		"$src"/../tests/data/cases/*/*.yaml ;;
	github_event) set -- "$src"/../tests/data/events/*.json ;;
	*) set -- ;;
	esac
	set -- "$@" "$src"/../tests/data/fuzz-regressions/"$name"/*
	for f in "$@"; do
		[ -f "$f" ] && printf '%s\n' "$f" # links in a loop, folders: not seeds
	done
}

# seed NAME CORPUS: copy the seeds of NAME into CORPUS, each file named after
# the folder it comes from (two folders may hold the same file name).
seed() {
	local f d
	if [ -d "$src/corpus/$1" ]; then
		cp "$src/corpus/$1"/* "$2"/ 2>/dev/null
	fi
	seeds_of "$1" | while IFS= read -r f; do
		d=${f%/*}
		cp "$f" "$2/${d##*/}-${f##*/}"
	done
}

status=0
summary=""
for name in "$@"; do
	bin=$build/fuzz/fuzz_$name
	corpus=$build/fuzz/corpus/$name
	art=$build/fuzz/artifacts/$name
	log=$build/fuzz/fuzz_$name.log
	if [ ! -x "$bin" ]; then
		echo "$0: no target $bin" >&2
		status=1
		continue
	fi
	mkdir -p "$corpus" "$art"
	seed "$name" "$corpus"
	set -- -max_total_time="$seconds" -print_final_stats=1 -timeout=10 \
		-artifact_prefix="$art/"
	[ -f "$src/$name.dict" ] && set -- "$@" -dict="$src/$name.dict"
	echo "fuzz_$name: ${seconds}s on $corpus (log: $log)"
	"$bin" "$@" "$corpus" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	if [ $rc -eq 0 ]; then
		line="fuzz_$name: ok, ${execs:-?} executions in ${seconds}s, corpus $(ls "$corpus" | wc -l) inputs"
	else
		status=1
		line="fuzz_$name: FAILED (exit $rc) after ${execs:-?} executions; crash input in $art/"
		grep -E 'invariant violated|ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error|^SUMMARY' "$log" | head -n 5
	fi
	summary="$summary$line
"
done
printf '%s' "$summary"
exit $status
