#!/bin/bash
# bench/reanalyze: how long `kagari report SAVED.json --reanalyze` takes on a
# long saved report (issue 40: 100,000 rounds took 53 s; the target is
# under 5 s). A report of one command is written here with ROUNDS rounds
# of latency a side (10 ms +- 2%, head 5% slower: at the tolerance, so
# that no look decides and the sequential design computes every look), in
# the fixed design and in the sequential one (max_rounds = ROUNDS), and
# each is analysed again. Prints a table of wall and CPU times (the
# machine may be shared: CPU time is the steadier figure).
#
#   bash bench/reanalyze.sh [BUILD-DIR] [ROUNDS...]   (default 100000)
#
# Nothing in the tree changes.
set -eu
build=$(cd "${1:-build}" && pwd)
shift || true
[ $# -gt 0 ] || set -- 100000
kagari=$build/kagari
[ -x "$kagari" ] || cmake --build "$build" --target kagari >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/kagari-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
now() { echo "${EPOCHREALTIME/,/.}"; }

# report ROUNDS DESIGN FILE: the saved report (fixed or sequential).
report() {
	python3 - "$1" "$2" "$3" <<'PYEOF'
import json, random, sys
rounds, design, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
rnd = random.Random(40)
def side(scale):
    vals = [int(10_000_000 * scale * (1 + abs(rnd.gauss(0, 0.02)))) for _ in range(rounds)]
    return {"count": rounds, "metrics": {"latency": {"unit": "ns", "status": "ok", "samples": [
        {"round": i + 1, "run": i + 1, "value": v} for i, v in enumerate(vals)]}}}
analysis = {"pairing": "rounds", "correction": "holm", "resamples": 2000,
            "confidence": 0.95, "min_samples": 8, "max_cv": 0.5, "runs_per_round": 1,
            "sequential": design == "sequential",
            "metrics": {"latency": {"statistic": "median", "max_percent": 5,
                                    "min_difference": None, "gate": True, "configured": True}}}
if design == "sequential":
    analysis["max_rounds"] = rounds
cmd = {"name": "c", "command": "prog", "rounds": rounds, "base": side(1.0),
       "head": side(1.05), "analysis": analysis}
json.dump({"schema_version": "1", "tool": "kagari", "mode": "compare", "seed": 7,
           "suites": [{"name": "s", "file": "kagari.yaml", "benchmarks": [
               {"name": "b", "rounds": rounds, "commands": [cmd]}]}],
           "summary": {"benchmarks": 1, "commands": 1, "exit_code": 0}}, open(out, "w"))
PYEOF
}

echo "== bench/reanalyze: kagari report SAVED.json --reanalyze (one command, latency) =="
printf '%-10s %-11s %9s %9s %8s  %s\n' rounds design wall_s cpu_s exit verdict
for n in "$@"; do
	for design in fixed sequential; do
		report "$n" "$design" "$work/in.json"
		t0=$(now)
		set +e
		/usr/bin/time -f "%U %S" -o "$work/cpu" "$kagari" report "$work/in.json" --reanalyze \
			--format json --output "$work/out.json" 2>"$work/err"
		rc=$?
		set -e
		t1=$(now)
		verdict=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["latency"]; print(c["verdict"])' "$work/out.json" 2>/dev/null || head -c 80 "$work/err")
		printf '%-10s %-11s %9.2f %9.2f %8s  %s\n' "$n" "$design" \
			"$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
			"$(awk '{print $1 + $2}' "$work/cpu")" "$rc" "$verdict"
	done
done
