#!/bin/bash
# Accepting an intended regression (issue 15): a commit of the compared
# range with the trailer `Kagari-Accept: BENCHMARK/COMMAND METRIC +P%`
# (read with git's trailer parsing) turns a regression up to +P% into
# `accepted` (exit 0), shown in every report with the commit; beyond +P%
# it still fails; a trailer outside the range, or a malformed one, accepts
# nothing. On a scripted git repository whose head is ~10x slower.
. "$(dirname "$0")/lib.sh"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
g() { git -c user.name=t -c user.email=t@t -c core.hooksPath=/dev/null -c init.defaultBranch=main "$@"; }

R="$T/repo"
mkdir -p "$R" && cd "$R" || exit 1
g init -q .
echo "exec '$H' sleep 2" > work.sh
cat > kagari.yaml <<'YAML'
version: "1"
name: acc
defaults:
  warmup: 1
  runs: 30
  regression:
    # the head is ~10x slower: on a loaded machine a wide spread must not
    # make the verdict inconclusive
    max_cv: 100
    latency: {max_percent: 10}
benchmarks:
  - name: w
    commands:
      work: {command: [sh, work.sh]}
YAML
g add -A
# A trailer in the base commit itself lies outside base..head.
g commit -qm "base" -m "Kagari-Accept: w/work latency +1000%"
BASE=$(g rev-parse HEAD)
echo "exec '$H' sleep 20" > work.sh
g commit -qam "make work slower on purpose" -m "Kagari-Accept: w/work latency +1000%"
ACCEPT=$(g rev-parse HEAD)

# jq_ FILE EXPR: EXPR over r (the report) and L (w/work's latency comparison)
jq_() {
	"$PY" - "$1" "$2" <<'PYEOF' || fail "json check failed: $2"
import json, sys
r = json.load(open(sys.argv[1]))
L = r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["latency"]
ok = eval(sys.argv[2])
if not ok:
    sys.stderr.write("false: %s\nL = %s\nwarnings = %s\n" % (sys.argv[2], {k: L[k] for k in ("verdict", "reason", "change_percent")}, r["warnings"]))
    sys.exit(1)
PYEOF
}

# until VERDICT FILE ARGS...: kagari ARGS until the latency verdict is
# VERDICT (at most 3 attempts: a stall on a busy machine can make one
# comparison inconclusive; the verdict rules are not what is tested here).
until_verdict() {
	local want=$1 file=$2 i
	shift 2
	for i in 1 2 3; do
		run_k "$@"
		"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["latency"]["verdict"] != sys.argv[2])' "$file" "$want" 2>/dev/null && return 0
		echo "note: $CASE: attempt $i was not $want" >&2
	done
}

case_ "a regression within the accepted +P% is accepted: exit 0, the commit recorded"
until_verdict accepted "$T/a.json" compare --against "$BASE" --quiet --format json --output "$T/a.json"
expect_rc 0
jq_ "$T/a.json" "L['verdict'] == 'accepted' and L['accepted_by'] == '$ACCEPT' and L['change_percent'] > 100"
jq_ "$T/a.json" "'accepted by commit ${ACCEPT:0:12}' in L['reason']"
jq_ "$T/a.json" "r['summary']['accepted'] == 1 and r['summary']['regression'] == 0 and r['summary']['exit_code'] == 0"
jq_ "$T/a.json" "r['acceptances'] == [{'commit': '$ACCEPT', 'benchmark': 'w', 'command': 'work', 'metric': 'latency', 'max_percent': 1000}]"
jq_ "$T/a.json" "r['suites'][0]['benchmarks'][0]['commands'][0]['result'] == 'accepted'"

case_ "every report shows it as accepted, with the commit"
for f in table markdown github html junit; do
	run_k report "$T/a.json" --format "$f"
	expect_rc 0
	grep -q "accepted" "$T/out" || fail "--format $f does not say 'accepted'"
	grep -q "${ACCEPT:0:12}" "$T/out" || fail "--format $f does not name the accepting commit"
done
run_k report "$T/a.json" --format junit
grep -q "<failure" "$T/out" && fail "junit shows a failure for an accepted regression"
run_k report "$T/a.json" --reanalyze --format json --output "$T/re.json"
expect_rc 0
jq_ "$T/re.json" "L['verdict'] == 'accepted' and L['accepted_by'] == '$ACCEPT'"
for i in 1 2 3; do
	run_k ci --against "$BASE" --quiet --runs 30
	grep -q "::notice.*title=accepted regression" "$T/err" && break
done
expect_rc 0
grep -q "::notice.*title=accepted regression" "$T/err" || fail "ci gives no notice for the accepted regression: $(grep '::' "$T/err" | head -3)"

case_ "beyond the accepted +P% it still fails, and says which acceptance it exceeded"
g commit -q --allow-empty -m "accept less" -m "Kagari-Accept: w/work latency +20%"
g reset -q --soft HEAD~2
g commit -qm "slower, but only +20% accepted" -m "Kagari-Accept: w/work latency +20%"
SMALL=$(g rev-parse HEAD)
until_verdict regression "$T/b.json" compare --against "$BASE" --quiet --format json --output "$T/b.json"
expect_rc 1
jq_ "$T/b.json" "L['verdict'] == 'regression' and 'beyond the +20% that commit ${SMALL:0:12} accepts' in L['reason'] and 'accepted_by' not in L"
jq_ "$T/b.json" "r['summary']['regression'] == 1 and r['summary']['accepted'] == 0"

case_ "a trailer outside the range accepts nothing"
g tag slower
g reset -q --hard "$BASE"
echo "exec '$H' sleep 20" > work.sh
until_verdict regression "$T/c.json" compare --against "$BASE" --quiet --format json --output "$T/c.json"
expect_rc 1
jq_ "$T/c.json" "L['verdict'] == 'regression' and not r.get('acceptances')"

case_ "a malformed trailer or one naming nothing measured is a warning and accepts nothing"
g commit -qam "slower" -m "Kagari-Accept: w/work latency 5000" -m "Kagari-Accept: w/nosuch latency +1000%"
until_verdict regression "$T/d.json" compare --against "$BASE" --quiet --format json --output "$T/d.json"
expect_rc 1
jq_ "$T/d.json" "L['verdict'] == 'regression'"
g commit -q --amend -m "slower" -m "Kagari-Accept: w/work latency 5000
Kagari-Accept: w/nosuch latency +1000%"
BAD=$(g rev-parse HEAD)
until_verdict regression "$T/d.json" compare --against "$BASE" --quiet --format json --output "$T/d.json"
expect_rc 1
jq_ "$T/d.json" "any('commit ${BAD:0:12}: Kagari-Accept' in w and '+P%' in w and 'accepts nothing' in w for w in r['warnings'])"
jq_ "$T/d.json" "any(\"names 'w/nosuch'\" in w and 'did not measure' in w for w in r['warnings'])"
jq_ "$T/d.json" "L['verdict'] == 'regression' and r['summary']['exit_code'] == 1"
finish
