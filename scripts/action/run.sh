#!/bin/bash
# action.yml, step 5: put kagari on the PATH (this job's later steps get it
# too), run `kagari ci` with the inputs, print the report in the chosen
# format, write the HTML report beside the JSON one, and set the outputs
# exit-code, json, html and report-dir. kagari ci itself writes the job
# summary ($GITHUB_STEP_SUMMARY) and the annotations. Exits 0 when kagari
# ran, whatever its verdict: the action's last step fails with kagari's exit
# code after the reports are uploaded. Exits 3 on an invalid input, before
# anything is built or measured (scripts/action/lib.sh).
#
# Inputs (environment): KAGARI_DIR (the installed tree), INPUT_SUITE,
# INPUT_ARGS, INPUT_FORMAT, INPUT_FAIL_ON_INCONCLUSIVE, INPUT_HISTORY_PUSH
# ("true": kagari ci --history-push), INPUT_RUN ("false": only put kagari
# on the PATH).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
: "${GITHUB_OUTPUT:?not running in GitHub Actions (GITHUB_OUTPUT is unset)}"
kagari="${KAGARI_DIR:?KAGARI_DIR is unset}/bin/kagari"
[ -x "$kagari" ] || { gh_error "no kagari in $KAGARI_DIR/bin"; exit 1; }
check_inputs || exit 3
[ -n "${GITHUB_PATH:-}" ] && printf '%s\n' "$KAGARI_DIR/bin" >>"$GITHUB_PATH"
if [ "${INPUT_RUN-true}" = false ]; then
	echo "kagari is installed in $KAGARI_DIR/bin (on the PATH of the next steps)"
	exit 0
fi
# The exact format name, from kagari's own list, before anything is built
# or measured.
check_format "$kagari" || exit 3
format=${INPUT_FORMAT-table}
flags=()
[ "${INPUT_FAIL_ON_INCONCLUSIVE-false}" = true ] && flags+=(--fail-on-inconclusive)
[ "${INPUT_HISTORY_PUSH-false}" = true ] && flags+=(--history-push)

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

cmd=("$kagari" ci --format json --output "$out/kagari.json" "${flags[@]}" "${extra[@]}" "${suite[@]}")
# The command line, quoted, on one line (a word cannot start a workflow command).
printf 'kagari ci'
printf ' %q' "${cmd[@]:2}"
printf '\n'
rc=0
"${cmd[@]}" || rc=$?

if [ -s "$out/kagari.json" ]; then
	if [ "$format" = json ]; then
		cat "$out/kagari.json"
	else
		"$kagari" report "$out/kagari.json" --format "$format" || true
	fi
	"$kagari" report "$out/kagari.json" --format html --output "$out/kagari.html" >/dev/null || true
fi
gh_output exit-code "$rc"
gh_output report-dir "$out"
[ -s "$out/kagari.json" ] && gh_output json "$out/kagari.json"
[ -s "$out/kagari.html" ] && gh_output html "$out/kagari.html"
echo "kagari ci exited $rc"
exit 0
