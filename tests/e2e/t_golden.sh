#!/bin/bash
# Golden outputs: every fixed report of tests/data/golden/*.json rendered
# through `kagari report FILE --format F` in every format `report` writes,
# the WHOLE output compared byte for byte with its checked-in golden file
# tests/data/golden/out/NAME.F. The inputs fix everything a writer prints
# (dates, seed, git, machine, samples; tests/data/golden/make_inputs.py
# makes them); the one value they cannot fix, the running kagari's version,
# is written @KAGARI_VERSION@ in the goldens. Colour is off (stdout is a
# file, NO_COLOR=1) and `report` sets no terminal width, so `table` is
# never cut.
#
# A deliberate change of an output: regenerate and review the diff,
#	KAGARI_UPDATE_GOLDEN=1 ctest -R golden     (in the build folder)
# A failure prints the diff (golden first, then what kagari wrote).
. "$(dirname "$0")/lib.sh"

: "${KAGARI_SOURCE_DIR:?set KAGARI_SOURCE_DIR to the source tree}"
DIR=$KAGARI_SOURCE_DIR/tests/data/golden
FORMATS="table markdown github html csv samples-csv json junit hyperfine-json bmf"
VERSION=$("$KAGARI" --version | head -n 1 | awk '{print $2}')
[ -n "$VERSION" ] || { echo "cannot read the version of $KAGARI" >&2; exit 1; }
mkdir -p "$DIR/out"

# The formats must be every one `report --help` lists: a new format needs
# its golden too.
run_k help report
for f in $(sed -n 's/.*output format: \(.*\)/\1/p' "$T/out" | tr -d ',' | sed 's/([^)]*)//g'); do
	case " $FORMATS " in
	*" $f "*) ;;
	*) case_ "format list"; fail "report --help lists format '$f', which has no golden output" ;;
	esac
done

# The inputs make_inputs.py writes: a deleted one must not pass unnoticed.
for name in compare run merged profile odd; do
	[ -f "$DIR/$name.json" ] || { case_ "inputs"; fail "no input $DIR/$name.json (python3 tests/data/golden/make_inputs.py writes it)"; }
done

for in in "$DIR"/*.json; do
	name=$(basename "$in" .json)
	# The inputs too must be reports kagari could have written (check_schema).
	cp "$in" "$T/input-$name.json"
	want_rc=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["exit_code"])' "$in")
	for f in $FORMATS; do
		case_ "$name --format $f"
		NO_COLOR=1 "$KAGARI" report "$in" --format "$f" >"$T/raw" 2>"$T/err"
		RC=$?
		expect_rc "$want_rc"
		[ "$f" = json ] && cp "$T/raw" "$T/rendered-$name.json"
		# The version as a placeholder: sed with the version's dots literal.
		v=$(printf '%s' "$VERSION" | sed 's/[.[\*^$/]/\\&/g')
		sed "s/$v/@KAGARI_VERSION@/g" "$T/raw" >"$T/got"
		golden=$DIR/out/$name.$f
		if [ "${KAGARI_UPDATE_GOLDEN:-}" = 1 ]; then
			cp "$T/got" "$golden"
			echo "updated $golden"
		elif [ ! -f "$golden" ]; then
			fail "no golden file $golden (KAGARI_UPDATE_GOLDEN=1 ctest -R golden writes it)"
		elif ! cmp -s "$golden" "$T/got"; then
			fail "output differs from $golden:"
			diff -u "$golden" "$T/got" --label "golden $name.$f" --label "kagari report $name.json --format $f" | head -n 200 >&2
		fi
	done
done
finish
