#!/bin/bash
# The bad-input table: every folder of tests/data/cases/ that holds a `case`
# file is one case (malformed suites, command-line misuse, report
# destinations), run here by name. The format is in tests/data/cases/README.
#
# Each case runs in a fresh folder holding tests/data/cases/common/ (ok.yaml),
# then the case's own files (copied with their links and modes), and a
# report.json written "earlier": whatever else a case asserts, that report is
# left byte for byte intact.
#
# Two checks stay code below the table: a suite larger than 1 MiB (2 MiB of
# data is generated, not committed) and the source check that kagari never
# runs a shell behind the user's back (no system() or popen() in src/).
. "$(dirname "$0")/lib.sh"
CASES_DIR=${KAGARI_SOURCE_DIR:?}/tests/data/cases

# unquote VALUE: a value may be wrapped in double quotes to keep blanks at
# its ends; the quotes are dropped (no escapes).
unquote() {
	local v=$1
	if [ "${#v}" -ge 2 ] && [ "${v:0:1}" = '"' ] && [ "${v: -1}" = '"' ]; then
		v=${v:1:${#v}-2}
	fi
	printf '%s' "$v"
}

# run_case DIR: run the case of folder DIR in $T/cases/NAME.
run_case() {
	local dir=$1 name key value line args=() rc_want="" n re
	name=${dir##*/}
	case_ "$name"
	local work=$T/cases/$name
	mkdir -p "$work"
	cp -a "$CASES_DIR/common/." "$work/"
	cp -a "$dir/." "$work/"
	rm -f "$work/case"
	echo '{"earlier": true}' >"$work/report.json"
	cp "$work/report.json" "$work/keep.json"

	# First pass: the command line and the exit code (both required).
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		args:*) read -ra args <<<"${line#args:}" ;;
		exit:*) rc_want=${line#exit:} rc_want=${rc_want// /} ;;
		esac
	done <"$dir/case"
	if [ ${#args[@]} -eq 0 ] || [ -z "$rc_want" ]; then
		fail "$dir/case needs 'args:' and 'exit:' lines"
		return
	fi
	cd "$work" || return
	run_k "${args[@]}"
	cd "$T" || exit 1
	expect_rc "$rc_want"

	# Second pass: what the user sees, and the files left behind.
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		'' | '#'* | args:* | exit:*) continue ;;
		esac
		key=${line%%:*}
		value=$(unquote "${line#*: }")
		case $key in
		stderr) expect_err "$value" ;;
		stderr-last) last_err_has "$value" ;;
		stderr-lines) # every line of stderr matches the ERE
			if grep -vE -- "$value" "$T/err" | grep -q .; then
				fail "a stderr line does not match '$value': $(cat "$T/err")"
			fi ;;
		stderr-count) # N ERE: exactly N lines of stderr match
			n=${value%% *}
			re=$(unquote "${value#* }")
			[ "$(grep -cE -- "$re" "$T/err")" -eq "$n" ] ||
				fail "expected $n stderr lines matching '$re': $(cat "$T/err")" ;;
		stdout)
			[ "$value" = empty ] || fail "$dir/case: 'stdout:' takes 'empty'"
			[ -s "$T/out" ] && fail "stdout is not empty: $(head -c 300 "$T/out")" ;;
		stdout-lacks)
			grep -qF -- "$value" "$T/out" && fail "stdout has '$value': $(cat "$T/out")" ;;
		absent) # a path (or glob) that must not exist afterwards
			compgen -G "$work/$value" >/dev/null && fail "'$value' exists afterwards" ;;
		unchanged) # byte for byte the file the case brought
			cmp -s "$dir/$value" "$work/$value" || fail "'$value' was modified" ;;
		symlink)
			[ -L "$work/$value" ] || fail "'$value' is no longer a symbolic link" ;;
		*) fail "$dir/case: unknown key '$key'" ;;
		esac
	done <"$dir/case"
	cmp -s "$work/report.json" "$work/keep.json" ||
		fail "the earlier report.json was modified"
	[ "$FAILS" -eq "$fails_before" ] && echo "ok $name"
}

n=0
for dir in "$CASES_DIR"/*/; do
	dir=${dir%/}
	[ -f "$dir/case" ] || continue
	fails_before=$FAILS
	run_case "$dir"
	n=$((n + 1))
done
case_ "the table holds its cases"
[ "$n" -ge 80 ] || fail "only $n cases in $CASES_DIR"

# ---- procedural cases -----------------------------------------------------

case_ "suite larger than 1 MiB"
mkdir -p "$T/huge" && cd "$T/huge" || exit 1
echo '{"earlier": true}' >report.json
cp report.json keep.json
"$PY" -c "
s = open('$CASES_DIR/common/ok.yaml').read() + 'description: \"' + 'a' * (2 * 1024 * 1024) + '\"\n'
open('huge.yaml', 'w').write(s)"
run_k run --quiet huge.yaml --format json --output report.json
expect_rc 2
expect_err "huge.yaml: the suite is larger than 1 MiB"
cmp -s report.json keep.json || fail "the earlier report.json was modified"

case_ "source: no system() or popen() in kagari"
hits=$(grep -rn 'system(\|popen(' "$KAGARI_SOURCE_DIR/src" | grep -v -e '^[^:]*:[0-9]*:\s*/\?\*' || true)
[ -z "$hits" ] || fail "system()/popen() in src/: $hits"

finish
