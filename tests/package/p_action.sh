#!/bin/bash
# The GitHub Action (action.yml, scripts/action/*.sh; issue 25), its scripts
# run as the runner would run them: the build step (`make dist`, unpacked
# into the cached folder), the key step, and the run step with a simulated
# pull_request event (GITHUB_EVENT_PATH, as t_ci does) on a repository whose
# head is slower and over budget — exit code, annotations, job summary, the
# log's report in the chosen format, the JSON and HTML reports, the outputs
# and the PATH; invalid inputs; the gate step failing with kagari's code;
# and action.yml and the example workflow agree with the scripts.
. "${KAGARI_SOURCE_DIR:?}/tests/e2e/lib.sh"
SRC=$KAGARI_SOURCE_DIR
BUILD=${KAGARI_BUILD_DIR:?}
git_sandbox
unset KAGARI_BASE_REF GITLAB_CI CI_MERGE_REQUEST_DIFF_BASE_SHA CI_COMMIT_BEFORE_SHA KAGARI_ALLOC_SHIM
# One core for the build: under ctest -j2 the timing tests beside it keep theirs.
export CMAKE_BUILD_PARALLEL_LEVEL=1

for p in zlib1g-dev libyaml-dev libjansson-dev libsqlite3-dev libelf-dev; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		skip_test "the action's build step (make dist) needs $p" "$p"
done

GH="$T/gh"
mkdir -p "$GH" "$T/runner" "$T/toolcache"
export GITHUB_ACTIONS=true GITHUB_ACTION_PATH=$SRC RUNNER_TEMP="$T/runner" \
	RUNNER_TOOL_CACHE="$T/toolcache" GITHUB_OUTPUT="$GH/output" GITHUB_PATH="$GH/path" \
	GITHUB_STEP_SUMMARY="$GH/summary"
# output NAME: the last value the steps wrote for NAME to $GITHUB_OUTPUT.
output() { sed -n "s/^$1=//p" "$GITHUB_OUTPUT" | tail -n 1; }

case_ "key step: key and folder, the same for the same source"
bash "$SRC/scripts/action/key.sh" >key.out 2>&1 || fail "key.sh failed: $(cat key.out)"
key=$(output key)
dir=$(output dir)
version=$("$KAGARI" version | head -n 1 | awk '{print $2}')
case $key in "kagari-$version-"*-"$(uname -m)"-*) ;; *) fail "key '$key'" ;; esac
case $dir in "$T/toolcache/kagari/$version-"*) ;; *) fail "dir '$dir'" ;; esac
: >"$GITHUB_OUTPUT"
bash "$SRC/scripts/action/key.sh" >/dev/null 2>&1
[ "$(output key)" = "$key" ] || fail "a second key differs: $(output key)"

case_ "build step (cache miss): make dist unpacked into the cached folder"
KAGARI_DIR=$dir KAGARI_DIST_BUILD=$BUILD bash "$SRC/scripts/action/build.sh" >build.out 2>&1 ||
	fail "build.sh failed: $(tail -n 30 build.out)"
[ -x "$dir/bin/kagari" ] && [ -x "$dir/lib/kagari/kagari-runner" ] && [ -f "$dir/lib/kagari/libkagari-alloc.so" ] ||
	fail "the cached folder lacks kagari, its runner or its shim: $(find "$dir" -maxdepth 3 | head)"
grep -q '; statically linked$' build.out || fail "the cached kagari is not the static one: $(tail -n 5 build.out)"

# A repository whose pull request makes a command 20x slower and breaks
# a budget (as t_ci's): kagari ci must exit 1.
R="$T/repo"
mkdir -p "$R" && cd "$R" || exit 1
g init -q .
suite() { # SLEEP_MS
	cat >kagari.yaml <<YAML
version: "1"
name: action-demo
defaults: {warmup: 0, runs: 12}
benchmarks:
  - name: nap
    commands:
      nap:
        command: ["$H", "sleep", "$1"]
        budget: {latency: {max: "<= 1ns"}}
YAML
}
suite 2
g add -A && g commit -qm base
BASE=$(g rev-parse HEAD)
suite 40
g commit -qam slower
HEAD_SHA=$(g rev-parse HEAD)
printf '{"action":"synchronize","pull_request":{"number":7,"base":{"ref":"main","sha":"%s"},"head":{"sha":"%s"}}}\n' \
	"$BASE" "$HEAD_SHA" >"$T/event.json"
export GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$T/event.json" GITHUB_WORKSPACE=$R

# run_step VAR=VALUE...: the action's run step with these inputs.
run_step() {
	: >"$GITHUB_OUTPUT"
	env KAGARI_DIR="$dir" INPUT_SUITE= INPUT_ARGS= INPUT_FORMAT=table \
		INPUT_FAIL_ON_INCONCLUSIVE=false INPUT_RUN=true "$@" \
		bash "$SRC/scripts/action/run.sh" >"$T/out" 2>"$T/err"
	RC=$?
}

case_ "run step on a pull_request event: the verdict, reports and outputs"
run_step INPUT_SUITE=kagari.yaml INPUT_ARGS="--seed 5 --no-history"
expect_rc 0
[ "$(output exit-code)" = 1 ] || fail "exit-code output '$(output exit-code)', expected 1; stderr: $(tail -c 1500 "$T/err")"
expect_out "kagari ci --format json"
expect_out "--seed 5 --no-history kagari.yaml"
expect_out "nap"                # the table in the log
expect_out "kagari ci exited 1"
expect_err "::error"            # annotations
expect_err "title=budget exceeded"
json=$(output json)
html=$(output html)
[ "$json" = "$T/runner/kagari-report/kagari.json" ] || fail "json output '$json'"
[ "$html" = "$T/runner/kagari-report/kagari.html" ] || fail "html output '$html'"
[ "$(output report-dir)" = "$T/runner/kagari-report" ] || fail "report-dir output '$(output report-dir)'"
# The base is the event's; the budget (1 ns) fails whatever the machine.
json_check "$json" "r['mode'] == 'compare' and r['git']['base_sha'] == '$BASE' and r['seed'] == 5 and r['summary']['exit_code'] == 1"
grep -qi '<html' "$html" || fail "kagari.html is not HTML"
grep -q 'nap' "$GITHUB_STEP_SUMMARY" || fail "the job summary lacks the benchmark: $(head -c 500 "$GITHUB_STEP_SUMMARY")"
grep -qx "$dir/bin" "$GITHUB_PATH" || fail "kagari is not on the PATH of the next steps: $(cat "$GITHUB_PATH")"

case_ "the gate step fails with kagari's exit code"
gate=$("$PY" -c '
import sys, yaml
a = yaml.safe_load(open(sys.argv[1]))
s = [s for s in a["runs"]["steps"] if s.get("name") == "Gate on kagari'"'"'s exit code"][0]
print(s["run"])' "$SRC/action.yml") || fail "no gate step in action.yml"
KAGARI_EXIT=1 bash -c "$gate"
[ $? -eq 1 ] || fail "the gate step does not exit 1 for exit-code 1"
KAGARI_EXIT=0 bash -c "$gate" || fail "the gate step fails for exit-code 0"

case_ "format markdown, fail-on-inconclusive true"
run_step INPUT_FORMAT=markdown INPUT_FAIL_ON_INCONCLUSIVE=true INPUT_ARGS="--seed 5 --no-history"
expect_rc 0
[ "$(output exit-code)" = 1 ] || fail "exit-code output '$(output exit-code)'"
expect_out "--fail-on-inconclusive"
grep -q '^|' "$T/out" || fail "no Markdown table in the log: $(head -c 800 "$T/out")"

case_ "invalid inputs stop before anything is measured"
run_step INPUT_FORMAT=xml
expect_rc 3
expect_out "format 'xml'"
run_step INPUT_FAIL_ON_INCONCLUSIVE=yes
expect_rc 3
expect_out "fail-on-inconclusive is 'yes'"
[ -z "$(output exit-code)" ] || fail "an invalid input still ran kagari"

case_ "run: false only installs"
: >"$GITHUB_PATH"
run_step INPUT_RUN=false
expect_rc 0
[ -z "$(output exit-code)" ] || fail "run: false still ran kagari ci"
grep -qx "$dir/bin" "$GITHUB_PATH" || fail "run: false did not put kagari on the PATH"

case_ "action.yml: every script exists, every input reaches the run step; the example uses them"
"$PY" - "$SRC" <<'PYEOF' || fail "action.yml or the example workflow is inconsistent"
import os, re, sys, yaml
src = sys.argv[1]
a = yaml.safe_load(open(os.path.join(src, "action.yml")))
assert a["runs"]["using"] == "composite"
inputs = set(a["inputs"])
assert {"suite", "args", "format", "fail-on-inconclusive"} <= inputs, inputs
steps = a["runs"]["steps"]
for s in steps:
    for script in re.findall(r'\$GITHUB_ACTION_PATH/(\S+\.sh)', s.get("run", "")):
        assert os.path.isfile(os.path.join(src, script)), script
used = set(re.findall(r"inputs\.([a-z-]+)", open(os.path.join(src, "action.yml")).read()))
assert inputs <= used, inputs - used
assert any(s.get("uses", "").startswith("actions/cache@") for s in steps)
up = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@")]
assert up and "always()" in up[0]["if"]
for f in ("kagari.yml", "kagari-matrix.yml"):
    w = yaml.safe_load(open(os.path.join(src, "examples/github-actions", f)))
    uses = [s for j in w["jobs"].values() for s in j["steps"] if "/kagari@" in s.get("uses", "")]
    assert uses, f
    for s in uses:
        assert set(s.get("with", {})) <= inputs, (f, set(s["with"]) - inputs)
PYEOF
finish
