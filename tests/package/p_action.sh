#!/bin/bash
# The GitHub Action (action.yml, scripts/action/*.sh; issue 25), its scripts
# run as the runner would run them: the build step (`make dist`, unpacked
# into the cached folder), the key step, and the run step with a simulated
# pull_request event (GITHUB_EVENT_PATH, as t_ci does) on a repository whose
# head is slower and over budget — exit code, annotations, job summary, the
# log's report in the chosen format, the JSON and HTML reports, the outputs
# and the PATH; invalid inputs; the gate step failing with kagari's code;
# and action.yml and the example workflow agree with the scripts. The
# inputs (issue 34): each bad one is exit 3 before kagari ci runs (a fake
# installed kagari records whether it was called, and with what), no value
# can forge an output, and history-push reaches kagari ci's command line.
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
# outputs: the names and values in $GITHUB_OUTPUT, read as the runner reads
# the file (NAME=VALUE lines, and NAME<<DELIMITER ... DELIMITER blocks), one
# NAME=VALUE a line with the value's newlines written \n.
outputs() {
	"$PY" - "$GITHUB_OUTPUT" <<'PYEOF'
import sys
lines = open(sys.argv[1], newline="").read().split("\n")
if lines and lines[-1] == "":
    lines.pop()
i = 0
while i < len(lines):
    line = lines[i]
    eq, here = line.find("="), line.find("<<")
    if eq >= 0 and (here < 0 or eq < here):
        name, value = line[:eq], line[eq + 1:]
    else:
        assert here > 0, "malformed line %r" % line
        name, delim, body = line[:here], line[here + 2:], []
        i += 1
        while lines[i] != delim:
            body.append(lines[i])
            i += 1
        value = "\n".join(body)
    print("%s=%s" % (name, value.replace("\n", "\\n")))
    i += 1
PYEOF
}
# output NAME: the last value the steps wrote for NAME.
output() { outputs | sed -n "s/^$1=//p" | tail -n 1; }

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

# A fake installed kagari for the checks of the inputs: `kagari ci` records
# its arguments (one a line) and writes a report that is not one; anything
# else is the kagari under test (report --list-formats).
FAKE="$T/fake"
mkdir -p "$FAKE/bin" "$T/ws"
{
	echo '#!/bin/bash'
	echo 'if [ "$1" = ci ]; then'
	echo '	printf "%s\n" "$@" >"$CI_ARGS"'
	echo '	while [ $# -gt 0 ]; do [ "$1" = --output ] && echo "{}" >"$2"; shift; done'
	echo '	exit "${FAKE_RC:-0}"'
	echo 'fi'
	echo 'exec "$REAL_KAGARI" "$@"'
} >"$FAKE/bin/kagari"
chmod +x "$FAKE/bin/kagari"
: >"$T/ws/kagari.yaml"
# fake_step SCRIPT VAR=VALUE...: scripts/action/SCRIPT in $T/ws with the
# fake kagari and these inputs (the action's defaults for the others).
fake_step() {
	local script=$1
	shift
	: >"$GITHUB_OUTPUT"
	rm -f "$T/ci-args"
	(cd "$T/ws" && env KAGARI_DIR="$FAKE" REAL_KAGARI="$KAGARI" CI_ARGS="$T/ci-args" \
		INPUT_SUITE= INPUT_ARGS= INPUT_FORMAT=table INPUT_FAIL_ON_INCONCLUSIVE=false \
		INPUT_HISTORY_PUSH=false INPUT_RUN=true "$@" \
		bash "$SRC/scripts/action/$script" >"$T/out" 2>"$T/err")
	RC=$?
}
# bad_input VAR=VALUE MESSAGE: the check step and the run step both stop
# with exit 3 and MESSAGE, each line an ::error, and kagari ci never ran.
bad_input() {
	local script
	for script in check.sh run.sh; do
		fake_step "$script" "$1"
		[ "$RC" -eq 3 ] || fail "$script with $1: exit $RC, expected 3; $(cat "$T/out" "$T/err")"
		grep -qF -- "$2" "$T/out" || fail "$script with $1: no '$2' in $(cat "$T/out")"
		[ "$(grep -c '' "$T/out")" -eq "$(grep -c '^::error title=kagari::' "$T/out")" ] ||
			fail "$script with $1: a line that is not an ::error: $(cat "$T/out")"
		[ ! -e "$T/ci-args" ] || fail "$script with $1 still ran kagari ci"
		[ -z "$(outputs)" ] || fail "$script with $1 set outputs: $(outputs)"
	done
}

case_ "inputs: the format is an exact name of kagari report --list-formats"
"$KAGARI" report --list-formats >formats.txt || fail "report --list-formats failed"
for f in table json markdown junit; do
	grep -qx "$f" formats.txt || fail "report --list-formats lacks $f: $(cat formats.txt)"
done
bad_input "INPUT_FORMAT=.*" "format '.*' is not a format"
bad_input "INPUT_FORMAT=j.on" "format 'j.on' is not a format"
bad_input "INPUT_FORMAT=table|nope" "format 'table|nope' is not a format"
bad_input "INPUT_FORMAT=" "format '' is not a format"
# A newline: refused, and the message stays on its one line (escaped), so
# the second line cannot become a workflow command of its own.
bad_input "INPUT_FORMAT=table
::warning::forged" "format 'table%0A::warning::forged' is not a format"
grep -q '^::warning' "$T/out" && fail "a format's newline started a workflow command: $(cat "$T/out")"
# Letters and '-' pass the check step; only kagari's list tells 'xml' or
# 'tab' from a format.
for f in xml tab json-; do
	fake_step check.sh INPUT_FORMAT=$f
	expect_rc 0
	fake_step run.sh INPUT_FORMAT=$f
	expect_rc 3
	expect_out "format '$f' is not a format (one of: table json"
	[ ! -e "$T/ci-args" ] || fail "format $f still ran kagari ci"
done
for f in $(cat formats.txt); do
	fake_step run.sh INPUT_FORMAT="$f"
	expect_rc 0
	[ -e "$T/ci-args" ] || fail "format $f did not run kagari ci: $(cat "$T/out" "$T/err")"
done

case_ "inputs: true/false inputs take exactly true or false"
for name in RUN FAIL_ON_INCONCLUSIVE HISTORY_PUSH; do
	input=$(echo "$name" | tr 'A-Z_' 'a-z-')
	for v in yes True 1 "" "true " "no"; do
		bad_input "INPUT_$name=$v" "$input is '$v'; it takes true or false"
	done
	bad_input "INPUT_$name=false
true" "$input is 'false%0Atrue'; it takes true or false"
done

case_ "inputs: the suite exists and is not an option"
bad_input "INPUT_SUITE=-x" "suite '-x' starts with '-'"
bad_input "INPUT_SUITE=--help" "suite '--help' starts with '-'"
bad_input "INPUT_SUITE=missing.yaml" "suite 'missing.yaml' does not exist"
fake_step run.sh INPUT_SUITE=kagari.yaml
expect_rc 0
[ "$(tail -n 1 "$T/ci-args")" = kagari.yaml ] || fail "the suite is not kagari ci's last argument: $(cat "$T/ci-args")"

case_ "inputs: args split on white space, no globbing; history-push adds --history-push"
touch "$T/ws/glob-me"
fake_step run.sh INPUT_ARGS="--seed 5   --tag a,b	--filter *" INPUT_HISTORY_PUSH=true
expect_rc 0
printf '%s\n' ci --format json --output "$T/runner/kagari-report/kagari.json" --history-push \
	--seed 5 --tag a,b --filter '*' >want-args
diff want-args "$T/ci-args" >/dev/null || fail "kagari ci's arguments: $(diff want-args "$T/ci-args")"
expect_out "--history-push --seed 5 --tag a\\,b --filter \\*" # quoted as bash's %q
fake_step run.sh INPUT_HISTORY_PUSH=false
grep -qx -- --history-push "$T/ci-args" && fail "history-push false still passes --history-push"
fake_step run.sh INPUT_HISTORY_PUSH=true INPUT_FAIL_ON_INCONCLUSIVE=true
grep -qx -- --history-push "$T/ci-args" && grep -qx -- --fail-on-inconclusive "$T/ci-args" ||
	fail "history-push and fail-on-inconclusive together: $(cat "$T/ci-args")"

case_ "outputs: a value holding newlines cannot add or change an output"
# The runner's temporary folder is the one value that reaches the outputs
# from outside: a name that tries to set exit-code and json.
evil="$T/runner
exit-code=0
json=/etc/passwd
x"
mkdir -p "$evil"
fake_step run.sh RUNNER_TEMP="$evil" FAKE_RC=1
expect_rc 0
[ "$(output exit-code)" = 1 ] || fail "exit-code output '$(output exit-code)', expected 1: $(outputs)"
[ "$(output json)" = "$T/runner\\nexit-code=0\\njson=/etc/passwd\\nx/kagari-report/kagari.json" ] ||
	fail "json output '$(output json)': $(outputs)"
[ "$(outputs | cut -d= -f1 | sort | tr '\n' ' ')" = "exit-code json report-dir " ] ||
	fail "outputs other than exit-code, json and report-dir: $(outputs)"
# The command line in the log stays one line, whatever the arguments hold.
[ "$(grep -c '^kagari ci --' "$T/out")" = 1 ] && ! grep -q '^exit-code=' "$T/out" ||
	fail "the logged command line spans lines: $(cat "$T/out")"
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
		INPUT_FAIL_ON_INCONCLUSIVE=false INPUT_HISTORY_PUSH=false INPUT_RUN=true "$@" \
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

case_ "invalid inputs stop before anything is measured (the installed kagari)"
run_step INPUT_FORMAT=xml
expect_rc 3
expect_out "format 'xml' is not a format"
[ -z "$(output exit-code)" ] || fail "an invalid format still ran kagari"
run_step INPUT_FORMAT=j.on
expect_rc 3
expect_out "format 'j.on' is not a format"
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
# The inputs are checked first, before the cache and the build: every input
# lib.sh checks reaches the check step, and the run step too.
assert steps[0]["run"].endswith('scripts/action/check.sh"'), steps[0]
lib = open(os.path.join(src, "scripts/action/lib.sh")).read()
checked = set(re.findall(r"\$\{(INPUT_[A-Z_]+)-", lib))
assert {"INPUT_FORMAT", "INPUT_HISTORY_PUSH", "INPUT_SUITE", "INPUT_RUN"} <= checked, checked
run = [s for s in steps if s.get("id") == "run"][0]
for s in (steps[0], run):
    assert checked <= set(s["env"]), (s["name"], checked - set(s["env"]))
    for k in checked:
        assert s["env"][k] == "${{ inputs.%s }}" % k[6:].lower().replace("_", "-"), k
assert a["inputs"]["history-push"]["default"] == "false"
assert "contents: write" in a["inputs"]["history-push"]["description"]
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
