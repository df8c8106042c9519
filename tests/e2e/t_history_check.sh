#!/bin/bash
# kagari history check [--since REV]: exit 1 when a step or a paired
# regression beyond the tolerance lies in REV..HEAD (default: HEAD alone,
# the last commit of its first-parent line), with Markdown an issue body
# takes (the commits, sizes, intervals, links); 0 when none; a usage error
# is 3. A step of the series (no compare measured it) alerts when it is
# worse by more than the command's tolerance; an improvement never does.
. "$(dirname "$0")/lib.sh"

git_sandbox
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE KAGARI_BASE_REF GITHUB_EVENT_NAME \
	GITHUB_EVENT_PATH GITHUB_STEP_SUMMARY GITHUB_WORKSPACE GITLAB_CI KAGARI_MACHINE_ID

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
malloc_loop_project s 5
# c1..c3: 2000 allocations; c4..c6: 2600 (+30%, at c4); c7: 2000 (better).
C=(x)
for i in 1 2 3 4 5 6 7; do
	n=2000
	[ "$i" -ge 4 ] && [ "$i" -le 6 ] && n=2600
	echo "#define N $n" >n.h
	echo "$i" >i.txt
	g add -A && g commit -qm "c$i"
	C[$i]=$(g rev-parse HEAD)
done

case_ "a step of the series (runs only) in the range: exit 1, Markdown"
for i in 1 2 3 4 5 6 7; do
	g checkout -q --detach "${C[$i]}"
	"$KAGARI" run --quiet >/dev/null 2>"$T/err" || fail "run at c$i: $(cat "$T/err")"
done
g checkout -q main
run_k history check --since "${C[1]}" --commit-url 'https://example.org/c/{sha}'
expect_rc 1
expect_out "## kagari: 1 performance regression in \`${C[1]}..${C[7]:0:10}\`"
expect_out "| [\`${C[4]:0:10}\`](https://example.org/c/${C[4]}) c4 | s / m / prog | allocs | +30.0% (2000 → 2600) | — | series step after [\`${C[3]:0:10}\`](https://example.org/c/${C[3]}) (tolerance 5%) |"
# the improvement at c7 is a step too, but no alert
if grep -qF -- "-23.1%" "$T/out"; then fail "an improvement alerted: $(cat "$T/out")"; fi

case_ "by default HEAD alone: the improvement at c7 is no alert, exit 0"
run_k history check
expect_rc 0
expect_out "kagari history check: no step or paired regression beyond the tolerance in HEAD^..HEAD (1 commit;"

case_ "a range after the step: exit 0"
run_k history check --since "${C[4]}"
expect_rc 0

case_ "a step within the tolerance is no alert"
sed -i 's/allocs: {max_percent: 5}/allocs: {max_percent: 40}/' kagari.yaml
run_k history check --since "${C[1]}" kagari.yaml
expect_rc 0
g checkout -q kagari.yaml

case_ "a paired regression (ci of a push) at HEAD: exit 1, with its interval"
echo "#define N 3000" >n.h
g commit -qam c8
C[8]=$(g rev-parse HEAD)
cat >"$T/event.json" <<JSON
{"ref": "refs/heads/main", "before": "${C[7]}", "after": "${C[8]}", "repository": {"default_branch": "main"}}
JSON
GITHUB_EVENT_NAME=push GITHUB_EVENT_PATH="$T/event.json" "$KAGARI" ci --seed 1 >/dev/null 2>"$T/ci.err"
[ $? = 1 ] || fail "ci of the +50% push did not fail: $(cat "$T/ci.err")"
run_k history check --output "$T/issue.md"
expect_rc 1
grep -qF "| \`${C[8]:0:10}\` c8 | s / m / prog | allocs | +50.0% (2000 → 3000) | [+50.0%, +50.0%] | paired step: regression, ci against \`${C[7]:0:10}\` (tolerance 5%) |" "$T/issue.md" ||
	fail "issue.md: $(cat "$T/issue.md")"
grep -qF "Commits are not links: no origin remote" "$T/issue.md" || fail "issue.md does not say why commits are not links"

case_ "usage errors are exit 3"
run_k history check --since no-such-rev
expect_rc 3
expect_err "no-such-rev"
run_k history check --format json
expect_rc 3
expect_err "history check writes Markdown"
run_k history --since "${C[1]}"
expect_rc 3
expect_err "--since is for \`kagari history check\`"
run_k history check --history "$T/none.sqlite"
expect_rc 3
expect_err "no history at"

finish
