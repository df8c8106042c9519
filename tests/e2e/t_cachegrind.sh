#!/bin/bash
# estimated_cycles and cache_misses through valgrind's cache simulation, for
# real: `kagari compare` on a git repository whose tiny C program makes
# ACCESSES byte increments cycling over a static array of SPAN bytes.
# - A/A: every run of both sides gives the same estimated_cycles,
#   instructions and cache_misses (deterministic), and no regression.
# - more work (ACCESSES +10%): a regression in estimated_cycles.
# - the same instructions over a working set larger than the simulated last
#   level (SPAN 64 KiB -> 16 MiB): instructions stay within 1%, and
#   estimated_cycles and cache_misses are regressions — the cache effect a
#   plain instruction count cannot see.
# Also: the report names the cache model, doctor says where estimated_cycles
# comes from, and `instrument: perf` refuses a listed estimated_cycles with
# exit 6 naming it.
. "$(dirname "$0")/lib.sh"

command -v valgrind >/dev/null ||
	skip_test "valgrind is not installed (scripts/deps.sh check installs it)" valgrind
git_sandbox

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
cat > prog.c <<'C'
#include <stdio.h>
#include "work.h"
static unsigned char a[16 << 20];
/* Read at run time, so that the loop's code is the same for every SPAN. */
static volatile unsigned long span = SPAN;
int main(void)
{
	/* One byte per 64-byte line, cycling over SPAN bytes (a power of
	   two): the same instructions whatever SPAN is. */
	unsigned long mask = span - 1;
	for (unsigned long i = 0; i < ACCESSES; i++)
		a[(i * 64) & mask]++;
	printf("%d\n", a[0]);
	return 0;
}
C
set_work() { printf '#define ACCESSES %sUL\n#define SPAN %sUL\n' "$1" "$2" > work.h; }
set_work 400000 65536
cat > kagari.yaml <<'YAML'
version: "1"
name: cg
build:
  command: [cc, -O1, -o, "${artifact}", prog.c]
defaults:
  warmup: 0
  runs: 6
  min_runs: 6
  metrics: {counters: [instructions, estimated_cycles, cache_misses], instrument: valgrind}
  regression:
    min_samples: 6
    latency: {max_percent: 50, gate: false}
    instructions: {max_percent: 1}
    estimated_cycles: {max_percent: 1}
    cache_misses: {max_percent: 1}
benchmarks:
  - name: walk
    commands:
      art:
        command: ["${artifact}"]
YAML
g add -A && g commit -qm base

C0='r["suites"][0]["benchmarks"][0]["commands"][0]'

case_ "A/A: estimated_cycles, instructions, cache_misses identical in every run"
run_k compare --against HEAD --format json --output "$T/aa.json" --seed 1 --quiet
expect_rc 0
for m in estimated_cycles instructions cache_misses; do
	json_check "$T/aa.json" "$C0[\"head\"][\"metrics\"][\"$m\"][\"status\"] == \"ok\""
	json_check "$T/aa.json" "len({s['value'] for d in ('base', 'head') for s in $C0[d]['metrics']['$m']['samples']}) == 1"
	json_check "$T/aa.json" "$C0['comparisons']['$m']['verdict'] == 'pass'"
	json_check "$T/aa.json" "'exact data' in $C0['comparisons']['$m']['reason']"
done
# exact counts: 3 valgrind runs per side, not min_samples (6); the first
# simulates the caches, the two others count instructions only and
# confirm it (the same count), so the cache metrics hold one sample each.
for d in base head; do
	json_check "$T/aa.json" "len($C0['$d']['metrics']['instructions']['samples']) == 3"
	json_check "$T/aa.json" "'confirmed_runs' not in $C0['$d']['metrics']['instructions']"
	for m in estimated_cycles cache_misses; do
		json_check "$T/aa.json" "[s['run'] for s in $C0['$d']['metrics']['$m']['samples']] == [1]"
		json_check "$T/aa.json" "$C0['$d']['metrics']['$m']['confirmed_runs'] == 2"
	done
done
# The confirming runs saw the count too: the pass's blind share is that
# of three runs, as for the instructions.
json_check "$T/aa.json" "abs($C0['comparisons']['estimated_cycles']['blind_share_percent'] - $C0['comparisons']['instructions']['blind_share_percent']) < 1e-9"
json_check "$T/aa.json" "62 < $C0['comparisons']['estimated_cycles']['blind_share_percent'] < 64"
# The reports' n says so: one sample and the two runs that confirmed it.
for fmt in table markdown html; do
	run_k report "$T/aa.json" --format $fmt
	expect_rc 0
	expect_out "1+2"
done
# A saved report judges them the same way again.
run_k report "$T/aa.json" --reanalyze --format json --output "$T/aa-re.json"
expect_rc 0
json_check "$T/aa-re.json" "$C0['comparisons']['estimated_cycles']['verdict'] == 'pass'"
json_check "$T/aa-re.json" "$C0['head']['metrics']['estimated_cycles']['confirmed_runs'] == 2"
# ... and refuses confirmed runs on a metric no simulation gives.
"$PY" - "$T/aa.json" "$T/bad-confirmed.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]["instructions"]["confirmed_runs"] = 2
json.dump(r, open(sys.argv[2], "w"))
PYEOF
run_k report "$T/bad-confirmed.json" --reanalyze --format json
expect_rc 2
expect_err "instructions"
expect_err "confirmed_runs"
expect_err "only estimated_cycles and cache_misses have confirmed runs"
# Estimated cycles weigh every access: at least the instructions.
json_check "$T/aa.json" "$C0['head']['metrics']['estimated_cycles']['stats']['median'] > $C0['head']['metrics']['instructions']['stats']['median']"
json_check "$T/aa.json" "$C0['head']['metrics']['cache_misses']['stats']['median'] > 0"

case_ "merge --replicate pools the confirmed runs with the samples"
for k in 1 2; do
	run_k compare --against HEAD --shard $k/2 --replicate --no-history --seed $((20 + k)) \
		--format json --output "$T/rep$k.json" --quiet
	expect_rc 0
done
run_k merge --replicate "$T/rep1.json" "$T/rep2.json" --format json --output "$T/rep.json"
expect_rc 0
for d in base head; do
	json_check "$T/rep.json" "len($C0['$d']['metrics']['estimated_cycles']['samples']) == 2"
	json_check "$T/rep.json" "$C0['$d']['metrics']['estimated_cycles']['confirmed_runs'] == 4"
done
json_check "$T/rep.json" "$C0['comparisons']['estimated_cycles']['verdict'] == 'pass'"
json_check "$T/rep.json" "'exact data' in $C0['comparisons']['estimated_cycles']['reason']"

case_ "a head doing 10% more work: estimated_cycles is a regression"
set_work 440000 65536
run_k compare --against HEAD --format json --output "$T/more.json" --seed 2 --quiet
expect_rc 1
json_check "$T/more.json" "$C0['comparisons']['estimated_cycles']['verdict'] == 'regression'"
json_check "$T/more.json" "5 < $C0['comparisons']['estimated_cycles']['change_percent'] < 15"
"$PY" -c 'import json,sys; c=json.load(open(sys.argv[1]))["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]; print("+10%% work: estimated_cycles %+.2f%% %s, instructions %+.2f%% %s" % (c["estimated_cycles"]["change_percent"], c["estimated_cycles"]["verdict"], c["instructions"]["change_percent"], c["instructions"]["verdict"]))' "$T/more.json"

case_ "the same instructions over 16 MiB: instructions pass, estimated_cycles do not"
set_work 400000 16777216
run_k compare --against HEAD --format json --output "$T/cache.json" --seed 3 --quiet
expect_rc 1
json_check "$T/cache.json" "abs($C0['comparisons']['instructions']['change_percent']) < 1"
json_check "$T/cache.json" "$C0['comparisons']['instructions']['verdict'] == 'pass'"
json_check "$T/cache.json" "$C0['comparisons']['estimated_cycles']['verdict'] == 'regression'"
json_check "$T/cache.json" "$C0['comparisons']['estimated_cycles']['change_percent'] > 100"
json_check "$T/cache.json" "$C0['comparisons']['cache_misses']['verdict'] == 'regression'"
"$PY" -c 'import json,sys; c=json.load(open(sys.argv[1]))["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]; print("working set 64 KiB -> 16 MiB: instructions %+.3f%% %s, estimated_cycles %+.1f%% %s, cache_misses %+.0f%% %s" % (c["instructions"]["change_percent"], c["instructions"]["verdict"], c["estimated_cycles"]["change_percent"], c["estimated_cycles"]["verdict"], c["cache_misses"]["change_percent"], c["cache_misses"]["verdict"]))' "$T/cache.json"
set_work 400000 65536

# jitter_prog TYPE SPREAD: a C program that loops 200,000 iterations and
# up to SPREAD - 1 more, as many as a TYPE drawn from /dev/urandom says:
# its instruction count varies from run to run.
jitter_prog() {
	cat <<C
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
int main(void)
{
	$1 r = 0;
	int fd = open("/dev/urandom", O_RDONLY);
	if (fd >= 0 && read(fd, &r, sizeof(r)) != sizeof(r))
		r = 0;
	unsigned long x = 1;
	for (unsigned long i = 0; i < 200000UL + (r % $2); i++)
		x = x * 6364136223846793005UL + 1;
	printf("%lu\\n", x & 1);
	return 0;
}
C
}

case_ "counts that vary on one side: both sides simulate every run"
# The head reads /dev/urandom and loops up to 4,095 iterations more: its
# instruction counts differ from run to run (the same in two runs once in
# 4,096), so its first simulated run
# cannot be confirmed. The base's counts do not vary, but it simulates
# every run too, so that each side has min_samples (6) simulated runs.
cp prog.c "$T/prog.c.saved"
jitter_prog "unsigned short" 4096 > prog.c
run_k compare --against HEAD --format json --output "$T/oneside.json" --seed 5 --quiet
[ "$RC" -le 1 ] || fail "exit $RC; stderr: $(tail -c 1500 "$T/err")"
for d in base head; do
	json_check "$T/oneside.json" "len($C0['$d']['metrics']['estimated_cycles']['samples']) == 6"
	json_check "$T/oneside.json" "'confirmed_runs' not in $C0['$d']['metrics']['estimated_cycles']"
	json_check "$T/oneside.json" "len($C0['$d']['metrics']['cache_misses']['samples']) == 6"
done
json_check "$T/oneside.json" "len({s['value'] for s in $C0['base']['metrics']['estimated_cycles']['samples']}) == 1"
json_check "$T/oneside.json" "len({s['value'] for s in $C0['head']['metrics']['instructions']['samples']}) > 1"
json_check "$T/oneside.json" "'min_samples is' not in $C0['comparisons']['estimated_cycles']['reason']"
# instructions keep the planned runs; only the cache metrics get more
for d in base head; do
	json_check "$T/oneside.json" "len($C0['$d']['metrics']['instructions']['samples']) == 6"
done
# All six runs in one round: the runs the cache metrics still need are
# made in a round of their own after the planned one.
sed -e 's/^  min_runs: 6$/  min_runs: 6\n  runs_per_round: 6/' kagari.yaml > rr.yaml
g add rr.yaml && g commit -qm rr
run_k compare --against HEAD rr.yaml --format json --output "$T/rr.json" --seed 8 --quiet
[ "$RC" -le 1 ] || fail "exit $RC; stderr: $(tail -c 1500 "$T/err")"
for d in base head; do
	json_check "$T/rr.json" "len($C0['$d']['metrics']['estimated_cycles']['samples']) == 6"
	json_check "$T/rr.json" "len($C0['$d']['metrics']['instructions']['samples']) == 6"
done
json_check "$T/rr.json" "'min_samples is' not in $C0['comparisons']['estimated_cycles']['reason']"
cp "$T/prog.c.saved" prog.c

case_ "two runs planned: both simulate, exact with 2 samples"
# Fewer runs than make a count exact (3): none can be confirmed, so each
# simulates, and the identical pair is judged as exact data.
sed -e 's/^  runs: 6$/  runs: 2/' -e 's/^  min_runs: 6$/  min_runs: 2/' \
	-e 's/min_samples: 6/min_samples: 2/' kagari.yaml > two.yaml
g add two.yaml && g commit -qm two
run_k compare --against HEAD two.yaml --format json --output "$T/two.json" --seed 9 --quiet
expect_rc 0
for d in base head; do
	json_check "$T/two.json" "len($C0['$d']['metrics']['estimated_cycles']['samples']) == 2"
	json_check "$T/two.json" "'confirmed_runs' not in $C0['$d']['metrics']['estimated_cycles']"
done
json_check "$T/two.json" "$C0['comparisons']['estimated_cycles']['verdict'] == 'pass'"
json_check "$T/two.json" "'exact data' in $C0['comparisons']['estimated_cycles']['reason']"

case_ "near-deterministic counts: min_samples runs, judged with their spread"
# A few iterations more or less per run, drawn from /dev/urandom: a spread
# of a few in a million, which is not exact data. (Both sides' first three
# runs alike, once in 4,096, would make it exact: the design's own limit.)
jitter_prog "unsigned char" 8 > jitter.c
sed -i 's/prog.c\]/jitter.c]/' kagari.yaml
g add -A && g commit -qm jitter
run_k compare --against HEAD --format json --output "$T/jit.json" --seed 4 --quiet
expect_rc 0
json_check "$T/jit.json" "len($C0['head']['metrics']['instructions']['samples']) == 6"
json_check "$T/jit.json" "len($C0['base']['metrics']['instructions']['samples']) == 6"
# The count varies, so the cache simulation cannot be confirmed by it:
# every run simulates, min_samples of them per side, none confirmed.
for d in base head; do
	json_check "$T/jit.json" "len($C0['$d']['metrics']['estimated_cycles']['samples']) == 6"
	json_check "$T/jit.json" "'confirmed_runs' not in $C0['$d']['metrics']['estimated_cycles']"
done
json_check "$T/jit.json" "'exact data' not in $C0['comparisons']['estimated_cycles']['reason']"
json_check "$T/jit.json" "len({s['value'] for d in ('base', 'head') for s in $C0[d]['metrics']['instructions']['samples']}) > 1"
json_check "$T/jit.json" "'exact data' not in $C0['comparisons']['instructions']['reason']"
json_check "$T/jit.json" "$C0['comparisons']['instructions']['verdict'] in ('pass', 'within_noise')"
sed -i 's/jitter.c\]/prog.c]/' kagari.yaml

case_ "gating only on counts: few timed rounds, counts to min_samples only when they vary"
# No `runs`: the sequential design. Latency is reported, not gated; the
# timed rounds stop at the first look (they feed only the report), and the
# valgrind runs are not capped by them.
sed -e '/^  runs: 6$/d' -e '/^  min_runs: 6$/d' -e 's/min_samples: 6/min_samples: 8/' kagari.yaml > seq.yaml
g add -A && g commit -qm seq
run_k compare --against HEAD seq.yaml --format json --output "$T/seq.json" --seed 6 --quiet
expect_rc 0
json_check "$T/seq.json" "$C0['rounds'] < 8"
json_check "$T/seq.json" "len($C0['head']['metrics']['instructions']['samples']) == 3"
json_check "$T/seq.json" "len($C0['head']['metrics']['estimated_cycles']['samples']) == 1"
json_check "$T/seq.json" "$C0['head']['metrics']['estimated_cycles']['confirmed_runs'] == 2"
json_check "$T/seq.json" "$C0['comparisons']['estimated_cycles']['verdict'] == 'pass'"
sed 's/prog.c\]/jitter.c]/' seq.yaml > seqj.yaml
g add -A && g commit -qm seqj
run_k compare --against HEAD seqj.yaml --format json --output "$T/seqj.json" --seed 7 --quiet
expect_rc 0
json_check "$T/seqj.json" "$C0['rounds'] < 8"
json_check "$T/seqj.json" "len($C0['head']['metrics']['instructions']['samples']) == 8"
json_check "$T/seqj.json" "len($C0['base']['metrics']['instructions']['samples']) == 8"
json_check "$T/seqj.json" "len($C0['head']['metrics']['estimated_cycles']['samples']) == 8"
json_check "$T/seqj.json" "len($C0['base']['metrics']['estimated_cycles']['samples']) == 8"
"$PY" -c 'import json,sys; c=json.load(open(sys.argv[1]))["suites"][0]["benchmarks"][0]["commands"][0]; print("counts-only, sequential: %d timed rounds, %d valgrind runs per side (varying counts)" % (c["rounds"], len(c["head"]["metrics"]["instructions"]["samples"])))' "$T/seqj.json"

case_ "aa says which metrics are deterministic here"
run_k aa --repeat 2 --quiet --format json --output "$T/aa-survey.json"
expect_rc 0
json_check "$T/aa-survey.json" "{x['metric'] for x in r['recommendations'] if x.get('deterministic')} == {'instructions', 'estimated_cycles', 'cache_misses'}"
run_k aa --repeat 2 --quiet
expect_out "deterministic"

case_ "--profile under valgrind: the changed function, by exact count"
cat > two.c <<'C'
#include <stdio.h>
#include "two.h"
/* Two hot functions; the head gives step_b 3% more work. */
__attribute__((noinline)) static unsigned long step_a(unsigned long x, long n)
{
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}
__attribute__((noinline)) static unsigned long step_b(unsigned long x, long n)
{
	for (long i = 0; i < n; i++)
		x ^= (x << 7) ^ (x >> 9) ^ (unsigned long)i;
	return x;
}
int main(void)
{
	printf("%lu\n", step_b(step_a(1, A), B) & 1);
	return 0;
}
C
printf '#define A 300000L\n#define B 300000L\n' > two.h
sed -i 's/prog.c\]/two.c]/' kagari.yaml
g add -A && g commit -qm two
printf '#define A 300000L\n#define B 309000L\n' > two.h
run_k compare --against HEAD --profile --format json --output "$T/prof.json" --seed 5 --quiet
expect_rc 1
json_check "$T/prof.json" "$C0['counted_function_changes'][0]['name'] == 'step_b'"
json_check "$T/prof.json" "2.5 < ($C0['counted_function_changes'][0]['head_instructions'] / $C0['counted_function_changes'][0]['base_instructions'] - 1) * 100 < 3.5"
json_check "$T/prof.json" "'step_a' not in [x['name'] for x in $C0['counted_function_changes']]"
json_check "$T/prof.json" "$C0['head']['counted_functions']['step_a']['instructions'] == $C0['base']['counted_functions']['step_a']['instructions']"
json_check "$T/prof.json" "'head_estimated_cycles' in $C0['counted_function_changes'][0]"
# beside, not instead of, the sampled profile
json_check "$T/prof.json" "$C0.get('profile') is not None"
for fmt in table markdown github html; do
	run_k report "$T/prof.json" --format "$fmt"
	case $fmt in markdown | github) expect_out 'step\_b' ;; *) expect_out "step_b" ;; esac
	expect_out "instructions (+3.0%)"
done
run_k report "$T/prof.json" --format json --output "$T/prof2.json"
json_check "$T/prof2.json" "$C0['counted_function_changes'][0]['name'] == 'step_b'"
printf '#define A 300000L\n#define B 300000L\n' > two.h
sed -i 's/two.c\]/prog.c]/' kagari.yaml

case_ "doctor says where estimated_cycles comes from"
run_k doctor
expect_out "estimated_cycles"
expect_out "cachegrind cache simulation"

case_ "auto with a PMU (software stand-ins): cycles from perf, estimated_cycles from valgrind when listed"
cat > "$T/pmu.yaml" <<YAML
version: "1"
name: pmu
defaults: {warmup: 0, runs: 3, metrics: {counters: [cycles, estimated_cycles], instrument: auto}}
benchmarks:
  - name: b
    commands:
      c: {command: ["$H", "work", "100000"]}
YAML
KAGARI_TEST_COUNTERS_SOFTWARE=1 run_k run "$T/pmu.yaml" --format json --output "$T/pmu.json" --quiet
expect_rc 0
json_check "$T/pmu.json" "$C0['head']['metrics']['cycles']['status'] == 'ok'"
json_check "$T/pmu.json" "$C0['head']['metrics']['estimated_cycles']['status'] == 'ok'"
json_check "$T/pmu.json" "len($C0['head']['metrics']['estimated_cycles']['samples']) == 1"
json_check "$T/pmu.json" "$C0['head']['metrics']['estimated_cycles']['confirmed_runs'] == 2"
# counters: true keeps the real cycles and does not simulate.
sed -i 's/counters: \[cycles, estimated_cycles\]/counters: true/' "$T/pmu.yaml"
KAGARI_TEST_COUNTERS_SOFTWARE=1 run_k run "$T/pmu.yaml" --format json --output "$T/pmu2.json" --quiet
expect_rc 0
json_check "$T/pmu2.json" "$C0['head']['metrics']['estimated_cycles']['status'] == 'unsupported'"
json_check "$T/pmu2.json" "'real \`cycles\`' in $C0['head']['metrics']['estimated_cycles']['reason']"
json_check "$T/pmu2.json" "$C0['head']['metrics']['cycles']['status'] == 'ok'"

case_ "instrument: perf cannot give estimated_cycles: exit 6 naming it"
cat > "$T/perf.yaml" <<YAML
version: "1"
name: p
defaults: {warmup: 0, runs: 2, metrics: {counters: [estimated_cycles], instrument: perf}}
benchmarks:
  - name: b
    commands:
      c: {command: ["$H", "work", "1000"]}
YAML
run_k run "$T/perf.yaml"
expect_rc 6
expect_err "'estimated_cycles'"
expect_err "instrument: perf"

case_ "an unknown counter name is an error naming it"
sed -i 's/\[estimated_cycles\]/[estimated_cycle]/' "$T/perf.yaml"
run_k run "$T/perf.yaml"
expect_rc 2
expect_err "estimated_cycle"
expect_err "estimated_cycles"

finish
