#!/bin/bash
# kagari bisect over a scripted 16-commit history with a planted
# regression (allocation counts: exact, so the search path is the same on
# any machine): the first bad commit is found with its change, in at most 5
# compares (counted from the JSON `tested[]`); a commit that does not build
# is skipped and said so; BAD that is not a regression is exit 1; the
# user's working tree, index, branches and HEAD are untouched.
. "$(dirname "$0")/lib.sh"

git_sandbox

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
malloc_loop_program 1000
cat > kagari.yaml <<'YAML'
version: "1"
name: bi
build:
  command: [cc, -O1, -o, "${artifact}", prog.c]
defaults:
  warmup: 0
  runs: 4
  metrics: {allocations: true, cpu: false}
  regression:
    min_samples: 4
    latency: {max_percent: 50, gate: false}
    allocs: {max_percent: 5}
benchmarks:
  - name: m
    commands:
      prog: {command: ["${artifact}"]}
YAML
g add -A && g commit -qm c0
SHAS=("$(g rev-parse HEAD)")
# 16 commits after the good one; the regression (+40 % allocations) comes
# in commit 11 and stays.
for i in $(seq 1 16); do
	n=1000
	[ "$i" -ge 11 ] && n=1400
	{ echo "#define N $n"; echo "/* commit $i */"; } > n.h
	g commit -qam "c$i"
	SHAS+=("$(g rev-parse HEAD)")
done
# A second line of history from the same good commit in which commit 8
# (a midpoint the search tests) does not build.
g checkout -q --detach "${SHAS[0]}"
B=("${SHAS[0]}")
for i in $(seq 1 16); do
	n=1000
	[ "$i" -ge 11 ] && n=1400
	if [ "$i" -eq 8 ]; then
		echo "#error broken" > n.h
	else
		{ echo "#define N $n"; echo "/* commit $i */"; } > n.h
	fi
	g commit -qam "b$i"
	B+=("$(g rev-parse HEAD)")
done
g checkout -q main
g branch -q keep "${SHAS[5]}"
echo "/* an uncommitted edit */" >> prog.c

state() {
	{
		g status --porcelain=v1 --untracked-files=all --ignored | grep -v '\.kagari/'
		g rev-parse HEAD; g symbolic-ref -q HEAD; g for-each-ref; g ls-files -s
		g worktree list --porcelain; g diff; g stash list
	} > "$1" 2>&1
}

case_ "the planted regression is found at its commit, in at most 5 compares"
state "$T/before"
run_k bisect --good "${SHAS[0]}" --bad "${SHAS[16]}" --format json --seed 4
expect_rc 0
cp "$T/out" "$T/b.json"
json_check "$T/b.json" "r['first_bad'] == '${SHAS[11]}'"
json_check "$T/b.json" 'abs(r["change_percent"] - 40) < 1e-9 and r["what"] == "bi/m/prog allocs"'
json_check "$T/b.json" 'len(r["tested"]) <= 5 and r["commits"] == 16'
json_check "$T/b.json" "r['tested'][0]['sha'] == '${SHAS[16]}' and r['tested'][0]['outcome'] == 'bad'"
json_check "$T/b.json" "all((t['outcome'] == 'bad') == (t['sha'] in '${SHAS[*]:11}'.split()) for t in r['tested'])"

case_ "the user's working tree, index, branches and HEAD are untouched"
state "$T/after"
cmp -s "$T/before" "$T/after" || fail "user state changed: $(diff "$T/before" "$T/after" | head)"
[ -z "$(ls -A "$TMPDIR")" ] || fail "temporary files left: $(ls -A "$TMPDIR")"

case_ "the table names the first bad commit with its change and interval"
run_k bisect --good "${SHAS[0]}" --bad "${SHAS[16]}" --metric allocs --quiet
expect_rc 0
expect_out "first bad commit: ${SHAS[11]} c11"
expect_out "bi/m/prog allocs +40.0% against good, interval [+40.0%, +40.0%]"

case_ "every tested commit shows its subject, and a good one its change"
# The lines of the tested commits: sha, outcome, subject, then the change
# (+40% at a bad commit, 0% at a good one: allocation counts are exact).
for t in $("$PY" -c 'import json,sys; print(" ".join(t["sha"] for t in json.load(open(sys.argv[1]))["tested"]))' "$T/b.json"); do
	i=0
	while [ "${SHAS[$i]}" != "$t" ]; do i=$((i + 1)); done
	if [ "$i" -ge 11 ]; then
		want="  ${t:0:12}  bad   c$i *  \+40\.0% \[\+40\.0%, \+40\.0%\] bi/m/prog allocs\$"
	else
		want="  ${t:0:12}  good  c$i *  [+-]?0\.0% \[[^]]*\] bi/m/prog allocs\$"
	fi
	grep -qE "^$want" "$T/out" || fail "no line '$want' in: $(cat "$T/out")"
done
grep -q "  good  " "$T/out" || fail "no good commit tested: $(cat "$T/out")"
json_check "$T/b.json" "all(t['subject'] == 'c%d' % ('${SHAS[*]}'.split().index(t['sha'])) for t in r['tested'])"
json_check "$T/b.json" "all(abs(t['change_percent'] - (40 if t['outcome'] == 'bad' else 0)) < 1e-9 and t['what'] == 'bi/m/prog allocs' and t['ci_low_percent'] <= t['change_percent'] <= t['ci_high_percent'] for t in r['tested'])"

case_ "a commit that does not build is skipped, said so, and the search goes on"
run_k bisect --good "${B[0]}" --bad "${B[16]}" --format json
expect_rc 0
json_check "$T/out" "r['first_bad'] == '${B[11]}'"
json_check "$T/out" "any(t['sha'] == '${B[8]}' and t['outcome'] == 'skip' and 'build failed' in t['reason'] for t in r['tested'])"
expect_err "1 commit was skipped (a failed build"

case_ "BAD that is not a regression: exit 1, nothing to find"
run_k bisect --good "${SHAS[0]}" --bad "${SHAS[10]}" --format json
expect_rc 1
json_check "$T/out" 'r["first_bad"] is None and len(r["tested"]) == 1'
expect_err "is not a regression beyond the tolerance"

case_ "BAD whose comparison is undecided: exit 1, said undecided with what to do, not 'not a regression'"
# Latency gated in sequential rounds (runs unset) capped at 4, with no
# room to measure again: a verdict either way needs the signed-rank test
# below the look's level, and in 4 rounds it cannot go below p = 1/16. The
# tolerance is wide (100%) so that the machine's noise floor is below it
# (within_noise would be decided).
cat > lat.yaml <<'YAML'
version: "1"
name: lat
build:
  command: [cc, -O1, -o, "${artifact}", prog.c]
defaults:
  warmup: 0
  min_runs: 4
  max_runs: 4
  metrics: {cpu: false}
  regression:
    min_samples: 4
    latency: {max_percent: 100}
benchmarks:
  - name: m
    commands:
      prog: {command: ["${artifact}"]}
YAML
run_k bisect --good "${SHAS[0]}" --bad "${SHAS[16]}" --format json --quiet lat.yaml
expect_rc 1
json_check "$T/out" 'r["first_bad"] is None and r["tested"][0]["outcome"] == "skip" and "inconclusive" in r["tested"][0]["reason"]'
expect_err "is undecided (lat/m/prog latency inconclusive"
expect_err "nothing to bisect yet. Measure with more runs"
expect_err "--metric cpu_total"
grep -q "is not a regression" "$T/err" && fail "an undecided BAD called not a regression: $(cat "$T/err")"
rm -f lat.yaml

case_ "GOOD after BAD, or missing flags, is a usage error"
run_k bisect --good "${SHAS[16]}" --bad "${SHAS[0]}"
expect_rc 3
expect_err "nothing to bisect"
run_k bisect --good "${SHAS[0]}"
expect_rc 3
finish
