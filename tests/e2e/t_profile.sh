#!/bin/bash
# Sampled profiles (metrics.profile, --profile, --profile-dir): a synthetic
# call tree (bench/profile_tree.c, depth 2: four leaves) built with
# cc -O2 -fno-omit-frame-pointer in a temporary git repository, whose head
# gives one leaf 10% more work. compare --profile must name that leaf as
# the first `grew` function and nothing else as grown; run --profile gives
# one side's self times; --profile-dir writes folded stacks per side; bad
# profile keys are rejected with FILE:LINE:COL. Sampling uses the cpu-clock
# software event where there is no PMU; where perf_event_open is refused
# (perf_event_paranoid 3, seccomp) the test is skipped with the reason.
. "$(dirname "$0")/lib.sh"
SRC=${KAGARI_SOURCE_DIR:?}
git_sandbox
command -v cc >/dev/null || skip_test "no C compiler (cc)" gcc

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
cp "$SRC/bench/profile_tree.c" .
# A frequency well above the default gives each leaf ~350 samples a run in
# ~70 ms; confidence 0.999 keeps "nothing else grows" from being a 1-in-20
# coin (Benjamini-Hochberg controls the false discovery rate at 1 - confidence).
# 40 sampled runs a side, not 20: a function's time is its share times the
# run's CPU time, and under ctest -j2 on a 2-core runner adjacent runs' CPU
# times differ by ~10%, so 20 pairs left the +10% leaf at about 3 sd, short of
# q < 0.001 one run in four (CI saw it; a busy-loop neighbour reproduces it).
cat > kagari.yaml <<'EOF'
version: "1"
name: prof
build:
  command: [cc, -O2, -fno-omit-frame-pointer, -DDEPTH=2, -DSLOW=2, -o, "${artifact}", profile_tree.c]
defaults:
  runs: 4
  warmup: 1
  metrics: {profile_runs: 40, profile_frequency: 20000}
  regression: {confidence: 0.999}
benchmarks:
  - name: tree
    commands:
      tree:
        command: ["${artifact}", "-n", "40"]
EOF
g add -A
g commit -qm base
sed -i 's/^#define DELTA 0$/#define DELTA 10/' profile_tree.c
grep -q '^#define DELTA 10$' profile_tree.c || fail "could not make the head slower"
g commit -qam "leaf_110 does 10% more work"

case_ "compare --profile: the +10% leaf is the first grew function, nothing else grows"
run_k compare --against HEAD~1 --profile --profile-dir "$T/pd" --format json --output "$T/c.json" --seed 7 --quiet
expect_rc 0
if "$PY" -c 'import json,sys; p=json.load(open(sys.argv[1]))["suites"][0]["benchmarks"][0]["commands"][0]["profile"]; sys.exit(0 if "error" in p and "functions" not in p else 1)' "$T/c.json" 2>/dev/null; then
	skip_test "sampling does not work here: $("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["suites"][0]["benchmarks"][0]["commands"][0]["profile"]["error"])' "$T/c.json")"
fi
P='r["suites"][0]["benchmarks"][0]["commands"][0]["profile"]'
json_check "$T/c.json" "$P['runs'] == {'base': 40, 'head': 40} and $P['pairs'] == 40"
json_check "$T/c.json" "$P['event'] in ('cpu-clock',) or $P['event'].startswith('cycles')"
json_check "$T/c.json" "$P['lost']['head'] >= 0 and 'throttled' in $P"
json_check "$T/c.json" "$P['functions'][0]['function'] == 'leaf_110' and $P['functions'][0]['verdict'] == 'grew'"
json_check "$T/c.json" "$P['functions'][0]['binary'] == 'artifact'"
json_check "$T/c.json" "[f['function'] for f in $P['functions'] if f['verdict'] == 'grew'] == ['leaf_110']"
json_check "$T/c.json" "all(f['verdict'] in ('same', 'too_few_samples') for f in $P['functions'] if f['function'].startswith('leaf_1') and f['function'] != 'leaf_110')"
# ~+10% of the leaf's self time, with an interval that excludes 0
json_check "$T/c.json" "(lambda f: f['ci_low_ms'] > 0 and f['ci_low_ms'] <= f['change_ms'] <= f['ci_high_ms'] and 0.03 < f['change_ms'] / f['self_base_ms'] < 0.2 and f['q_value'] < 0.001)($P['functions'][0])"
json_check "$T/c.json" "set(['function','binary','self_base_ms','self_head_ms','change_ms','ci_low_ms','ci_high_ms','q_value','verdict']) <= set($P['functions'][0])"
# the timed runs were not sampled: 4 per side, as asked
json_check "$T/c.json" "r['suites'][0]['benchmarks'][0]['commands'][0]['head']['count'] == 4"

case_ "--profile-dir: folded stacks, one file per side"
for sd in base head; do
	f="$T/pd/prof.tree.tree.$sd.folded"
	[ -s "$f" ] || { fail "missing $f"; continue; }
	grep -Eq '^([^; ]+;)*main;([^; ]+;)*leaf_110 [0-9]+$' "$f" || fail "$f has no stack through main to leaf_110: $(head -5 "$f")"
	bad=$(grep -Evc '^[^ ]+( [^ ]+)* [0-9]+$' "$f")
	[ "$bad" = 0 ] || fail "$f: $bad lines are not 'frames COUNT'"
done

case_ "the table lists the changed function under the command"
run_k compare --against HEAD~1 --profile --seed 7 --quiet --no-color
expect_rc 0
grep -E 'leaf_110 +artifact +[0-9.]+ ms → [0-9.]+ ms +\+[0-9.]+ ms .* grew' "$T/out" >/dev/null ||
	fail "no grew row for leaf_110: $(grep -A6 profile "$T/out")"
expect_out "profile ("

case_ "report re-renders a saved profile; --reanalyze judges its sampled runs again"
run_k report "$T/c.json" --format json --output "$T/c2.json"
expect_rc 0
cmp -s "$T/c.json" "$T/c2.json" || fail "report --format json of a profiled result is not byte-identical: $(diff "$T/c.json" "$T/c2.json" | head -10)"
json_check "$T/c.json" "len($P['sampled_runs']) == 80 and len($P['symbols']) >= 7 and len($P['stacks']) >= 4"
run_k report "$T/c.json"
expect_rc 0
grep -E 'leaf_110 +artifact +[0-9.]+ ms → [0-9.]+ ms +\+[0-9.]+ ms .* grew' "$T/out" >/dev/null ||
	fail "report: no grew row for leaf_110: $(grep -A6 profile "$T/out")"
run_k report "$T/c.json" --reanalyze --format json --output "$T/c3.json"
expect_rc 0
json_check "$T/c3.json" "[(f['function'], f['verdict']) for f in $P['functions']] == [(f['function'], f['verdict']) for f in json.load(open('$T/c.json'))['suites'][0]['benchmarks'][0]['commands'][0]['profile']['functions']]"
run_k report "$T/c.json" --reanalyze --confidence 0.5 --format json --output "$T/c4.json"
expect_rc 0
json_check "$T/c4.json" "$P['confidence'] == 0.5 and $P['functions'][0]['function'] == 'leaf_110'"
# a saved profile whose sampled runs were dropped keeps its saved verdicts
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); p=r["suites"][0]["benchmarks"][0]["commands"][0]["profile"]; p.pop("sampled_runs"); json.dump(r, open(sys.argv[2], "w"))' "$T/c.json" "$T/c5.json"
run_k report "$T/c5.json" --reanalyze --format json --output "$T/c6.json"
expect_rc 0
json_check "$T/c6.json" "$P['functions'][0]['function'] == 'leaf_110' and $P['functions'][0]['verdict'] == 'grew'"
# a malformed profile is an error naming the field
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); p=r["suites"][0]["benchmarks"][0]["commands"][0]["profile"]; p["sampled_runs"][0]["counts"][0][0] = 99999; json.dump(r, open(sys.argv[2], "w"))' "$T/c.json" "$T/bad.json"
run_k report "$T/bad.json"
expect_rc 2
expect_err "profile.sampled_runs[0].counts[0]: symbol 99999 is not in profile.symbols"

case_ "markdown, github and html show the changed functions; html draws the differential flame graph"
run_k report "$T/c.json" --format markdown
expect_rc 0
expect_out "#### Sampled profiles"
grep -Eq '^\| leaf\\_110 \| artifact \| [0-9.]+ ms → [0-9.]+ ms \| \+[0-9.]+ ms \| \+[0-9.]+ ms … \+[0-9.]+ ms \| [0-9.e-]+ \| grew \|$' "$T/out" ||
	fail "markdown: no grew row for leaf_110: $(grep -A8 'Sampled profiles' "$T/out" | cat -A | head -12)"
# github lists functions only under a regression
run_k report "$T/c.json" --format github
expect_rc 0
if [ "$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["suites"][0]["benchmarks"][0]["commands"][0]["result"])' "$T/c.json")" != regression ]; then
	grep -q "Functions under a regression" "$T/out" && fail "github lists functions without a regression"
fi
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); r["suites"][0]["benchmarks"][0]["commands"][0]["result"] = "regression"; json.dump(r, open(sys.argv[2], "w"))' "$T/c.json" "$T/reg.json"
run_k report "$T/reg.json" --format github
expect_rc 0
expect_out "#### Functions under a regression"
grep -Eq '^\| leaf\\_110 \| artifact \| .* \| grew \|$' "$T/out" || fail "github: no grew row for leaf_110"
run_k report "$T/c.json" --format html
expect_rc 0
expect_out '<svg class="flame"'
# the grown leaf is drawn in red (#ff....), the others not
grep -Eq '<g><title>leaf_110: head [0-9]+ samples [^<]*grew</title><rect [^>]*fill="#ff[0-9a-f]{4}"' "$T/out" ||
	fail "html: leaf_110 is not drawn red: $(grep -o '<g><title>leaf_110[^/]*' "$T/out" | head -2)"
grep -Eq '<g><title>leaf_1(00|01|11):[^<]*</title><rect [^>]*fill="#ff' "$T/out" && fail "html: an unchanged leaf is drawn red"
grep -Eq '<td>leaf_110</td><td>artifact</td>' "$T/out" || fail "html: no table row for leaf_110"

case_ "run --profile: one side's self times"
run_k run --profile --format json --output "$T/r.json" --quiet
expect_rc 0
json_check "$T/r.json" "$P['runs'] == {'head': 40} and $P['functions'][0]['self_base_ms'] is None"
json_check "$T/r.json" "sum(1 for f in $P['functions'] if f['function'].startswith('leaf_1') and f['self_head_ms'] > 0) == 4"

case_ "metrics.profile in the suite, without the flag"
sed -i 's/metrics: {profile_runs: 40/metrics: {profile: true, profile_runs: 3/' kagari.yaml
run_k run --format json --output "$T/s.json" --quiet
expect_rc 0
json_check "$T/s.json" "$P['runs'] == {'head': 3}"

case_ "bad profile keys name FILE:LINE:COL"
cat > "$T/bad.yaml" <<'EOF'
version: "1"
name: bad
defaults:
  metrics: {profile: maybe, profile_runs: 1}
benchmarks:
  - name: b
    commands:
      c: {command: [true]}
EOF
run_k validate "$T/bad.yaml"
expect_rc 2
expect_err "bad.yaml:4:22: defaults.metrics.profile:"
expect_err "defaults.metrics.profile_runs:"
finish
