#!/bin/bash
# action.yml, step 4: put kagari on the PATH (this job's later steps get it
# too), run `kagari ci` with the inputs, print the report in the chosen
# format, write the HTML report beside the JSON one, and set the outputs
# exit-code, json, html and report-dir. kagari ci itself writes the job
# summary ($GITHUB_STEP_SUMMARY) and the annotations. Exits 0 when kagari
# ran, whatever its verdict: the action's last step fails with kagari's exit
# code after the reports are uploaded. Exits 3 on an invalid input.
#
# Inputs (environment): KAGARI_DIR (the installed tree), INPUT_SUITE,
# INPUT_ARGS, INPUT_FORMAT, INPUT_FAIL_ON_INCONCLUSIVE, INPUT_RUN ("false":
# only put kagari on the PATH).
set -uo pipefail
: "${GITHUB_OUTPUT:?not running in GitHub Actions (GITHUB_OUTPUT is unset)}"
kagari="${KAGARI_DIR:?KAGARI_DIR is unset}/bin/kagari"
[ -x "$kagari" ] || { echo "::error title=kagari::no kagari in $KAGARI_DIR/bin"; exit 1; }
[ -n "${GITHUB_PATH:-}" ] && echo "$KAGARI_DIR/bin" >>"$GITHUB_PATH"
case ${INPUT_RUN:-true} in
true) ;;
false)
	echo "kagari is installed in $KAGARI_DIR/bin (on the PATH of the next steps)"
	exit 0
	;;
*)
	echo "::error title=kagari::run is '$INPUT_RUN'; it takes true or false"
	exit 3
	;;
esac

format=${INPUT_FORMAT:-table}
case ${INPUT_FAIL_ON_INCONCLUSIVE:-false} in
true) inconclusive=(--fail-on-inconclusive) ;;
false | "") inconclusive=() ;;
*)
	echo "::error title=kagari::fail-on-inconclusive is '$INPUT_FAIL_ON_INCONCLUSIVE'; it takes true or false"
	exit 3
	;;
esac
# The format is checked before anything is built or measured.
if ! "$kagari" report --help | grep -- '--format FMT' | grep -qE "(: |, )$format(,|\$| )"; then
	echo "::error title=kagari::format '$format' is not a format of kagari report (kagari report --help)"
	exit 3
fi

out=${RUNNER_TEMP:-/tmp}/kagari-report
rm -rf "$out"
mkdir -p "$out"
# Extra arguments: split on white space, no glob expansion.
set -f
# shellcheck disable=SC2206
extra=(${INPUT_ARGS:-})
set +f
suite=()
[ -n "${INPUT_SUITE:-}" ] && suite=("$INPUT_SUITE")

echo "kagari ci --format json --output $out/kagari.json ${inconclusive[*]} ${extra[*]} ${suite[*]}"
rc=0
"$kagari" ci --format json --output "$out/kagari.json" "${inconclusive[@]}" "${extra[@]}" "${suite[@]}" || rc=$?

if [ -s "$out/kagari.json" ]; then
	if [ "$format" = json ]; then
		cat "$out/kagari.json"
	else
		"$kagari" report "$out/kagari.json" --format "$format" || true
	fi
	"$kagari" report "$out/kagari.json" --format html --output "$out/kagari.html" >/dev/null || true
fi
{
	echo "exit-code=$rc"
	echo "report-dir=$out"
	[ -s "$out/kagari.json" ] && echo "json=$out/kagari.json"
	[ -s "$out/kagari.html" ] && echo "html=$out/kagari.html"
} >>"$GITHUB_OUTPUT"
echo "kagari ci exited $rc"
exit 0
