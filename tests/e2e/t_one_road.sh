#!/bin/bash
# One road to pass (issue 39): saved reports whose samples reproduce the
# routes to a wrong pass, judged again with `report --reanalyze` (the same
# analysis as compare, sequential looks included). Each is a verdict and an
# exit code a user sees: a program's own rhythm is not machine noise, a
# min_difference on the typical run does not pass a slow minority, a change
# that grows with every run does not pass, a zero base sample does not hide
# a clear regression, and a pass states its blind share. Samples are fixed
# numbers, so nothing here depends on the machine's timing.
. "$(dirname "$0")/lib.sh"

: "${KAGARI_SOURCE_DIR:?set KAGARI_SOURCE_DIR to the source tree}"
cd "$T" || exit 1

# report NAME ROUNDS BASE HEAD SEQUENTIAL CAP MIN_DIFFERENCE: a report of one
# latency comparison at T = 10%, single-run pairs, BASE and HEAD Python
# expressions of the round k.
report() {
	"$PY" - "$KAGARI_SOURCE_DIR/tests/data/golden/merged.json" "$@" <<'PYEOF'
import copy, json, sys
template, name, n, bexpr, hexpr, seq, cap, md = sys.argv[1:9]
n, cap = int(n), int(cap)
noise = [0.004, -0.003, 0.001, 0.006, -0.005, 0.002, -0.001, 0.003, -0.004, 0.005,
         0.000, -0.002, 0.004, -0.006, 0.002, 0.001, -0.003, 0.005, -0.001, 0.003]
nz = lambda k, s: 1 + noise[(3 * k + 7 * s) % 20]
r = json.load(open(template))
s = r["suites"][0]
s["benchmarks"] = s["benchmarks"][:1]
b = s["benchmarks"][0]
b["commands"] = b["commands"][:1]
b["rounds"] = n
c = b["commands"][0]
c["rounds"] = n
c["comparisons"] = {}
for side, expr in (("base", bexpr), ("head", hexpr)):
    c[side] = {"count": n, "metrics": {"latency": {"unit": "ns", "status": "ok", "samples": [
        {"round": k, "run": k, "value": int(round(eval(expr)))} for k in range(1, n + 1)]}}}
a = c["analysis"]
a.update(min_samples=10, runs_per_round=1, sequential=seq == "seq")
if seq == "seq":
    a["max_rounds"] = cap
a["metrics"] = {"latency": {"statistic": "median", "max_percent": 10,
                            "min_difference": None if md == "-" else int(md),
                            "gate": True, "configured": True}}
json.dump(r, open(name + ".json", "w"))
PYEOF
}

L='r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["latency"]'

case_ "a program whose runs alternate 1x / 1.5x, head 13-30% slower in every round: a regression, exit 1"
report rhythm 48 '20e6 * (1.0 if k % 2 else 1.5) * nz(k, 0)' \
	'20e6 * (1.0 if k % 2 else 1.5) * (1.13 + 0.017 * ((7 * k) % 11)) * nz(k, 1)' fixed 0 -
run_k report rhythm.json --reanalyze --format json --output rhythm.out.json
expect_rc 1
json_check rhythm.out.json "$L[\"verdict\"] == \"regression\" and $L[\"noise_floor_percent\"] > 30"
json_check rhythm.out.json "\"the floor is the program's own run-to-run pattern\" in $L[\"reason\"]"

case_ "min_difference 2ms on 20ms, every 10th head run 4x: no pass at the first looks"
report mindiff 12 '20e6 * nz(k, 0)' '20e6 * (4.0 if k % 10 == 0 else 1.0) * nz(k, 1)' seq 200 2000000
run_k report mindiff.json --reanalyze --format json --output mindiff.out.json
expect_rc 0
json_check mindiff.out.json "$L[\"verdict\"] != \"pass\" and \"min_difference\" not in $L[\"reason\"]"
report mindiff40 40 '20e6 * nz(k, 0)' '20e6 * (4.0 if k % 10 == 0 else 1.0) * nz(k, 1)' fixed 0 2000000
run_k report mindiff40.json --reanalyze --format json --output mindiff40.out.json
json_check mindiff40.out.json "$L[\"verdict\"] not in (\"pass\", \"within_noise\", \"improved\") and $L[\"mean_change_percent\"] > 20"

case_ "a change that grows 0.25% a run: not a pass, and the reason says so"
report trend 48 '50e6 * nz(k, 0)' '50e6 * (1 + 0.0025 * k) * nz(k, 1)' seq 200 -
run_k report trend.json --reanalyze --format json --output trend.out.json
expect_rc 0
json_check trend.out.json "$L[\"verdict\"] == \"inconclusive\" and \"the change grows with every run: +0.2\" in $L[\"reason\"]"
json_check trend.out.json "0.2 < $L[\"trend_percent_per_round\"] < 0.3 and $L[\"trend_p\"] < 1e-6"
run_k report trend.json --reanalyze --fail-on-inconclusive
expect_rc 1

case_ "one zero base sample among a clear +31%: a regression that says what it left out"
report zerobase 20 '0 if k == 5 else 30e6 * nz(k, 0)' '30e6 * 1.31 * nz(k, 1)' fixed 0 -
run_k report zerobase.json --reanalyze --format json --output zerobase.out.json
expect_rc 1
json_check zerobase.out.json "$L[\"verdict\"] == \"regression\" and \"1 of 20 rounds had a zero base\" in $L[\"reason\"]"

case_ "a pass states its blind share; the same change standing still passes"
report flat 48 '50e6 * nz(k, 0)' '50e6 * 1.06 * nz(k, 1)' seq 200 -
run_k report flat.json --reanalyze --format json --output flat.out.json
expect_rc 0
json_check flat.out.json "$L[\"verdict\"] == \"pass\" and abs($L[\"blind_share_percent\"] - 100 * (1 - 0.05 ** (1 / 48))) < 1e-9"
json_check flat.out.json "\"; blind share 6.1%\" in $L[\"reason\"]"

finish
