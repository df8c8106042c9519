#!/bin/bash
# kagari bisect: a commit left undecided is measured again, with twice the
# runs a side, before it is skipped; every commit is built once (counted by
# a build command that appends the commit it builds to a log), GOOD once;
# --command BENCH/CMD measures only that benchmark and judges only that
# command; --output FILE takes the result (atomically) instead of stdout.
. "$(dirname "$0")/lib.sh"

git_sandbox

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
# prog.sh is the program: m/prog sleeps P ms, other/flip (argument x)
# sleeps F ms; `build` copies it to the artifact and logs the commit.
prog() { # P F [FLIP]
	{
		echo '#!/bin/sh'
		echo 'if [ "$1" = x ]; then sleep '"$2"'; exit 0; fi'
		if [ -n "${3:-}" ]; then
			# One run in four 100 ms: neither a pass nor a
			# regression beyond 50 %, however many runs.
			echo 'n=$(cat "'"$T"'/flip" 2>/dev/null || echo 0); echo $((n + 1)) > "'"$T"'/flip"'
			echo 'if [ $((n % 4)) -eq 3 ]; then sleep 0.1; exit 0; fi'
		fi
		echo "sleep $1"
	} > prog.sh
}
cat > kagari.yaml <<YAML
version: "1"
name: bi
build:
  command: [sh, -c, 'git rev-parse HEAD >> "$T/builds.log" && cp prog.sh "\$0" && chmod +x "\$0"', "\${artifact}"]
defaults:
  warmup: 0
  runs: 8
  max_runs: 32
  regression:
    min_samples: 4
    latency: {max_percent: 50}
benchmarks:
  - name: m
    commands:
      prog: {command: ["\${artifact}"]}
  - name: other
    commands:
      flip: {command: ["\${artifact}", "x"]}
YAML
prog 0.01 0.01
g add -A && g commit -qm c0
SHAS=("$(g rev-parse HEAD)")
# Eight commits: prog sleeps 30 ms instead of 10 from commit 5 on; commit 4
# (the search's first midpoint) 10 ms, or 100 in every fourth run; flip sleeps
# 30 ms from commit 2 on. Timed: the checks are of structure and direction.
for i in $(seq 1 8); do
	p=0.01 f=0.01 flip=
	[ "$i" -ge 5 ] && p=0.03
	[ "$i" -ge 2 ] && f=0.03
	[ "$i" -eq 4 ] && flip=1
	prog "$p" "$f" "$flip"
	echo "# commit $i" >> prog.sh
	g commit -qam "c$i"
	SHAS+=("$(g rev-parse HEAD)")
done

case_ "--command narrows what is measured and judged; an undecided commit is measured again"
rm -f "$T/builds.log" "$T/flip"
run_k bisect --good "${SHAS[0]}" --bad "${SHAS[8]}" --command m/prog --format json --seed 3 --output "$T/b.json"
[ -s "$T/out" ] && fail "stdout is not empty with --output: $(head -c 300 "$T/out")"
# Commit 4 stays undecided: measured with 8, 16 and 32 runs a side (the
# cap), then skipped, naming the comparison; the first bad commit is then
# 4 or 5 (exit 1), or 4 when load made it look decided.
json_check "$T/b.json" "[t['outcome'] for t in r['tested'] if t['sha'] == '${SHAS[4]}'] in (['skip'], ['bad'])"
json_check "$T/b.json" "all(1 <= t['measurements'] <= 3 for t in r['tested'])"
if json_check "$T/b.json" "[t['outcome'] for t in r['tested'] if t['sha'] == '${SHAS[4]}'] == ['skip']" 2>/dev/null; then
	expect_rc 1
	json_check "$T/b.json" "r['first_bad'] is None"
	json_check "$T/b.json" "[(t['measurements'], t['reason'].startswith('bi/m/prog latency inconclusive ')) for t in r['tested'] if t['sha'] == '${SHAS[4]}'] == [(3, True)]"
	expect_err "skipped commits leave the first bad commit among 2, from ${SHAS[4]:0:12} to ${SHAS[5]:0:12}"
else
	expect_rc 0
	json_check "$T/b.json" "r['first_bad'] == '${SHAS[4]}' and r['what'] == 'bi/m/prog latency'"
fi
expect_err "kagari: bisect: ${SHAS[4]:0:12} undecided (bi/m/prog latency inconclusive "
expect_err "measuring it again with 16 runs a side"

case_ "every commit is built once, GOOD once, also when one is measured again"
sort "$T/builds.log" | uniq -d > "$T/twice"
[ -s "$T/twice" ] && fail "built more than once: $(cat "$T/twice")"
[ "$(grep -c "^${SHAS[0]}$" "$T/builds.log")" -eq 1 ] || fail "GOOD not built exactly once: $(cat "$T/builds.log")"
"$PY" - "$T/b.json" "$T/builds.log" <<'PYEOF' || fail "the builds are not GOOD and the tested commits"
import json, sys
r = json.load(open(sys.argv[1]))
built = open(sys.argv[2]).read().split()
assert sorted(built) == sorted([r['good']] + [t['sha'] for t in r['tested']]), (built, r['tested'])
PYEOF

case_ "without --command every gated comparison judges: flip's earlier regression is found"
run_k bisect --good "${SHAS[0]}" --bad "${SHAS[8]}" --format json --seed 3
expect_rc 0
json_check "$T/out" "r['first_bad'] == '${SHAS[2]}' and r['what'] == 'bi/other/flip latency'"

case_ "--command SUITE/BENCH/CMD with --metric; the table says a commit was measured again"
rm -f "$T/flip"
run_k bisect --good "${SHAS[0]}" --bad "${SHAS[8]}" --command bi/m/prog --metric latency --seed 3 --quiet
grep -qE "^  ${SHAS[4]:0:12}  (bad |skip).*\[measured [23] times, the last with (16|32) runs a side\]$" "$T/out" ||
	fail "commit 4 is not said to be measured again: $(cat "$T/out")"
grep -q "bi/other/flip" "$T/out" && fail "flip judged under --command: $(cat "$T/out")"

case_ "--command naming nothing selected is a usage error, before anything is built"
rm -f "$T/builds.log"
run_k bisect --good "${SHAS[0]}" --bad "${SHAS[8]}" --command m/nope
expect_rc 3
expect_err "--command 'm/nope': no selected benchmark has that command"
expect_err "m/prog"
[ -e "$T/builds.log" ] && fail "built before refusing --command"

case_ "--output a folder is a usage error before anything runs"
run_k bisect --good "${SHAS[0]}" --bad "${SHAS[8]}" --output "$T"
expect_rc 3
[ -e "$T/builds.log" ] && fail "built before refusing --output"
[ -z "$(ls -A "$TMPDIR")" ] || fail "left in TMPDIR: $(ls -A "$TMPDIR")"
finish
