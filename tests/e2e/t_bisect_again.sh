#!/bin/bash
# kagari bisect: a commit left undecided is measured again, with twice the
# runs a side and half the level (alpha/2, then alpha/4), before it is skipped (here eight runs a side are fewer than
# the suite's min_samples, so the commit whose allocation count varies from run to run is undecided at first,
# while a count that is the same in every run is exact and decides with 3); every commit is built once (counted by
# a build command that appends the commit it builds to a log), GOOD once;
# --command BENCH/CMD measures only that benchmark and judges only that
# command; --output FILE takes the result (atomically) instead of stdout.
. "$(dirname "$0")/lib.sh"

git_sandbox

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
# prog: N allocations (NOISY: N to N+399, by pid); with an argument (flip)
# M allocations. Counts are exact, so the search is the same on any machine.
cat > prog.c <<'C'
#include <stdlib.h>
#include <unistd.h>
#include "n.h"
#ifndef M
#define M 500
#endif
int main(int argc, char **argv)
{
#ifdef NOISY
	int n = N + (int)(getpid() % 400);
#else
	int n = N;
#endif
	(void)argv;
	if (argc > 1)
		n = M;
	for (int i = 0; i < n; i++) {
		volatile char *p = malloc(48);
		p[0] = 1;
		free((void *)p);
	}
	return 0;
}
C
# Eight runs a side cannot decide a comparison that wants min_samples: 16:
# every commit is inconclusive at first and measured again with 16.
cat > kagari.yaml <<YAML
version: "1"
name: bi
build:
  command: [sh, -c, 'git rev-parse HEAD >> "$T/builds.log" && exec cc -O1 -o "\$0" prog.c', "\${artifact}"]
defaults:
  warmup: 0
  runs: 8
  metrics: {allocations: true, cpu: false}
  regression:
    min_samples: 16
    latency: {max_percent: 50, gate: false}
    allocs: {max_percent: 5}
benchmarks:
  - name: m
    commands:
      prog: {command: ["\${artifact}"]}
  - name: other
    commands:
      flip: {command: ["\${artifact}", "x"]}
YAML
echo '#define N 1000' > n.h
g add -A && g commit -qm c0
SHAS=("$(g rev-parse HEAD)")
# Eight commits: prog +40 % allocations from commit 5 on; commit 4 (the
# search's first midpoint) allocates 1200-1599; flip +100 % allocations
# from commit 2 on.
for i in $(seq 1 8); do
	n=1000
	[ "$i" -ge 5 ] && n=1400
	{
		[ "$i" -eq 4 ] && echo "#define NOISY" && n=1200
		echo "#define N $n"
		[ "$i" -ge 2 ] && echo "#define M 1000"
		echo "/* commit $i */"
	} > n.h
	g commit -qam "c$i"
	SHAS+=("$(g rev-parse HEAD)")
done

case_ "--command narrows what is measured and judged; an undecided commit is measured again"
rm -f "$T/builds.log"
run_k bisect --good "${SHAS[0]}" --bad "${SHAS[8]}" --command m/prog --format json --seed 3 --output "$T/b.json"
expect_rc 0
[ -s "$T/out" ] && fail "stdout is not empty with --output: $(head -c 300 "$T/out")"
# Commit 4 allocates 20-60 % more than GOOD: bad, once it is decided.
json_check "$T/b.json" "r['first_bad'] == '${SHAS[4]}' and r['what'] == 'bi/m/prog allocs'"
json_check "$T/b.json" "[t['sha'] for t in r['tested']] == '${SHAS[8]} ${SHAS[4]} ${SHAS[2]} ${SHAS[3]}'.split()"
json_check "$T/b.json" "[t['outcome'] for t in r['tested']] == ['bad', 'bad', 'good', 'good']"
# Commit 4's count varies (getpid): measured twice; the others' counts are
# exact (the same in every run) and decide at the first measurement.
json_check "$T/b.json" "[t['measurements'] for t in r['tested']] == [1, 2, 1, 1]"
# The two measurements of a commit share the suite's alpha (0.05): the
# first judged at alpha/2, the second at alpha/4, so a false bad or good
# stays below 0.05 however many times a commit is measured.
json_check "$T/b.json" "all(abs(t['alpha'][0] - 0.025) < 1e-12 for t in r['tested'])"
json_check "$T/b.json" "len(r['tested'][1]['alpha']) == 2 and abs(r['tested'][1]['alpha'][1] - 0.0125) < 1e-12"
json_check "$T/b.json" "r['commits'] == 8"
expect_err "kagari: bisect: ${SHAS[4]:0:12} undecided (bi/m/prog allocs inconclusive "
expect_err "measuring it again with 16 runs a side, at alpha/4 "

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
json_check "$T/out" "r['first_bad'] == '${SHAS[2]}' and r['what'] == 'bi/other/flip allocs'"

case_ "--command SUITE/BENCH/CMD with --metric; the table says a commit was measured again"
run_k bisect --good "${SHAS[0]}" --bad "${SHAS[8]}" --command bi/m/prog --metric allocs --seed 3 --quiet
expect_rc 0
expect_out "first bad commit: ${SHAS[4]}"
expect_out "  ${SHAS[4]:0:12}  bad "
expect_out "[measured 2 times, the last with 16 runs a side]"
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
cp kagari.yaml "$T/suite.before"
run_k bisect --good "${SHAS[0]}" --bad "${SHAS[8]}" --output kagari.yaml
expect_rc 3
cmp -s kagari.yaml "$T/suite.before" || fail "--output overwrote the suite"
[ -e "$T/builds.log" ] && fail "built before refusing --output"
[ -z "$(ls -A "$TMPDIR")" ] || fail "left in TMPDIR: $(ls -A "$TMPDIR")"
finish
