#!/bin/bash
# What bisect judges a commit by: bad when any gated comparison regresses;
# good when the comparisons that regressed at BAD pass, however unclear the
# others are (here a second command whose latency is always inconclusive:
# fewer runs than its min_samples); skipped only when one of those is not
# decided, naming the command and metric.
. "$(dirname "$0")/lib.sh"

git_sandbox

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
# N allocations; n.h may make N vary from run to run (NOISY), so that the
# comparison of a commit is not decided.
cat > prog.c <<'C'
#include <stdlib.h>
#include <unistd.h>
#include "n.h"
int main(void)
{
#ifdef NOISY
	int n = N + (int)(getpid() % 400);
#else
	int n = N;
#endif
	for (int i = 0; i < n; i++) {
		volatile char *p = malloc(48);
		p[0] = 1;
		free((void *)p);
	}
	return 0;
}
C
cat > kagari.yaml <<'YAML'
version: "1"
name: bi
build:
  command: [cc, -O1, -o, "${artifact}", prog.c]
defaults:
  warmup: 0
  runs: 4
  metrics: {allocations: true, cpu: false}
benchmarks:
  - name: m
    regression:
      min_samples: 4
      latency: {max_percent: 50, gate: false}
      allocs: {max_percent: 5}
    commands:
      prog: {command: ["${artifact}"]}
  - name: other
    regression:
      min_samples: 1000
      latency: {max_percent: 5}
    commands:
      true: {command: ["true"]}
YAML
echo '#define N 1000' > n.h
g add -A && g commit -qm c0
SHAS=("$(g rev-parse HEAD)")
# Eight commits; +40 % allocations from commit 5 on. In the second line
# commit 4 (the first midpoint the search tests) allocates 1200-1599: not
# decided in 4 rounds.
for i in $(seq 1 8); do
	n=1000
	[ "$i" -ge 5 ] && n=1400
	{ echo "#define N $n"; echo "/* commit $i */"; } > n.h
	g commit -qam "c$i"
	SHAS+=("$(g rev-parse HEAD)")
done
g checkout -q --detach "${SHAS[0]}"
B=("${SHAS[0]}")
for i in $(seq 1 8); do
	n=1000
	[ "$i" -ge 5 ] && n=1400
	{ [ "$i" -eq 4 ] && echo "#define NOISY"; [ "$i" -eq 4 ] && n=1200; echo "#define N $n"; echo "/* commit $i */"; } > n.h
	g commit -qam "b$i"
	B+=("$(g rev-parse HEAD)")
done
g checkout -q main

case_ "an inconclusive command that did not regress at BAD skips nothing"
run_k bisect --good "${SHAS[0]}" --bad "${SHAS[8]}" --format json --seed 3
expect_rc 0
json_check "$T/out" "r['first_bad'] == '${SHAS[5]}'"
json_check "$T/out" "not any(t['outcome'] == 'skip' for t in r['tested'])"
json_check "$T/out" "all((t['outcome'] == 'bad') == (t['sha'] in '${SHAS[*]:5}'.split()) for t in r['tested'])"

case_ "a commit whose regressed comparison is not decided is skipped, naming it"
run_k bisect --good "${B[0]}" --bad "${B[8]}" --format json --seed 3
json_check "$T/out" "any(t['sha'] == '${B[4]}' and t['outcome'] == 'skip' and t['reason'].startswith('bi/m/prog allocs inconclusive +') for t in r['tested'])"
json_check "$T/out" "not any(t['outcome'] == 'skip' and t['sha'] != '${B[4]}' for t in r['tested'])"
run_k bisect --good "${B[0]}" --bad "${B[8]}" --seed 3 --quiet
grep -qE "^  ${B[4]:0:12}  skip  [^ ].*  \(bi/m/prog allocs inconclusive \+" "$T/out" ||
	fail "the skipped commit's line (subject, then the reason): $(cat "$T/out")"
finish
