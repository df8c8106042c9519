#!/bin/bash
# The stall filter's warning is said once in each report: on the terminal
# after the table (not again on stderr), on stderr when no table is shown,
# and in Markdown as its comparison row's "rounds dropped: N" (not again in
# a list of warnings). A command whose 5th and 7th runs take 300 ms instead
# of 20 ms: one round in which both sides have a slow run, which the
# filter drops (runs_per_round: 2; with --seed 1 the 5th run is a base
# run and the 7th a head run of round 2). Every case requires the note to
# be there: a filter that dropped nothing, or a report that said nothing,
# fails it.
. "$(dirname "$0")/lib.sh"

git_sandbox
R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
cat > s.sh <<SH
#!/bin/sh
n=\$(cat "$T/count" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n > "$T/count"
if [ \$n -eq 5 ] || [ \$n -eq 7 ]; then sleep 0.3; else sleep 0.02; fi
SH
chmod +x s.sh
cat > kagari.yaml <<'YAML'
version: "1"
name: st
defaults:
  warmup: 0
  runs: 16
  runs_per_round: 2
  regression: {latency: {max_percent: 10, gate: false}}
benchmarks:
  - name: b
    commands:
      s: {command: ["./s.sh"]}
YAML
g add -A && g commit -qm c0

case_ "table on stdout: the warning once, after the table; nothing on stderr"
rm -f "$T/count"
run_k compare --against HEAD --seed 1 --quiet --summary "$T/sum.md"
expect_rc 0
n_out=$(grep -c "stall filter dropped" "$T/out")
n_err=$(grep -c "stall filter dropped" "$T/err")
[ "$(cat "$T/count")" -eq 32 ] || fail "not 32 runs of s.sh (16 a side): $(cat "$T/count")"
[ "$n_err" -eq 0 ] || fail "the warning on stderr beside the table: $(cat "$T/err")"
[ "$n_out" -eq 1 ] || fail "the warning $n_out times on stdout, not once: $(cat "$T/out")"
expect_out "stall filter dropped 1 of 8 rounds"
expect_out ": round 2 ("
# After the table: below the comparison, above the summary line.
awk '/stall filter dropped/{w=NR} /^summary:/{s=NR} /latency .*→/{c=NR} END{exit !(c && w && s && c < w && w < s)}' "$T/out" ||
	fail "the warning is not between the table and its summary: $(cat "$T/out")"
grep -q "stall filter dropped" "$T/sum.md" && fail "the Markdown summary repeats the warning: $(grep -n 'stall' "$T/sum.md")"
[ "$(grep -c 'rounds dropped: 2' "$T/sum.md")" -eq 1 ] || fail "the Markdown row does not say the dropped round 2 once: $(cat "$T/sum.md")"

case_ "json on stdout: the warning once, on stderr"
rm -f "$T/count"
run_k compare --against HEAD --seed 1 --quiet --format json --output "$T/r.json"
expect_rc 0
json_check "$T/r.json" "r['suites'][0]['benchmarks'][0]['commands'][0]['comparisons']['latency']['dropped_rounds'] == [2]"
[ "$(grep -c "stall filter dropped 1 of 8 rounds" "$T/err")" -eq 1 ] || fail "the dropped round's warning not once on stderr: $(cat "$T/err")"

case_ "markdown: a dropped round is said in its row, not again under Warnings"
# The same report with a dropped round whatever the machine did.
"$PY" - "$T/r.json" "$T/d.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
c = r['suites'][0]['benchmarks'][0]['commands'][0]['comparisons']['latency']
c['dropped_rounds'] = [2]
r['warnings'] = ['b/s latency: stall filter dropped 1 of 8 rounds (within-side spread above 0.419): round 2 (base 307.9 ms, 35.22 ms; head 32.04 ms, 312.2 ms; spread 1.628)',
                 'another warning']
json.dump(r, open(sys.argv[2], 'w'))
PYEOF
run_k report "$T/d.json" --format markdown
expect_rc 0
[ "$(grep -c 'rounds dropped: 2' "$T/out")" -eq 1 ] || fail "the row lacks 'rounds dropped: 2': $(grep '| b |' "$T/out")"
grep -q "stall filter dropped" "$T/out" && fail "the warning is said twice in Markdown: $(grep -n 'stall' "$T/out")"
expect_out "- another warning"
run_k report "$T/d.json"
[ "$(grep -c "stall filter dropped" "$T/out")" -eq 1 ] || fail "the table does not say the warning once: $(cat "$T/out")"
[ -s "$T/err" ] && grep -q "stall" "$T/err" && fail "report's table and stderr both say it"
finish
