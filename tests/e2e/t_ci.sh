#!/bin/bash
# kagari ci and kagari report on a real git repository made here: the base
# sha from GitHub event files (pull_request, merge_group, push) and each
# refusal, --against and $KAGARI_BASE_REF taking precedence, annotations on
# stderr (stdout stays clean JSON), the step summary appended with the
# existing content kept, exit codes, the shallow-clone hint; then `report`
# re-rendering the saved JSON with the same verdicts, samples and exit code.
. "$(dirname "$0")/lib.sh"

export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE KAGARI_BASE_REF GITHUB_EVENT_NAME \
	GITHUB_EVENT_PATH GITHUB_STEP_SUMMARY GITHUB_WORKSPACE \
	GITLAB_CI CI_MERGE_REQUEST_DIFF_BASE_SHA CI_COMMIT_BEFORE_SHA
g() { git -c user.name=t -c user.email=t@t -c core.hooksPath=/dev/null -c init.defaultBranch=main "$@"; }

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
# The head sleeps 40 ms where the base slept 2 ms, and a budget of 1 ns
# fails whatever the machine: exit 1 and a `budget exceeded` annotation.
suite() { # SLEEP_MS
	cat > kagari.yaml <<YAML
version: "1"
name: ci-demo
defaults: {warmup: 0, runs: 12}
benchmarks:
  - name: "sl,1%"
    commands:
      nap:
        command: ["$H", "sleep", "$1"]
        budget: {latency: {max: "<= 1ns"}}
  - name: quick
    tags: [quick]
    # The cases filtered to 'quick' check how the base is chosen, not a
    # verdict: a 1 ms sleep on both sides at runs: 12 (six rounds) can lose
    # all six rounds to load on a busy 2-core machine, so it does not gate.
    regression: {latency: {max_percent: 10, gate: false}}
    commands:
      q: {command: ["$H", "sleep", "1"]}
YAML
}
suite 2
g add -A
g commit -qm base
BASE=$(g rev-parse HEAD)
suite 40
g commit -qam slower
HEAD_SHA=$(g rev-parse HEAD)
ZERO=0000000000000000000000000000000000000000

EV="$T/events"
mkdir -p "$EV"
printf '{"action":"synchronize","pull_request":{"number":1,"base":{"ref":"main","sha":"%s"},"head":{"sha":"%s"}}}\n' "$BASE" "$HEAD_SHA" > "$EV/pr.json"
printf '{"merge_group":{"base_sha":"%s","head_sha":"%s"}}\n' "$BASE" "$HEAD_SHA" > "$EV/mg.json"
printf '{"ref":"refs/heads/main","before":"%s","after":"%s"}\n' "$BASE" "$HEAD_SHA" > "$EV/push.json"
printf '{"ref":"refs/heads/new","before":"%s","after":"%s"}\n' "$ZERO" "$HEAD_SHA" > "$EV/push0.json"
printf '{"inputs":{}}\n' > "$EV/wd.json"
printf '{"pull_request":{"base":{"sha":"%s"}}\n' "$BASE" > "$EV/broken.json"

# ci_env NAME FILE ARGS...: kagari ci with a GitHub event.
# no_runner_command FILE [WORD...]: what a GitHub runner reads in FILE —
# lines split at LF, CR LF and a lone CR, leading Unicode white space
# trimmed (Python's lstrip() trims what .NET's TrimStart() does; neither
# trims U+200B) — holds no workflow command but kagari's own annotations
# and ::stop-commands:: fences, no "##[" (the older form, read anywhere in
# a line), and no WORD outside a fence.
no_runner_command() {
	"$PY" - "$@" <<'PYEOF'
import re, sys
text = open(sys.argv[1], encoding="utf-8", newline="").read()
words = sys.argv[2:]
stopped, token = False, None
for line in re.split(r"\r\n|\r|\n", text):
    t = line.lstrip()
    if stopped:
        if t == "::%s::" % token:
            stopped = False
        continue
    m = re.match(r"::stop-commands::(kagari-[0-9a-f]{32})$", t)
    if m:
        stopped, token = True, m.group(1)
        continue
    assert "##[" not in t, t
    if re.match(r"::(error|warning|notice) title=[a-z ]+(,file=[^:,]*(,line=[0-9]+)?)?::", t):
        continue  # kagari's own annotation, its text escaped
    assert not t.startswith("::"), t
    for w in words:
        assert w not in t, t
PYEOF
}

ci_env() {
	local name=$1 file=$2
	shift 2
	GITHUB_EVENT_NAME=$name GITHUB_EVENT_PATH=$file run_k ci "$@"
}

case_ "no base anywhere: usage error naming the three sources"
run_k ci --quiet
expect_rc 3
expect_err "--against"
expect_err "KAGARI_BASE_REF"
expect_err "GITHUB_EVENT_PATH"
expect_err "CI_MERGE_REQUEST_DIFF_BASE_SHA"

case_ "pull_request_target is refused with the reason"
ci_env pull_request_target "$EV/pr.json" --quiet
expect_rc 3
expect_err "GITHUB_EVENT_NAME is 'pull_request_target': kagari ci refuses to build or run anything"
expect_err "write token and the repository's secrets"

case_ "pull_request_target is refused whatever names the base, by every command that builds or runs"
KAGARI_BASE_REF=HEAD~1 ci_env pull_request_target "$EV/pr.json" --format json --filter quick --quiet
expect_rc 3
expect_err "GITHUB_EVENT_NAME is 'pull_request_target': kagari ci refuses to build or run anything"
expect_err "--allow-pull-request-target"
ci_env pull_request_target "$EV/pr.json" --against "$BASE" --filter quick --quiet
expect_rc 3
for args in "compare --against $BASE --filter quick" "run --filter quick" \
	"aa --repeat 2 --filter quick" "bisect --good $BASE --bad HEAD --filter quick" \
	"bench --runs 2 true"; do
	GITHUB_EVENT_NAME=pull_request_target run_k $args --quiet
	expect_rc 3
	expect_err "GITHUB_EVENT_NAME is 'pull_request_target': kagari ${args%% *} refuses"
	[ -s "$T/out" ] && fail "${args%% *} wrote a report under pull_request_target"
done
# Commands that run nothing are not refused.
GITHUB_EVENT_NAME=pull_request_target run_k list
expect_rc 0
GITHUB_EVENT_NAME=pull_request_target run_k validate
expect_rc 0

case_ "--allow-pull-request-target is the one opt-out: ci reads the event's base, run and bench run"
ci_env pull_request_target "$EV/pr.json" --allow-pull-request-target --format json --filter quick --quiet
expect_rc 0
json_check "$T/out" "r['git']['base_sha'] == '$BASE'"
GITHUB_EVENT_NAME=pull_request_target run_k run --filter quick --runs 2 --allow-pull-request-target --quiet --no-history
expect_rc 0
GITHUB_EVENT_NAME=pull_request_target run_k bench --runs 2 --allow-pull-request-target true
expect_rc 0
grep -q -- '--allow-pull-request-target' "${KAGARI_SOURCE_DIR:?}/SECURITY.md" || fail "SECURITY.md does not document the opt-out"

case_ "a failing program's stderr cannot issue workflow commands under ci"
cat > inject.kagari.yaml <<'YAML'
version: "1"
name: inject
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: hostile
    commands:
      say:
        command: "printf '::error::pwned\\n  ::stop-commands::evil\\nfine\\r::warning::after-cr\\n##[error]v1\\n' >&2; exit 3"
        shell: true
YAML
GITHUB_STEP_SUMMARY="$T/inj.md" ci_env pull_request "$EV/pr.json" inject.kagari.yaml --quiet --no-history
expect_rc 4
# The table on standard output shows the tail (stderr does not repeat it).
expect_out "| ::error::pwned"
expect_out "| fine"
# No line of the program's may be a workflow command (the table also shows
# the suite's command line, so its words are there), and on stderr its
# words stay inside the fence.
no_runner_command "$T/out" ||
	fail "the stderr tail reached the runner as workflow commands: $(cat "$T/out")"
no_runner_command "$T/err" pwned evil after-cr v1 ||
	fail "the stderr tail reached the runner as workflow commands: $(cat "$T/err")"
# Without the table there, stderr carries it, as safely.
GITHUB_STEP_SUMMARY="$T/inj.md" ci_env pull_request "$EV/pr.json" inject.kagari.yaml --quiet --no-history --format json --output "$T/inj.json"
expect_rc 4
expect_err "| ::error::pwned"
expect_err "| fine"
no_runner_command "$T/err" pwned evil after-cr v1 ||
	fail "the stderr tail reached the runner as workflow commands: $(cat "$T/err")"
rm -f inject.kagari.yaml

case_ "names and a stderr tail cannot issue workflow commands through the report on standard output"
# What a GitHub runner reads as a command: a line starting with "::" after
# any Unicode white space (here NBSP and the ideographic space), and the
# older "##[" form anywhere in a line.
printf '%s\n' 'version: "1"' 'name: named' 'defaults: {warmup: 0, runs: 2}' 'benchmarks:' \
	'  - name: "::error::pwned-by-name"' '    commands:' '      x: {command: ["true"]}' \
	'  - name: "a ##[error]pwned-v1"' '    commands:' '      x: {command: ["true"]}' \
	"  - name: \"$(printf '\302\240')::warning::pwned-nbsp\"" '    commands:' '      x: {command: ["true"]}' \
	"  - name: \"$(printf '\343\200\200')::notice::pwned-ideo\"" '    commands:' '      x: {command: ["true"]}' \
	'  - name: tail' '    commands:' \
	"      x: {command: \"printf 'x ##[error]v1-from-stderr\\\\n  ::error::tail-pwned\\\\n' >&2; exit 3\", shell: true}" \
	> named.kagari.yaml
ci_env pull_request "$EV/pr.json" named.kagari.yaml --quiet --no-history
expect_rc 4
for f in "$T/out" "$T/err"; do
	no_runner_command "$f" ||
		fail "$(basename "$f"): a line reached the runner as a workflow command: $(cat "$f")"
done
# The names are all there to read (the break is invisible).
tr -d '\342\200\213' < "$T/out" > "$T/out.plain"
for n in "::error::pwned-by-name" "a ##[error]pwned-v1" "::warning::pwned-nbsp" "::notice::pwned-ideo"; do
	grep -qF -- "$n" "$T/out.plain" || fail "the report lacks the name '$n'"
done
# Outside a GitHub runner's ci the table is printed as it is.
run_k run named.kagari.yaml --quiet --no-history --filter '^a '
grep -qF "a ##[error]pwned-v1" "$T/out" || fail "run changed a name outside ci: $(cat "$T/out")"
rm -f named.kagari.yaml

case_ "a push that created the branch has no before"
ci_env push "$EV/push0.json" --quiet
expect_rc 3
expect_err "all zeros"

case_ "another event asks for --against"
ci_env workflow_dispatch "$EV/wd.json" --quiet
expect_rc 3
expect_err "'workflow_dispatch' event names no base commit; pass --against REV"

case_ "a missing or invalid event file"
ci_env pull_request "$EV/nope.json" --quiet
expect_rc 3
expect_err "cannot read the GitHub event file"
ci_env pull_request "$EV/broken.json" --quiet
expect_rc 3
expect_err "broken.json:2:"
expect_err "invalid JSON"

case_ "pull_request: base sha, annotations on stderr, summary appended"
printf '# Earlier step\n\nkept as it was' > "$T/summary.md"
# kagari's own untracked files (.kagari/, where the history goes) change
# no commit (docs/contract.md, git.dirty).
mkdir -p "$R/.kagari"
echo "notes" > "$R/.kagari/untracked.txt"
GITHUB_STEP_SUMMARY="$T/summary.md" GITHUB_WORKSPACE="$R" \
	ci_env pull_request "$EV/pr.json" --format json --output "$T/ci.json" --seed 7
expect_rc 1
expect_err "comparing with $BASE (from the 'pull_request' event)"
expect_err "::error title=budget exceeded,file=kagari.yaml,line=5::sl,1%25/nap: latency max "
expect_err ", budget <= 1ns"
[ -s "$T/out" ] && fail "stdout is not empty with --output: $(head -c 300 "$T/out")"
# The annotations come before the closing sentence, which is the last line.
tail -n 1 "$T/err" | grep -q '^kagari: error: ' || fail "last stderr line: $(tail -n 1 "$T/err")"
grep -q '^::' "$T/err" || fail "no annotation line"
# Every annotation line is one of the fixed titles and escaped.
grep '^::' "$T/err" | grep -vE '^::(error|warning|notice) title=(regression|budget exceeded|inconclusive|metric unsupported|benchmark failed)(,file=[^:,]*(,line=[0-9]+)?)?::' &&
	fail "an annotation with an unexpected form"
head -c 37 "$T/summary.md" | grep -q '^# Earlier step$' || fail "summary head lost"
grep -q '^kept as it was$' "$T/summary.md" || fail "existing summary content changed or joined: $(head -5 "$T/summary.md")"
[ "$(wc -l < "$T/summary.md")" -gt 4 ] || fail "nothing appended to the step summary"
grep -q 'budget' "$T/summary.md" || fail "summary lacks the budget: $(cat "$T/summary.md")"
json_check "$T/ci.json" "r['mode'] == 'compare' and r['git']['base_sha'] == '$BASE' and r['seed'] == 7 and r['summary']['exit_code'] == 1"
# If the 20x slower head was judged a regression (it should be), it is annotated.
if "$PY" -c "import json,sys; r=json.load(open('$T/ci.json')); c=r['suites'][0]['benchmarks'][0]['commands'][0]; sys.exit(0 if c['comparisons']['latency']['verdict']=='regression' else 1)"; then
	expect_err "::error title=regression,file=kagari.yaml,line=5::sl,1%25/nap latency: "
fi
cp "$T/err" "$T/ci.err"
rm "$R/.kagari/untracked.txt"
json_check "$T/ci.json" "r['git']['dirty'] == False"
grep -q "uncommitted" "$T/summary.md" && fail "an untracked file made the tree dirty: $(grep uncommitted "$T/summary.md")"

case_ "the summary names a base given as a sha once, short; the environment table has its full sha once"
S12=${BASE:0:12}
grep -qF "base $S12 → head ${HEAD_SHA:0:12}" "$T/summary.md" || fail "summary header: $(grep '→ head' "$T/summary.md")"
grep -qF "**$BASE**" "$T/summary.md" && fail "the full sha in bold: $(grep -F "**$BASE**" "$T/summary.md")"
grep -qF "($S12)" "$T/summary.md" && fail "the sha twice: $(grep -F "($S12)" "$T/summary.md")"
row=$(grep -F "| git base |" "$T/summary.md")
[ "$(grep -o "$BASE" <<<"$row" | wc -l)" -eq 1 ] || fail "git base row: $row"
# A ref that is a name is kept beside the sha.
run_k report "$T/ci.json" --format markdown
python3 - "$T/ci.json" "$T/named.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1])); r['git']['base_ref'] = 'main'
json.dump(r, open(sys.argv[2], 'w'))
PYEOF
run_k report "$T/named.json" --format markdown
expect_out "base **main** ($S12) → head"
expect_out "| git base | main ($BASE) |"

case_ "--format json on stdout stays clean JSON; colour is off"
echo "# a tracked change" >> kagari.yaml
GITHUB_STEP_SUMMARY="$T/summary2.md" ci_env merge_group "$EV/mg.json" --format json --filter quick
expect_rc 0
g checkout -q kagari.yaml
json_check "$T/out" "r['git']['dirty'] == True"
grep -qF "${HEAD_SHA:0:12} + uncommitted changes" "$T/summary2.md" || fail "a tracked change is not said: $(grep '→ head' "$T/summary2.md")"
"$PY" -c "import json,sys; json.load(open('$T/out'))" || fail "stdout is not JSON"
grep -q '::' "$T/out" && fail "annotations on stdout"
grep -q $'\033' "$T/out" && fail "escape codes on stdout"
json_check "$T/out" "r['git']['base_sha'] == '$BASE'"
[ -s "$T/summary2.md" ] || fail "step summary not created"

case_ "push: the before sha"
ci_env push "$EV/push.json" --format json --filter quick --quiet
expect_rc 0
json_check "$T/out" "r['git']['base_sha'] == '$BASE'"

case_ "GitLab merge request: the diff base sha; JUnit for the test report; no GitHub annotations"
GITLAB_CI=true CI_MERGE_REQUEST_DIFF_BASE_SHA=$BASE CI_COMMIT_BEFORE_SHA=$ZERO \
	run_k ci --format junit --output "$T/gl.xml"
expect_rc 1
expect_err "comparing with $BASE (from the GitLab merge request, CI_MERGE_REQUEST_DIFF_BASE_SHA)"
grep -q '^::' "$T/err" && fail "GitHub annotations in a GitLab job log: $(grep '^::' "$T/err" | head -2)"
"$PY" - "$T/gl.xml" <<'PYEOF' || fail "the GitLab JUnit report lacks the budget failure"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
f = [tc for tc in root.iter("testcase") if tc.find("failure") is not None]
assert any(tc.get("name") == "nap budget latency max <= 1ns" and tc.find("failure").get("type") == "over_budget" for tc in f), [tc.get("name") for tc in f]
assert int(root.get("failures")) >= 1
PYEOF

case_ "GitLab push pipeline: CI_COMMIT_BEFORE_SHA; a new branch (all zeros) asks for --against"
GITLAB_CI=true CI_COMMIT_BEFORE_SHA=$BASE run_k ci --format json --filter quick --quiet
expect_rc 0
json_check "$T/out" "r['git']['base_sha'] == '$BASE'"
GITLAB_CI=true CI_COMMIT_BEFORE_SHA=$ZERO run_k ci --filter quick --quiet
expect_rc 3
expect_err "all zeros for a new branch"
expect_err "--against"
KAGARI_BASE_REF=HEAD~1 GITLAB_CI=true CI_MERGE_REQUEST_DIFF_BASE_SHA=nope run_k ci --format json --filter quick --quiet
expect_rc 0
json_check "$T/out" "r['git']['base_ref'] == 'HEAD~1'"

case_ "--against and KAGARI_BASE_REF win over the event"
KAGARI_BASE_REF=HEAD~1 ci_env pull_request "$EV/pr.json" --format json --filter quick --quiet
expect_rc 0
json_check "$T/out" "r['git']['base_ref'] == 'HEAD~1' and r['git']['base_sha'] == '$BASE'"
KAGARI_BASE_REF=nope ci_env pull_request "$EV/pr.json" --against "$BASE" --format json --filter quick --quiet
expect_rc 0
json_check "$T/out" "r['git']['base_ref'] == '$BASE'"

case_ "ci runs the base's copy of a suite the change edited (a looser budget does not count), and names what it left out"
cp kagari.yaml "$T/ci-suite.keep"
sed -i 's/max: "<= 1ns"/max: "<= 1h"/' kagari.yaml
cat >> kagari.yaml <<YAML
  - name: added
    commands:
      a: {command: ["$H", "sleep", "1"]}
YAML
run_k ci --against HEAD --runs 3 --quiet --format json --output "$T/sf.json"
expect_rc 1
json_check "$T/sf.json" "r['suites'][0]['suite_from'] == 'base' and [b['name'] for b in r['suites'][0]['benchmarks']] == ['sl,1%', 'quick']"
json_check "$T/sf.json" "any(\"both sides run HEAD's copy of kagari.yaml\" in w and \"left out: 'added' (only in the working tree's copy)\" in w for w in r['warnings'])"
head -n 1 "$T/err" | grep -q "left out: 'added'" || fail "the first stderr line does not name the benchmark left out: $(head -n 2 "$T/err")"
last_err_has "over budget"
run_k ci --against HEAD --suite-from head --runs 3 --quiet --format json --output "$T/sf.json"
expect_rc 0
json_check "$T/sf.json" "r['suites'][0]['suite_from'] == 'head' and [b['name'] for b in r['suites'][0]['benchmarks']] == ['sl,1%', 'quick', 'added']"
cp "$T/ci-suite.keep" kagari.yaml

case_ "ci --max-percent P is the latency tolerance of every command, over the base suite's"
run_k ci --against HEAD --runs 3 --max-percent 4 --quiet --format json --output "$T/mp.json"
json_check "$T/mp.json" "all(c['analysis']['metrics']['latency']['max_percent'] == 4 for b in r['suites'][0]['benchmarks'] for c in b['commands'])"
json_check "$T/mp.json" "r['suites'][0]['benchmarks'][1]['commands'][0]['analysis']['metrics']['latency']['gate'] is False"
run_k ci --against HEAD --max-percent -1 --quiet
expect_rc 3
expect_err "--max-percent '-1'"

case_ "a step summary that cannot be written is exit 4"
GITHUB_STEP_SUMMARY="$T/no/such/dir/s.md" run_k ci --against HEAD~1 --filter quick --quiet
expect_rc 4
expect_err "step summary (GITHUB_STEP_SUMMARY): cannot open"

case_ "a base missing from a shallow clone gets the fetch-depth hint"
g clone -q --depth 1 "file://$R" "$T/shallow"
(cd "$T/shallow" && GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$EV/pr.json" \
	"$KAGARI" ci --quiet >"$T/out" 2>"$T/err")
RC=$?
expect_rc 4
expect_err "fetch-depth: 0"

# --- kagari report ---------------------------------------------------------

case_ "report: json re-render keeps verdicts, samples and the exit code"
run_k report "$T/ci.json" --format json
expect_rc 1
tail -n 1 "$T/err" > "$T/last"
"$PY" - "$T/ci.json" "$T/out" "$T/last" <<'PYEOF' || fail "re-rendered JSON differs"
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
last = open(sys.argv[3]).read().strip()
a.pop("kagari_version"); b.pop("kagari_version")
if a != b:
    for k in a:
        if a[k] != b.get(k):
            sys.stderr.write("field %s differs\n" % k)
    sys.exit(1)
if last != "kagari: error: " + a["exit_reason"]:
    sys.stderr.write("last stderr line %r\n" % last)
    sys.exit(1)
PYEOF

case_ "report: the table shows the same verdicts"
run_k report "$T/ci.json"
expect_rc 1
"$PY" - "$T/ci.json" "$T/out" <<'PYEOF' || fail "table lacks a verdict"
import json, sys
r = json.load(open(sys.argv[1]))
t = open(sys.argv[2]).read()
for s in r["suites"]:
    for b in s["benchmarks"]:
        assert b["name"] in t, b["name"]
        for c in b["commands"]:
            assert c["result"] in t, c["result"]
            for m, cp in (c.get("comparisons") or {}).items():
                assert cp["verdict"] in t, (m, cp["verdict"])
PYEOF

case_ "report: other formats, and --output"
run_k report "$T/ci.json" --format samples-csv --output "$T/s.csv"
expect_rc 1
head -n 1 "$T/s.csv" | grep -q '^suite,benchmark,command,side,round,run,metric,unit,value' || fail "samples-csv header"
run_k report "$T/ci.json" --format csv
expect_rc 1
expect_out "sl,1%"

case_ "report of a run that passed exits 0"
(cd "$R" && "$KAGARI" run --filter quick --format json --output "$T/run.json" --quiet 2>/dev/null)
run_k report "$T/run.json" --format json
expect_rc 0
json_check "$T/out" "r['mode'] == 'run' and r['summary']['exit_code'] == 0"
[ -s "$T/err" ] && fail "stderr not empty: $(cat "$T/err")"

case_ "report: an output that is the input is refused, however it is named"
cp "$T/ci.json" "$T/keep.json"
ln "$T/keep.json" "$T/hard.json"
ln -s keep.json "$T/soft.json"
for o in "$T/keep.json" "$T/./keep.json" "$T/hard.json" "$T/soft.json"; do
	run_k report "$T/keep.json" --output "$o"
	expect_rc 3
	expect_err "is the input report"
done
cmp -s "$T/keep.json" "$T/ci.json" || fail "the input was changed"

case_ "report: unknown schema_version, invalid JSON, missing file"
sed 's/"schema_version": "1"/"schema_version": "9"/' "$T/ci.json" > "$T/v9.json"
run_k report "$T/v9.json"
expect_rc 2
expect_err "v9.json: schema_version: unknown schema version '9'"
printf '{\n  "schema_version": "1",\n  oops\n}\n' > "$T/bad.json"
run_k report "$T/bad.json"
expect_rc 2
expect_err "bad.json:3:"
run_k report "$T/missing.json"
expect_rc 3
expect_err "cannot read '$T/missing.json': No such file or directory"
run_k report
expect_rc 3
expect_err "report needs exactly one INPUT.json (a report saved with --format json), not 0"
run_k report "$T/ci.json" --format yaml
expect_rc 3
expect_err "invalid value 'yaml' for '--format': expected one of "

finish
