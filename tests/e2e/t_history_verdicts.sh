#!/bin/bash
# The history keeps what compare and ci measured: each run's paired
# comparisons (verdict, change and interval, mean change, p-value,
# tolerance, against which base) are shown at their commit in every format
# of `kagari history` and on the trend site; a paired regression or
# improvement against an earlier commit of the line is a step at that commit
# with the paired change as its size (evidence "paired"), however short the
# line; `ci` on a push compares the push's `before` with its `after`, and a
# push of two commits names its range. The JSON report's and the history
# JSON's shapes: docs/contract.md.
. "$(dirname "$0")/lib.sh"

git_sandbox
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE KAGARI_BASE_REF GITHUB_EVENT_NAME \
	GITHUB_EVENT_PATH GITHUB_STEP_SUMMARY GITHUB_WORKSPACE GITLAB_CI KAGARI_MACHINE_ID

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
malloc_loop_project s 5
# c1 c2: 2000 allocations; c3: 2600 (+30%); c4 c5: 2600; c6: 2000 again.
C=(x)
for i in 1 2 3 4 5 6; do
	n=2000
	[ "$i" -ge 3 ] && [ "$i" -le 5 ] && n=2600
	echo "#define N $n" >n.h
	echo "$i" >i.txt
	g add -A && g commit -qm "c$i"
	C[$i]=$(g rev-parse HEAD)
done

# push BEFORE AFTER: `kagari ci` as a GitHub push of BEFORE..AFTER to main.
push() {
	g checkout -q --detach "$2"
	cat >"$T/event.json" <<JSON
{"ref": "refs/heads/main", "before": "$1", "after": "$2", "repository": {"default_branch": "main"}}
JSON
	GITHUB_EVENT_NAME=push GITHUB_EVENT_PATH="$T/event.json" \
		"$KAGARI" ci --seed 1 >/dev/null 2>"$T/ci.err"
	echo $?
}
case_ "ci on a push compares the push's before with its after"
rc2=$(push "${C[1]}" "${C[2]}")
rc3=$(push "${C[2]}" "${C[3]}")
grep -qF "comparing with ${C[2]} (from the 'push' event)" "$T/ci.err" || fail "ci.err: $(cat "$T/ci.err")"
# one push of two commits: c4 and c5, from c3
rc5=$(push "${C[3]}" "${C[5]}")
rc6=$(push "${C[5]}" "${C[6]}")
[ "$rc2 $rc3 $rc5 $rc6" = "0 1 0 0" ] || fail "ci exit codes $rc2 $rc3 $rc5 $rc6, expected 0 1 0 0"
g checkout -q main

case_ "every compare keeps its paired comparison, at its commit"
run_k history --metric allocs --format json
expect_rc 0
cp "$T/out" "$T/h.json"
S='r["series"][0]'
# the head of each ci is a point (c1 and c4 were never a head)
json_check "$T/h.json" "[p['sha'] for p in $S['points']] == ['${C[2]}', '${C[3]}', '${C[5]}', '${C[6]}']"
json_check "$T/h.json" "[len(p['comparisons']) for p in $S['points']] == [1, 1, 1, 1]"
json_check "$T/h.json" "(lambda c: (c['kind'], c['base_sha'], c['verdict'], c['change_percent'], c['ci_low_percent'], c['ci_high_percent'], c['mean_change_percent'], c['max_percent'], c['gate']))($S['points'][1]['comparisons'][0]) == ('ci', '${C[2]}', 'regression', 30.0, 30.0, 30.0, 30.0, 5.0, True)"
json_check "$T/h.json" "'p_value' in $S['points'][1]['comparisons'][0]"
json_check "$T/h.json" "$S['points'][2]['comparisons'][0]['base_sha'] == '${C[3]}'"
json_check "$T/h.json" "$S['verdicts'] == {'regression': 1, 'improved': 1, 'accepted': 0}"

case_ "steps from pairs: at the commit, the paired change its size, the push's range named"
json_check "$T/h.json" "[(s['from_sha'], s['to_sha'], round(s['change_percent'], 2), s['evidence'], s['verdict']) for s in $S['steps']] == [('${C[2]}', '${C[3]}', 30.0, 'paired', 'regression'), ('${C[5]}', '${C[6]}', -23.08, 'paired', 'improved')]"
json_check "$T/h.json" "[(s['before'], s['after']) for s in $S['steps']][0] == (2000.0, 2600.0)"

case_ "the table and the Markdown show the verdicts and the evidence"
run_k history --metric allocs
expect_out "step ${C[2]:0:10} → ${C[3]:0:10}  +30.0%  (2000 → 2600)  paired: regression +30.0% [+30.0%, +30.0%] (mean +30.0% [+30.0%, +30.0%]), tolerance 5%, ci against ${C[2]:0:10}"
expect_out "verdict at ${C[6]:0:10}: improved -23.1%"
# the differences across the paired steps are no noise: of 3, one is left
expect_out "noise of one run unknown (4 commits, 4 runs): 3 more runs of a commit or 2 more commits would tell it"
run_k history --metric allocs --format markdown
expect_out "| \`${C[2]:0:10}\` | \`${C[3]:0:10}\` | +30.0% | 2000 | 2600 | paired: regression +30.0%"
expect_out "Verdicts (1 regression, 1 improvement):"
run_k history --metric allocs --format html --output "$T/one.html"
grep -qF "<li class=\"verdict\">verdict at ${C[3]:0:10}: regression +30.0% [+30.0%, +30.0%]" "$T/one.html" ||
	fail "the single HTML page does not list the verdicts"

case_ "the trend site marks the verdicts on the plot, lists and counts them"
run_k history --metric allocs --format html --output "$T/site/" --commit-url 'https://example.org/c/{sha}'
expect_rc 0
P="$T/site/index.html"
grep -qF 'class="vr v-regression"' "$P" || fail "no regression mark with its interval on the plot"
grep -qF 'class="mk v-improved"' "$P" || fail "no improvement mark on the plot"
grep -qF "<p>Paired verdicts:</p>" "$P" || fail "no verdicts listed under the plot"
grep -qF "<a href=\"https://example.org/c/${C[3]}\"><code>${C[3]:0:10}</code></a>" "$P" || fail "the verdict does not link to its commit"
grep -qF "<th>regressions</th><th>improvements</th>" "$P" || fail "the overview does not count the verdicts"
grep -qF '<td class="n">2</td><td class="n">1</td><td class="n">1</td></tr>' "$P" || fail "overview: 2 steps, 1 regression, 1 improvement"
# each mark links to its run's report, a page of the site (kagari's HTML
# report of the stored JSON), and the list to the commit and the report
R3=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["series"][0]["points"][1]["comparisons"][0]["run"])' "$T/h.json")
[ -s "$T/site/reports/run-$R3.html" ] || fail "no report page of run $R3: $(ls -A "$T/site" "$T/site/reports" 2>&1)"
grep -qF "<a href=\"reports/run-$R3.html\"><g><title>${C[3]:0:10}: regression +30.0%" "$P" || fail "the regression mark does not link to its report"
grep -qF "· <a href=\"reports/run-$R3.html\">its report</a>" "$P" || fail "the verdict list does not link to the report"
grep -qF "regression" "$T/site/reports/run-$R3.html" || fail "the report page does not show the regression"
# the latest changes, newest first: the improvement, then the regression
"$PY" - "$P" "${C[6]:0:10}" "${C[3]:0:10}" "$R3" <<'PYEOF' || fail "the latest changes are not the two paired steps, newest first"
import re, sys
page, c6, c3, r3 = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3], sys.argv[4]
latest = page.split('<h2 id="latest">Latest changes</h2>')[1].split('</ul>')[0]
items = re.findall(r'<li>(.*?)</li>', latest)
assert len(items) == 2, items
assert 'k-good">-23.1% [-23.1%, -23.1%]' in items[0] and c6 in items[0], items[0]
assert 'k-bad">+30.0% [+30.0%, +30.0%]' in items[1] and c3 in items[1], items[1]
assert 'href="reports/run-%s.html">report</a>' % r3 in items[1], items[1]
PYEOF
# allocs is gated (regression.allocs), so its section comes first, marked
grep -qF 'allocs <span class="gate">gated</span>' "$P" || fail "allocs is not marked gated"

case_ "headless Chromium: the page with its marks and the report page, no console message"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	skip_part "needs Debian's chromium (scripts/deps.sh check installs it)" chromium
else
	for page in "$P" "$T/site/reports/run-$R3.html"; do
		chrome --enable-logging=stderr --v=0 --virtual-time-budget=5000 --dump-dom \
			"file://$page" >"$T/dom.html" 2>"$T/chrome.err" ||
			fail "chromium --dump-dom $page: $(grep -v dbus "$T/chrome.err" | tail -3)"
		if grep -E 'CONSOLE|Uncaught|Refused to|Content Security Policy' "$T/chrome.err" >"$T/console.txt"; then
			fail "console messages on $page: $(head -5 "$T/console.txt")"
		fi
	done
	# the marks drawn: a triangle and an interval bar per verdict
	chrome --dump-dom "file://$P" 2>/dev/null | grep -o 'class="mk v-[a-z]*"' >"$T/marks.txt"
	[ "$(sort "$T/marks.txt" | tr '\n' ' ')" = 'class="mk v-improved" class="mk v-regression" ' ] ||
		fail "the page's DOM lacks the two verdict marks: $(cat "$T/marks.txt")"
fi

case_ "a run file carries the comparison to another history"
g init -q --bare "$T/remote.git"
run_k history push --remote "$T/remote.git"
expect_rc 0
run_k history pull --remote "$T/remote.git" --history "$T/other.sqlite"
expect_rc 0
run_k history --metric allocs --format json --history "$T/other.sqlite"
json_check "$T/out" "$S['points'][1]['comparisons'][0]['mean_change_percent'] == 30.0 and $S['points'][1]['comparisons'][0]['max_percent'] == 5.0"
json_check "$T/out" "[s['evidence'] for s in $S['steps']] == ['paired', 'paired']"

finish
