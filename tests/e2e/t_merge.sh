#!/bin/bash
# Sharding and merge: --shard K/N splits the selected benchmarks into
# disjoint shards that together are all of them; `kagari merge` of 2 and of
# 4 shards gives the verdicts, counts and exit code of one job on the same
# data (allocation counts are exact; a saved one-job report split by hand
# merges back to exactly its own statistics and verdicts, latency
# included); reports of other commits or overlapping shards are refused
# with the reason, and so are incomplete or repeated sets of shards, a
# report merged with its own copy and reports merge cannot judge (no
# shard record, no analysis settings); --replicate pools rounds and
# narrows the interval.
. "$(dirname "$0")/lib.sh"

git_sandbox

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
cat > prog.c <<'C'
#include <stdlib.h>
#include "n.h"
int main(int argc, char **argv)
{
	int id = argc > 1 ? atoi(argv[1]) : 0;
	for (int i = 0; i < N[id]; i++) {
		volatile char *p = malloc(48);
		p[0] = 1;
		free((void *)p);
	}
	return 0;
}
C
echo 'static const int N[] = {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000};' > n.h
{
	cat <<'YAML'
version: "1"
name: sh
build:
  command: [cc, -O1, -o, "${artifact}", prog.c]
defaults:
  warmup: 0
  runs: 4
  metrics: {allocations: true, cpu: false}
  regression:
    min_samples: 4
    latency: {max_percent: 50, gate: false}
    allocs: {max_percent: 5}
benchmarks:
YAML
	for i in 0 1 2 3 4 5 6 7; do
		printf '  - name: b%d\n    commands:\n      p: {command: ["${artifact}", "%d"]}\n' $i $i
	done
} > kagari.yaml
g add -A && g commit -qm base
# The head: b1 +50 %, b2 -30 %, b5 +30 % allocations; the rest the same.
echo 'static const int N[] = {1000, 1500, 700, 1000, 1000, 1300, 1000, 1000};' > n.h

# verdicts FILE: "bench/command/metric=verdict" lines of allocs, sorted.
verdicts() {
	"$PY" - "$1" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
out = []
for s in r["suites"]:
    for b in s["benchmarks"]:
        for c in b["commands"]:
            v = c.get("comparisons", {}).get("allocs")
            out.append("%s/%s=%s %s" % (b["name"], c["name"], v and v["verdict"], c["result"]))
print("\n".join(sorted(out)))
print("summary", {k: r["summary"][k] for k in ("regression", "improved", "pass", "exit_code")})
PYEOF
}

case_ "one job: the reference"
run_k compare --against HEAD --seed 7 --no-history --format json --output "$T/one.json" --quiet
expect_rc 1
verdicts "$T/one.json" > "$T/one.v"
grep -q "b1/p=regression" "$T/one.v" || fail "b1 is not a regression: $(cat "$T/one.v")"
grep -q "b2/p=improved" "$T/one.v" || fail "b2 is not improved: $(cat "$T/one.v")"

for N in 2 4; do
	case_ "$N shards are disjoint, cover every benchmark, and merge to one job's verdicts"
	files=()
	for K in $(seq 1 $N); do
		run_k compare --against HEAD --seed 7 --no-history --shard $K/$N --format json --output "$T/s$K-$N.json"
		[ "$RC" -le 1 ] || fail "shard $K/$N: exit $RC: $(tail -3 "$T/err")"
		expect_err "shard $K/$N: $((8 / N)) of 8 benchmarks (split by count)"
		files+=("$T/s$K-$N.json")
	done
	"$PY" - "${files[@]}" <<'PYEOF' || fail "shards overlap or miss a benchmark"
import json, sys
names = [b["name"] for f in sys.argv[1:] for s in json.load(open(f))["suites"] for b in s["benchmarks"]]
sys.exit(0 if sorted(names) == ["b%d" % i for i in range(8)] else 1)
PYEOF
	run_k merge "${files[@]}" --format json --output "$T/m$N.json"
	expect_rc 1
	last_err_has "regression"
	verdicts "$T/m$N.json" > "$T/m$N.v"
	diff "$T/one.v" "$T/m$N.v" >/dev/null || fail "merged verdicts differ: $(diff "$T/one.v" "$T/m$N.v")"
done

case_ "a saved report split by hand merges back to exactly its own statistics and verdicts"
"$PY" - "$T/one.json" "$T/half1.json" "$T/half2.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
for k, f in enumerate(sys.argv[2:]):
    h = json.loads(json.dumps(r))
    h["suites"][0]["benchmarks"] = [b for i, b in enumerate(r["suites"][0]["benchmarks"]) if i % 2 == k]
    h["shard"].update(index=k + 1, count=2, run_id="half%d" % k)
    json.dump(h, open(f, "w"))
PYEOF
run_k merge "$T/half1.json" "$T/half2.json" --format json --output "$T/back.json"
expect_rc 1
"$PY" - "$T/one.json" "$T/back.json" <<'PYEOF' || fail "the merged halves differ from the one job"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
ca = {x["name"]: x for x in a["suites"][0]["benchmarks"]}
cb = {x["name"]: x for x in b["suites"][0]["benchmarks"]}
sys.exit(0 if ca == cb and a["summary"] == b["summary"] else 1)
PYEOF

case_ "merge renders any format"
run_k merge "$T/half1.json" "$T/half2.json" --format markdown
expect_rc 1
expect_out "b1"
# Every format `report` renders, taken from its own list of valid ones
# (model/formats.h is the one table both use).
run_k report "$T/half1.json" --format bogus
expect_rc 3
formats=$(sed -n "s/.*'--format': expected one of //p" "$T/err" | tr '|' ' ')
[ "$(echo "$formats" | wc -w)" -ge 10 ] || fail "report's format list: '$formats'"
for f in $formats; do
	run_k merge "$T/half1.json" "$T/half2.json" --format "$f"
	expect_rc 1
	[ -s "$T/out" ] || fail "merge --format $f wrote nothing"
done

case_ "merge writes the step summary and the annotations of ci"
run_k merge "$T/half1.json" "$T/half2.json" --summary "$T/summary.md" --annotations --format json
expect_rc 1
grep -q "b1" "$T/summary.md" || fail "no summary written"
expect_err "::error"

case_ "every report records its shard, selection and a run id of its own"
json_check "$T/one.json" 'r["shard"]["index"] == 1 and r["shard"]["count"] == 1 and r["shard"]["selection"] == "" and r["shard"]["benchmarks"] == 8 and not r["shard"]["replicate"]'
json_check "$T/s3-4.json" 'r["shard"]["index"] == 3 and r["shard"]["count"] == 4 and r["shard"]["benchmarks"] == 8'
"$PY" - "$T"/s?-4.json "$T/one.json" <<'PYEOF' || fail "run ids are not unique"
import json, sys
ids = [json.load(open(f))["shard"]["run_id"] for f in sys.argv[1:]]
sys.exit(0 if len(set(ids)) == len(ids) and all(ids) else 1)
PYEOF
json_check "$T/m4.json" 'r["shard"]["index"] == 1 and r["shard"]["count"] == 1 and r["shard"]["run_id"].startswith("merge-") and r["shard"]["merged_from"] == 4'
json_check "$T/one.json" '"merged_from" not in r["shard"]'

case_ "a shard's report says in every human format that it holds a share only, a merged one that it was merged; a whole one says neither"
for f in table markdown github html; do
	run_k report "$T/s3-4.json" --format $f
	expect_out "shard 3 of 4: 2 of the 8 selected benchmarks; the others are in the other shards (kagari merge judges them all)"
	run_k report "$T/m4.json" --format $f
	expect_out "merged by kagari merge from 4 reports"
	grep -q "selected benchmarks" "$T/out" && fail "the merged report calls itself a shard ($f)"
	run_k report "$T/one.json" --format $f
	grep -q "selected benchmarks" "$T/out" && fail "a whole run calls itself a shard ($f)"
done

case_ "an incomplete set of shards is refused, naming what is missing"
run_k merge "$T/s1-2.json" --format json --output "$T/part.json"
expect_rc 2
expect_err "shard 2/2 of the run is missing (given: '$T/s1-2.json' (1/2))"
[ -e "$T/part.json" ] && fail "an incomplete merge wrote a report"
run_k merge "$T/s1-4.json" "$T/s3-4.json"
expect_rc 2
expect_err "shards 2/4, 4/4 of the run are missing"

case_ "a shard given twice, or two runs of one shard, are refused"
run_k merge "$T/s1-2.json" "$T/s2-2.json" "$T/s1-2.json"
expect_rc 2
expect_err "'$T/s1-2.json' and '$T/s1-2.json' are the same run (run id"
run_k merge --replicate "$T/s1-2.json" "$T/s1-2.json" "$T/s2-2.json"
expect_rc 2
expect_err "are the same run"
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); r["shard"]["run_id"]="again"; json.dump(r, open(sys.argv[2],"w"))' "$T/s1-2.json" "$T/s1-again.json"
run_k merge "$T/s1-2.json" "$T/s2-2.json" "$T/s1-again.json"
expect_rc 2
expect_err "'$T/s1-2.json' and '$T/s1-again.json' are both shard 1/2"

case_ "shards of different matrices are refused"
run_k merge "$T/s1-2.json" "$T/s2-4.json"
expect_rc 2
expect_err "is shard 1/2 of 8 benchmarks selected by '', '$T/s2-4.json' shard 2/4"
run_k merge "$T/one.json" "$T/s1-2.json"
expect_rc 2
expect_err "they are not shards of one matrix"

case_ "the same command in two reports is refused without --replicate"
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); r["shard"].update(index=2, run_id="x"); json.dump(r, open(sys.argv[2],"w"))' "$T/s1-2.json" "$T/s1-as-2.json"
run_k merge "$T/s1-2.json" "$T/s1-as-2.json"
expect_rc 2
expect_err "both measured suite 'sh', benchmark 'b0', command 'p'"

case_ "reports merge cannot judge are refused: no shard record, no analysis settings"
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); del r["shard"]; json.dump(r, open(sys.argv[2],"w"))' "$T/half2.json" "$T/noshard.json"
run_k merge "$T/half1.json" "$T/noshard.json"
expect_rc 2
expect_err "cannot merge '$T/noshard.json': it records no shard"
# A shard that failed the gate (b1 regressed) without its settings would
# otherwise merge to a pass with its comparisons dropped.
"$PY" - "$T/half2.json" "$T/noanalysis.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
for b in r["suites"][0]["benchmarks"]:
    for c in b["commands"]:
        c.pop("analysis", None)
json.dump(r, open(sys.argv[2], "w"))
PYEOF
json_check "$T/half2.json" 'r["summary"]["exit_code"] == 1'
run_k merge "$T/half1.json" "$T/noanalysis.json" --format json --output "$T/na.json"
expect_rc 2
expect_err "benchmark 'b1', command 'p' has no \`analysis\` settings"
[ -e "$T/na.json" ] && fail "a report merge cannot judge was merged"

case_ "reports of other commits are refused with the reason"
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); r["git"]["head_sha"]="0"*40; json.dump(r, open(sys.argv[2],"w"))' "$T/half2.json" "$T/other.json"
run_k merge "$T/half1.json" "$T/other.json"
expect_rc 2
expect_err "shards of one run measure the same commits"

case_ "--shard is checked"
run_k run kagari.yaml --shard 3/2
expect_rc 3
expect_err "--shard '3/2': expected K/N"
run_k run kagari.yaml --shard 1/9
expect_rc 3
expect_err "8 benchmarks are selected, fewer than 9 shards"
run_k run kagari.yaml --replicate
expect_rc 3

case_ "with a history of every command, shards are balanced by expected time, still disjoint"
run_k run kagari.yaml --quiet --runs 1
expect_rc 0
# Each job of a matrix starts from the same restored history: a copy each.
for K in 1 2; do
	cp .kagari/history.sqlite "$T/h$K.sqlite"
	run_k run kagari.yaml --shard $K/2 --runs 1 --history "$T/h$K.sqlite" --format json --output "$T/bal$K.json"
	expect_rc 0
	expect_err "shard $K/2:"
	expect_err "(balanced by expected time from the history)"
done
"$PY" - "$T/bal1.json" "$T/bal2.json" <<'PYEOF' || fail "balanced shards overlap or miss a benchmark"
import json, sys
names = [b["name"] for f in sys.argv[1:] for s in json.load(open(f))["suites"] for b in s["benchmarks"]]
sys.exit(0 if sorted(names) == ["b%d" % i for i in range(8)] else 1)
PYEOF

case_ "shards split differently (balanced by history, by count) are refused, naming both files"
"$PY" - "$T/bal1.json" "$T/s1-2.json" "$T/s2-2.json" <<'PYEOF' || fail "the shard records do not carry the split and its assignment"
import json, sys
reports = [json.load(open(f)) for f in sys.argv[1:4]]
b1, c1, c2 = (r["shard"] for r in reports)
names = [sorted(b["name"] for s in r["suites"] for b in s["benchmarks"]) for r in reports]
ok = b1["split"] == "balanced" and c1["split"] == c2["split"] == "count"
# The fingerprint is of the assignment: the same when balancing happened
# to give shard 1 the benchmarks counting gives it, else different.
ok = ok and c1["assignment"] == c2["assignment"]
ok = ok and (b1["assignment"] == c1["assignment"]) == (names[0] == names[1])
ok = ok and all(len(x["assignment"]) == 16 for x in (b1, c1, c2))
sys.exit(0 if ok else 1)
PYEOF
run_k run kagari.yaml --shard 2/2 --runs 1 --no-history --format json --output "$T/cnt2.json" --quiet
expect_rc 0
run_k merge "$T/bal1.json" "$T/cnt2.json" --format json --output "$T/mixed.json"
expect_rc 2
expect_err "'$T/bal1.json' assigned the benchmarks to shards balanced"
expect_err "'$T/cnt2.json' count"
[ ! -e "$T/mixed.json" ] || fail "a merge of differently split shards wrote a report"
# The same method with another assignment (say another history) too.
"$PY" - "$T/s2-2.json" "$T/s2-2x.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["shard"]["assignment"] = "0123456789abcdef"
json.dump(r, open(sys.argv[2], "w"))
PYEOF
run_k merge "$T/s1-2.json" "$T/s2-2x.json" --format json --output "$T/mixed.json"
expect_rc 2
expect_err "split the benchmarks differently"
# Shards split alike still merge.
run_k merge "$T/bal1.json" "$T/bal2.json" --format json --output "$T/balm.json"
expect_rc 0

case_ "--replicate: two jobs' rounds are pooled in blocks and the interval narrows"
run_k compare --against HEAD --seed 3 --no-history --filter '^b[0-3]$' --runs 12 --shard 1/2 --replicate --format json --output "$T/r1.json" --quiet
run_k report "$T/r1.json"
expect_out "replicate 1 of 2: every selected benchmark (kagari merge pools the replicates)"
run_k compare --against HEAD --seed 5 --no-history --filter '^b[0-3]$' --runs 12 --shard 2/2 --replicate --format json --output "$T/r2.json" --quiet
run_k merge --replicate "$T/r1.json" "$T/r2.json" --format json --output "$T/rm.json"
expect_rc 1
"$PY" - "$T/r1.json" "$T/r2.json" "$T/rm.json" <<'PYEOF' || fail "rounds were not pooled or the interval did not narrow"
import json, sys
a, b, m = (json.load(open(f)) for f in sys.argv[1:4])
def cmd(r, i): return r["suites"][0]["benchmarks"][i]["commands"][0]
for i in range(4):
    ra, rb, rm = cmd(a, i)["rounds"], cmd(b, i)["rounds"], cmd(m, i)["rounds"]
    assert rm == ra + rb, (ra, rb, rm)
    s = [x["round"] for x in cmd(m, i)["head"]["metrics"]["latency"]["samples"]]
    assert max(s) == ra + rb and min(s) == 1, s
    assert len(s) == len(cmd(a, i)["head"]["metrics"]["latency"]["samples"]) * 2
PYEOF
# The hypervisor's steal of the merged report is the worst shard's, in
# either order, and a shard without one (null) hides nothing.
"$PY" - "$T/r1.json" "$T/r2.json" "$T/s1.json" "$T/s2.json" <<'PYEOF'
import json, sys
for src, dst, v in ((sys.argv[1], sys.argv[3], None), (sys.argv[2], sys.argv[4], 25.0)):
    r = json.load(open(src)); r["environment"]["steal_percent"] = v
    json.dump(r, open(dst, "w"))
PYEOF
for order in "s1 s2" "s2 s1"; do
	set -- $order
	run_k merge --replicate "$T/$1.json" "$T/$2.json" --format json --output "$T/st.json"
	json_check "$T/st.json" 'r["environment"]["steal_percent"] == 25.0'
done
# Round numbers near INT_MAX (a report may hold any up to it) cannot be
# pooled: the sum would overflow. Refused with the reason, not wrapped.
"$PY" - "$T/r1.json" "$T/big.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
xs = [x for b in r["suites"][0]["benchmarks"] for c in b["commands"]
      for side in ("base", "head") for m in c[side]["metrics"].values()
      for x in m.get("samples", [])]
top = max(x["round"] for x in xs)
for x in xs:
    x["round"] += 2147483647 - top  # the largest round is INT_MAX
json.dump(r, open(sys.argv[2], "w"))
PYEOF
run_k merge --replicate "$T/r2.json" "$T/big.json" --format json
expect_rc 2
expect_err "too high to pool"
# The same samples as if measured twice (a second job that happened to
# measure exactly what the first did): twice the evidence, a narrower
# bootstrap interval. (The report pooled with itself is refused above.)
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); r["shard"].update(index=2, run_id="other"); json.dump(r, open(sys.argv[2],"w"))' "$T/r1.json" "$T/r1b.json"
run_k merge --replicate "$T/r1.json" "$T/r1b.json" --format json --output "$T/twice.json"
expect_rc 1
"$PY" - "$T/r1.json" "$T/twice.json" <<'PYEOF' || fail "pooling did not narrow the latency interval"
import json, sys
a, m = (json.load(open(f)) for f in sys.argv[1:3])
narrower = 0
wa = wm = 0
for x, y in zip(a["suites"][0]["benchmarks"], m["suites"][0]["benchmarks"]):
    cx, cy = x["commands"][0]["comparisons"]["latency"], y["commands"][0]["comparisons"]["latency"]
    narrower += (cy["ci_high_percent"] - cy["ci_low_percent"]) < (cx["ci_high_percent"] - cx["ci_low_percent"])
    wa += cx["ci_high_percent"] - cx["ci_low_percent"]
    wm += cy["ci_high_percent"] - cy["ci_low_percent"]
sys.exit(0 if narrower >= 2 and wm < wa else 1)
PYEOF
case_ "a shard whose build failed fails the merge (exit 4), and the example workflow cannot pass without it"
echo 'this does not compile' >> prog.c
run_k compare --against HEAD --seed 7 --no-history --shard 2/2 --format json --output "$T/bad2.json" --quiet
expect_rc 4
g checkout -q -- prog.c
run_k merge "$T/s1-2.json" "$T/bad2.json" --format json --output "$T/mbad.json"
expect_rc 4
json_check "$T/mbad.json" 'r["summary"]["exit_code"] == 4'
# The workflow: a failed shard job still uploads its report, a shard that
# uploaded nothing is named missing by merge, and the merge job fails
# whenever a shard job did not succeed.
"$PY" - "${KAGARI_SOURCE_DIR:?}/examples/github-actions/kagari-matrix.yml" <<'PYEOF' || fail "the matrix workflow lets a failed shard pass"
import re, sys
text = open(sys.argv[1]).read()
shard = text[text.index("\n  shard:"):text.index("\n  merge:")]
merge = text[text.index("\n  merge:"):]
up = shard[shard.index("actions/upload-artifact"):]
assert re.search(r"if: always\(\)", up.split("- ")[0] + up), "upload is not always()"
assert re.search(r"if: always\(\)", merge.split("steps:")[0]), "the merge job does not always run"
fail_step = re.search(r"if: always\(\) && needs\.shard\.result != 'success'\n\s+run: \|\n(?:.*\n)*?\s+exit 1", merge)
assert fail_step, "no step fails the merge job when a shard job failed"
assert "kagari merge shard-*.json" in merge
PYEOF

finish
