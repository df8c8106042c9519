#!/bin/bash
# Memory-layout noise (`layout_noise`, on by default): every timed run gets
# KAGARI_LAYOUT_PAD of a random length (0..4095 bytes), drawn from the run
# seed once per round and shared by every run of that round on both sides
# of a compare (common random numbers), and recorded per sample
# (`layout_pad` in the JSON samples and the samples-csv). The commands here
# append what they see to a file, so the test compares what the program
# saw with what the report says.
. "$(dirname "$0")/lib.sh"

export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE KAGARI_LAYOUT_PAD
g() { git -c user.name=t -c user.email=t@t -c core.hooksPath=/dev/null -c init.defaultBranch=main "$@"; }

# suite FILE EXTRA-DEFAULTS [EXTRA-METRICS]: command `on` logs "SIDE LENGTH"
# (SIDE from ${root}/side), command `off` (layout_noise: false on the
# command) logs "off" and the variable or "unset".
suite() {
	cat > "$1" <<YAML
version: "1"
name: lay
defaults:
  runs: 10
  runs_per_round: 2
  warmup: 0
  $2
benchmarks:
  - name: b
    metrics: {cpu: true${3:+, $3}}
    commands:
      on:
        command: [sh, -c, 'n=unset; [ -z "\$\${KAGARI_LAYOUT_PAD+x}" ] || n=\$\${#KAGARI_LAYOUT_PAD}; echo "\$(cat "\$1") \$n" >> "\$0"', "$T/lens", "\${root}/side"]
      off:
        command: [sh, -c, 'echo "off \$\${KAGARI_LAYOUT_PAD-unset}" >> "\$0"', "$T/lens"]
        layout_noise: false
YAML
}

# pads FILE COMMAND SIDE: the recorded pads of the latency samples, in run
# order, space-separated ("None" where a sample has none).
pads() {
	"$PY" - "$@" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
c = [c for c in r["suites"][0]["benchmarks"][0]["commands"] if c["name"] == sys.argv[2]][0]
print(" ".join(str(s.get("layout_pad")) for s in c[sys.argv[3]]["metrics"]["latency"]["samples"]))
PYEOF
}

seen() { # seen SIDE: the lengths the `on` command saw on that side, in order
	awk -v s="$1" '$1 == s { printf "%s%s", sep, $2; sep = " " } END { print "" }' "$T/lens"
}

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
echo base > side
suite kagari.yaml ""
g add -A && g commit -qm base
echo head > side

# per_round LENGTHS...: "ok" when each round's two runs (runs_per_round 2)
# saw one length, else the first pair that did not
per_round() {
	while [ $# -ge 2 ]; do
		[ "$1" = "$2" ] || { echo "$1 $2"; return; }
		shift 2
	done
	echo ok
}

case_ "run: each round's runs see one pad, rounds vary, recorded per sample"
rm -f "$T/lens"
run_k run --seed 11 --quiet --format json --output "$T/r1.json"
expect_rc 0
[ "$(seen head)" = "$(pads "$T/r1.json" on head)" ] || fail "seen '$(seen head)' but recorded '$(pads "$T/r1.json" on head)'"
[ "$(per_round $(seen head))" = ok ] || fail "a round's two runs saw different pads: $(seen head)"
n=$(seen head | tr ' ' '\n' | sort -u | wc -l)
[ "$n" -ge 4 ] || fail "only $n distinct lengths in 5 rounds: $(seen head)"
for l in $(seen head); do
	[ "$l" -ge 0 ] && [ "$l" -lt 4096 ] || fail "length $l outside 0..4095"
done
json_check "$T/r1.json" 'all(s["layout_pad"] == c["head"]["metrics"]["latency"]["samples"][i]["layout_pad"] for c in r["suites"][0]["benchmarks"][0]["commands"][:1] for m in ("cpu_total", "peak_rss") if m in c["head"]["metrics"] for i, s in enumerate(c["head"]["metrics"][m]["samples"]))'

case_ "layout_noise: false: the variable is absent, no layout_pad recorded"
[ "$(grep -c '^off unset$' "$T/lens")" = 10 ] || fail "off saw: $(grep '^off' "$T/lens" | sort | uniq -c)"
[ "$(pads "$T/r1.json" off head)" = "$(echo None None None None None None None None None None)" ] || fail "off recorded $(pads "$T/r1.json" off head)"

case_ "the same --seed gives the same lengths, another seed others"
rm -f "$T/lens"
run_k run --seed 11 --quiet --format json --output "$T/r2.json"
[ "$(pads "$T/r2.json" on head)" = "$(pads "$T/r1.json" on head)" ] || fail "seed 11 twice: '$(pads "$T/r2.json" on head)' vs '$(pads "$T/r1.json" on head)'"
run_k run --seed 12 --quiet --format json --output "$T/r3.json"
[ "$(pads "$T/r3.json" on head)" != "$(pads "$T/r1.json" on head)" ] || fail "seeds 11 and 12 drew the same lengths"

case_ "runs one at a time (perf counters per run) draw the same lengths as batches"
suite perf.yaml "" "counters: [instructions], instrument: perf"
rm -f "$T/lens"
KAGARI_TEST_COUNTERS_SOFTWARE=1 run_k run perf.yaml --seed 11 --quiet --format json --output "$T/r4.json"
expect_rc 0
json_check "$T/r4.json" '"instructions" in r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]'
[ "$(seen head)" = "$(pads "$T/r1.json" on head)" ] || fail "unbatched saw '$(seen head)', batched recorded '$(pads "$T/r1.json" on head)'"
[ "$(grep -c '^off unset$' "$T/lens")" = 10 ] || fail "off saw a pad in unbatched runs"

case_ "samples-csv has a layout_pad column"
run_k report "$T/r1.json" --format samples-csv
expect_rc 0
head -n 1 "$T/out" | grep -qx 'suite,benchmark,command,side,round,run,metric,unit,value,layout_pad' || fail "header: $(head -n 1 "$T/out")"
grep -q '^lay,b,on,head,[0-9]*,[0-9]*,latency,ns,[0-9.]*,[0-9][0-9]*$' "$T/out" || fail "no on row with a pad: $(head -n 3 "$T/out")"
grep -q '^lay,b,off,head,[0-9]*,[0-9]*,latency,ns,[0-9.]*,$' "$T/out" || fail "no off row with an empty pad"

case_ "compare: a round's pad is shared by base and head; rounds vary; reanalysis keeps them"
rm -f "$T/lens"
run_k compare --against HEAD --runs 20 --seed 5 --quiet --format json --output "$T/c1.json"
[ "$RC" -le 1 ] || fail "compare exit $RC: $(tail -n 3 "$T/err")"
[ "$(seen base)" = "$(pads "$T/c1.json" on base)" ] || fail "base saw '$(seen base)' but recorded '$(pads "$T/c1.json" on base)'"
[ "$(seen head)" = "$(pads "$T/c1.json" on head)" ] || fail "head saw '$(seen head)' but recorded '$(pads "$T/c1.json" on head)'"
[ "$(seen base)" = "$(seen head)" ] || fail "base saw '$(seen base)', head '$(seen head)': not one pad per round"
[ "$(per_round $(seen base))" = ok ] || fail "a round's two base runs saw different pads: $(seen base)"
nb=$(seen base | tr ' ' '\n' | sort -u | wc -l)
[ "$nb" -ge 8 ] || fail "only $nb distinct lengths in 10 rounds: $(seen base)"
for l in $(seen base) $(seen head); do
	[ "$l" -ge 0 ] && [ "$l" -lt 4096 ] || fail "length $l outside 0..4095"
done
run_k report "$T/c1.json" --reanalyze --format json --output "$T/c2.json"
[ "$RC" -le 1 ] || fail "report --reanalyze exit $RC"
[ "$(pads "$T/c2.json" on base)" = "$(pads "$T/c1.json" on base)" ] || fail "reanalysed report lost the pads"

case_ "layout_noise: false in defaults turns it off everywhere; validate accepts the key"
suite quiet.yaml "layout_noise: false"
run_k validate quiet.yaml
expect_rc 0
rm -f "$T/lens"
run_k run quiet.yaml --seed 11 --quiet --format json --output "$T/q.json"
expect_rc 0
[ "$(seen head)" = "$(echo unset unset unset unset unset unset unset unset unset unset)" ] || fail "a pad with layout_noise: false: $(seen head)"
[ "$(pads "$T/q.json" on head)" = "$(echo None None None None None None None None None None)" ] || fail "recorded $(pads "$T/q.json" on head)"

case_ "layout_noise must be a boolean, named with file:line:col"
suite bad.yaml "layout_noise: sometimes"
run_k validate bad.yaml
expect_rc 2
expect_err "bad.yaml:7:"
expect_err "layout_noise"

finish
