#!/bin/bash
# Instruction counts through valgrind (cachegrind), for real: `kagari
# compare` on a git repository whose tiny C program does WORK iterations.
# A/A (the same source on both sides, the base in a worktree whose path
# differs in length from the user's repository) must give counts that
# agree within 0.01% and no regression; a head doing 1% more work must be
# a `regression` at regression.instructions.max_percent 0.5. Also: cycles
# under valgrind are `unsupported` (fine with `counters: true`, exit 6 with
# `counters: [cycles]`), and a missing valgrind is explained.
. "$(dirname "$0")/lib.sh"

command -v valgrind >/dev/null ||
	skip_test "valgrind is not installed (scripts/deps.sh check installs it)" valgrind
git_sandbox

# A repository path much longer than kagari's worktree path.
R="$T/a-repository-folder-with-a-rather-long-name/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
cat > prog.c <<'C'
#include <stdio.h>
#include <string.h>
#include "work.h"
int main(int argc, char **argv)
{
	unsigned long long x = 88172645463325252ULL;
	for (long i = 0; i < WORK; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	/* Touch argv and the environment, as real programs do. */
	size_t n = 0;
	for (int i = 0; i < argc; i++)
		n += strlen(argv[i]);
	printf("%llu %zu\n", x & 1, n);
	return 0;
}
C
set_work() { echo "#define WORK $1L" > work.h; }
set_work 300000
cat > kagari.yaml <<'YAML'
version: "1"
name: vg
build:
  command: [cc, -O1, -o, "${artifact}", prog.c]
defaults:
  warmup: 0
  runs: 6
  min_runs: 6
  metrics: {counters: true, instrument: valgrind, cpu: false, memory: false}
  regression:
    min_samples: 6
    latency: {max_percent: 50, gate: false}
    instructions: {max_percent: 0.5}
benchmarks:
  - name: loop
    commands:
      art:
        command: ["${artifact}", "--input", "${root}/prog.c"]
YAML
g add -A && g commit -qm base

case_ "A/A: counts agree within 0.01%, no regression"
run_k compare --against HEAD --format json --output "$T/aa.json" --seed 1 --quiet
expect_rc 0
json_check "$T/aa.json" 'r["environment"]["counters_source"] in ("valgrind", None)'
json_check "$T/aa.json" 'all(c["comparisons"]["instructions"]["verdict"] in ("pass",) for c in r["suites"][0]["benchmarks"][0]["commands"])'
json_check "$T/aa.json" 'all(abs(c["head"]["metrics"]["instructions"]["stats"]["median"] / c["base"]["metrics"]["instructions"]["stats"]["median"] - 1) < 1e-4 for c in r["suites"][0]["benchmarks"][0]["commands"])'
# The same count in each of the first 3 runs of each side: exact, no more runs.
json_check "$T/aa.json" 'all(len(c[s]["metrics"]["instructions"]["samples"]) == 3 for c in r["suites"][0]["benchmarks"][0]["commands"] for s in ("base", "head"))'
"$PY" - "$T/aa.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["suites"][0]["benchmarks"][0]["commands"]:
    b = c["base"]["metrics"]["instructions"]["samples"]
    h = c["head"]["metrics"]["instructions"]["samples"]
    allv = [s["value"] for s in b + h]
    print("A/A %s: base median %d, head median %d, spread over all %d runs %.5f%%"
          % (c["name"], c["base"]["metrics"]["instructions"]["stats"]["median"],
             c["head"]["metrics"]["instructions"]["stats"]["median"], len(allv),
             (max(allv) - min(allv)) / min(allv) * 100))
PY

case_ "a head doing 1% more work is a regression at max_percent 0.5"
set_work 303000
run_k compare --against HEAD --format json --output "$T/reg.json" --seed 2 --quiet
expect_rc 1
json_check "$T/reg.json" 'all(c["comparisons"]["instructions"]["verdict"] == "regression" for c in r["suites"][0]["benchmarks"][0]["commands"])'
json_check "$T/reg.json" 'all(0.5 < c["comparisons"]["instructions"]["change_percent"] < 1.1 for c in r["suites"][0]["benchmarks"][0]["commands"])'
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); [print("+1%% work %s: change %.3f%%, verdict %s" % (c["name"], c["comparisons"]["instructions"]["change_percent"], c["comparisons"]["instructions"]["verdict"])) for c in r["suites"][0]["benchmarks"][0]["commands"]]' "$T/reg.json"
set_work 300000

case_ "cycles under valgrind: unsupported with a reason, exit 0 with counters: true"
json_check "$T/aa.json" 'r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]["cycles"]["status"] == "unsupported"'
json_check "$T/aa.json" '"valgrind runs no clock" in r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]["cycles"]["reason"]'

case_ "counters: [cycles] under valgrind is exit 6, skip runs"
cat > "$T/cyc.yaml" <<YAML
version: "1"
name: cyc
defaults: {warmup: 0, runs: 2, metrics: {counters: [cycles], instrument: valgrind}}
benchmarks:
  - name: b
    commands:
      c: {command: ["$H", "work", "1000"]}
YAML
run_k run "$T/cyc.yaml"
expect_rc 6
expect_err "'cycles'"
expect_err "valgrind runs no clock"
sed -i 's/instrument: valgrind}/instrument: valgrind, unsupported: skip}/' "$T/cyc.yaml"
run_k run "$T/cyc.yaml" --format json --output "$T/cyc.json"
expect_rc 0
json_check "$T/cyc.json" 'r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]["cycles"]["status"] == "unsupported"'

case_ "valgrind not installed: unsupported with the install hint"
mkdir -p "$T/nobin"
ln -sf "$(command -v cc)" "$T/nobin/cc"
cat > "$T/ins.yaml" <<YAML
version: "1"
name: ins
defaults: {warmup: 0, runs: 2, metrics: {counters: [instructions], instrument: valgrind}}
benchmarks:
  - name: b
    commands:
      c: {command: ["$H", "work", "1000"]}
YAML
PATH="$T/nobin" run_k run "$T/ins.yaml"
expect_rc 6
expect_err "valgrind is not installed"
expect_err "apt-get install valgrind"

finish
