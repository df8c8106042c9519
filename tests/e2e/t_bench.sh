#!/bin/bash
# kagari bench 'CMD1' 'CMD2' ... (issue 15): hyperfine's habits without a
# suite or git. Commands measured interleaved, the first the baseline, each
# other compared with it (report only, exit 0; --max-percent gates);
# -N, -L and -P/-D parameters with {NAME}; --prepare; the user's folder;
# --save-suite writes a suite kagari validates and runs; bad usage is exit 3.
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/work" "$T/tmp" && cd "$T/work" || exit 1
export TMPDIR="$T/tmp" # kagari's private folders, to see that none is left

# bj FILE EXPR: EXPR over r (the report), b (the one benchmark), cs (its
# commands by name).
bj() {
	"$PY" - "$1" "$2" <<'PYEOF' || fail "json check failed: $2"
import json, sys
r = json.load(open(sys.argv[1]))
b = r["suites"][0]["benchmarks"][0]
cs = {c["name"]: c for c in b["commands"]}
ok = eval(sys.argv[2])
if not ok:
    sys.stderr.write("false: %s\nmode=%s bench=%s commands=%s\n" % (sys.argv[2], r["mode"], b["name"], {k: (c["command"], {m: (x["verdict"], x["change_percent"], x["gate"]) for m, x in (c.get("comparisons") or {}).items()}) for k, c in cs.items()}))
    sys.exit(1)
PYEOF
}

case_ "three commands: each measured once per round, the first the baseline, report only (exit 0)"
run_k bench "$H sleep 2" "$H sleep 20" "$H sleep 2" --runs 12 --quiet --format json --output "$T/b.json"
expect_rc 0
bj "$T/b.json" "r['mode'] == 'bench' and b['name'] == 'bench' and b['baseline'] == '$H sleep 2' and b['compare_with_baseline'] is True"
bj "$T/b.json" "[c['name'] for c in b['commands']] == ['$H sleep 2', '$H sleep 20', '$H sleep 2'] and all('base' not in c for c in b['commands'])"
# one run per command per round: 12 runs each, rounds 1..12 each once
bj "$T/b.json" "all(sorted(s['round'] for s in c['head']['metrics']['latency']['samples']) == list(range(1, 13)) for c in b['commands'])"
bj "$T/b.json" "'comparisons' not in b['commands'][0] or not b['commands'][0]['comparisons']"
bj "$T/b.json" "b['commands'][1]['comparisons']['latency']['change_percent'] > 100 and not b['commands'][1]['comparisons']['latency']['gate'] and r['summary']['exit_code'] == 0"
# only latency is measured (no metric nobody asked for), CPU times per run
bj "$T/b.json" "all(list(c['head']['metrics']) == ['latency'] and len(c['head']['runs']['cpu_user']) == 12 and c['head']['runs']['exit_code'] == [0] * 12 for c in b['commands'])"

case_ "the table is hyperfine's: mean ± σ, range, runs, the fastest and how many times faster, no verdict when report only"
run_k bench "$H sleep 20" "$H sleep 2" --runs 10 --quiet --no-color
expect_rc 0
expect_out "Benchmark 1: $H sleep 20"
expect_out "Time (mean ± σ):"
expect_out "Range (min … max):"
expect_out "10 runs"
expect_out "Change vs Benchmark 1 (paired by round, median): "
expect_out "Summary"
expect_out "'$H sleep 2' ran"
grep -Eq "^    [0-9]+\.[0-9]{2} ± [0-9]+\.[0-9]{2} times faster than '$H sleep 20'\$" "$T/out" || fail "no 'times faster than' line: $(cat "$T/out")"
grep -Eq "pass|regression|inconclusive|exit code|cpu_|peak_rss" "$T/out" && fail "a report-only bench shows verdicts or metrics nobody asked for: $(cat "$T/out")"

case_ "a warning every comparison gets is said once"
run_k bench -N --runs 3 --warmup 0 -L ms 1,2 -L x a,b "$H sleep {ms}" --quiet --no-color
expect_rc 0
[ "$(grep -c '^warning:' "$T/out")" -le 1 ] || fail "the same warning repeated per comparison: $(grep '^warning:' "$T/out")"

case_ "no --runs: measured until decided, at least 10 runs and 3 s; a large difference is never left undecided"
run_k bench "$H sleep 30" "$H sleep 100" --max-percent 10 --quiet --format json --output "$T/seq.json"
expect_rc 1
bj "$T/seq.json" "b['commands'][1]['comparisons']['latency']['verdict'] == 'regression'"
bj "$T/seq.json" "all(c['head']['count'] >= 10 and sum(s['value'] for s in c['head']['metrics']['latency']['samples']) >= 3e9 for c in b['commands'])"

case_ "--max-percent gates: a 6x slower command fails (exit 1), a faster one does not"
# (at most 3 attempts: on a busy machine a wide spread can leave one
# comparison inconclusive; the verdict rules are tested elsewhere)
for i in 1 2 3; do
	run_k bench "$H sleep 10" "$H sleep 60" --runs 16 --max-percent 10 --quiet --format json --output "$T/g.json"
	[ "$RC" = 1 ] && break
done
expect_rc 1
bj "$T/g.json" "cs['$H sleep 60']['comparisons']['latency']['verdict'] == 'regression' and cs['$H sleep 60']['comparisons']['latency']['gate']"
last_err_has "regression"
run_k bench "$H sleep 60" "$H sleep 10" --runs 16 --max-percent 10 --quiet --format json --output "$T/g2.json"
expect_rc 0
bj "$T/g2.json" "cs['$H sleep 10']['comparisons']['latency']['verdict'] != 'regression' and cs['$H sleep 10']['comparisons']['latency']['change_percent'] < -50"

case_ "the gate line counts the compared commands only, never the reference"
# Two commands are one comparison: the first is the reference, no pass.
run_k report "$T/g.json"
expect_rc 1
expect_out "gate: 0 pass, 1 regression · exit code 1"
run_k report "$T/g2.json"
expect_rc 0
grep -qE '^gate: (0 pass, 1 improved|1 pass) · exit code 0$' "$T/out" ||
	fail "the gate line of one faster command: $(grep '^gate' "$T/out")"

case_ "-N -L -L: hyperfine's order of combinations (the first parameter fastest), named with -n and {NAME}"
run_k bench -N -L ms 1,3 -L x a,b "$H sleep {ms}" -n "nap-{ms}-{x}" -r 4 --quiet --format json --output "$T/l.json"
expect_rc 0
bj "$T/l.json" "[c['name'] for c in b['commands']] == ['nap-1-a', 'nap-3-a', 'nap-1-b', 'nap-3-b'] and b['baseline'] == 'nap-1-a'"
bj "$T/l.json" "cs['nap-3-b']['command'] == '$H sleep 3' and cs['nap-3-b']['matrix'] == {'ms': '3', 'x': 'b'}"
run_k bench -N -L ms 1,3 -L x a,b "$H sleep {ms}" -n "nap-{ms}-{x}" -r 3 --quiet --format hyperfine-json
expect_rc 0
"$PY" - "$T/out" <<'PYEOF' || fail "hyperfine-json of -L -L: $(head -c 600 "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))["results"]
assert [x["command"] for x in d] == ["nap-1-a", "nap-3-a", "nap-1-b", "nap-3-b"], d
assert [x["parameters"] for x in d] == [{"ms": "1", "x": "a"}, {"ms": "3", "x": "a"}, {"ms": "1", "x": "b"}, {"ms": "3", "x": "b"}]
assert all(isinstance(x["user"], float) and isinstance(x["system"], float) and x["exit_codes"] == [0, 0, 0] for x in d)
PYEOF

case_ "-N starts no shell: the command is the process measured"
run_k bench -N "$H parent-to $T/parent-n.txt" --runs 2 --warmup 0 --quiet
expect_rc 0
run_k bench "$H parent-to $T/parent-sh.txt" --runs 2 --warmup 0 --quiet
expect_rc 0
grep -q "^sh $T/work\$" "$T/parent-sh.txt" || fail "with a shell the command's parent is not sh in the user's folder: $(cat "$T/parent-sh.txt")"
[ "$(grep -c "^kagari-runner $T/work\$" "$T/parent-n.txt")" = 2 ] || fail "-N: the command was not started by the runner itself in the user's folder: $(cat "$T/parent-n.txt")"
run_k bench "$H sleep 1" -N --runs 2 --warmup 0 --quiet --save-suite "$T/n.yaml"
grep -q "command: \[\"$H\", \"sleep\", \"1\"\]" "$T/n.yaml" || fail "-N did not save an argv: $(cat "$T/n.yaml")"

case_ "-P NAME MIN MAX -D STEP scans numbers; hyperfine's parameters and names"
run_k bench -P ms 1 5 -D 2 "$H sleep {ms}" --runs 2 --quiet --format json --output "$T/p.json"
expect_rc 0
bj "$T/p.json" "[c['command'] for c in b['commands']] == ['$H sleep 1', '$H sleep 3', '$H sleep 5'] and b['baseline'] == '$H sleep 1'"
run_k bench --parameter-scan ms 1 2 "$H sleep {ms}" --runs 2 --quiet --format hyperfine-json
expect_rc 0
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [x["parameters"] for x in d["results"]] == [{"ms": "1"}, {"ms": "2"}]' "$T/out" ||
	fail "hyperfine-json of bench -P: $(head -c 300 "$T/out")"
run_k bench -P x 0 1 -D 0.5 "true {x}" --runs 1 --warmup 0 --quiet --format hyperfine-json
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [x["parameters"]["x"] for x in d["results"]] == ["0", "0.5", "1.0"], d' "$T/out" ||
	fail "-D 0.5 values are not written as hyperfine writes them: $(head -c 300 "$T/out")"

case_ "--export-json, --export-csv and --export-markdown at once, beside --format/--output"
run_k bench "$H sleep 1" "$H sleep 80" -n one -n five --runs 3 --quiet --export-json "$T/e.json" --export-csv "$T/e.csv" --export-markdown "$T/e.md" --format json --output "$T/e-report.json"
expect_rc 0
bj "$T/e-report.json" "list(cs) == ['one', 'five']"
"$PY" - "$T/e.json" "$T/e.csv" "$T/e.md" <<'PYEOF' || fail "exports: $(cat "$T/e.csv" "$T/e.md")"
import json, sys, csv
j = json.load(open(sys.argv[1]))["results"]
assert [x["command"] for x in j] == ["one", "five"]
rows = list(csv.reader(open(sys.argv[2])))
assert rows[0] == ["command", "mean", "stddev", "median", "user", "system", "min", "max"], rows[0]
assert [r[0] for r in rows[1:]] == ["one", "five"] and all(0 < float(v) < 1 for v in rows[1][1:3])
md = open(sys.argv[3]).read().splitlines()
assert md[0] == "| Command | Mean [ms] | Min [ms] | Max [ms] | Relative |" and md[1] == "|:---|---:|---:|---:|---:|", md
assert md[2].startswith("| `one` | ") and md[2].endswith(" | 1.00 |") and md[3].startswith("| `five` | "), md
PYEOF
run_k bench "$H sleep 1" --runs 2 --quiet -u second --export-markdown "$T/s.md"
expect_rc 0
grep -q "Mean \[s\]" "$T/s.md" || fail "-u second: $(cat "$T/s.md")"
expect_out "s ±"

case_ "-i: a failing command still runs and its real exit codes are exported; -s and -c run once"
run_k bench -i "$H exit 3" "$H sleep 1" --runs 3 --quiet -s "echo s >> setup.txt" -c "echo c >> cleanup.txt" --export-json "$T/i.json"
expect_rc 0
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1]))["results"]; assert d[0]["exit_codes"] == [3, 3, 3] and d[1]["exit_codes"] == [0, 0, 0], d' "$T/i.json" ||
	fail "-i exit codes: $(cat "$T/i.json")"
[ "$(cat setup.txt)" = s ] && [ "$(cat cleanup.txt)" = c ] || fail "-s/-c did not run once each: $(cat setup.txt cleanup.txt)"
run_k bench "$H exit 3" "$H sleep 1" --runs 3 --quiet
expect_rc 4

case_ "commands run in the user's folder, with the shell; --prepare before every run"
run_k bench 'pwd >> where.txt; echo "$((1+1))" >> where.txt' --runs 3 --warmup 0 --prepare 'echo p >> prep.txt' --quiet --format json --output "$T/w.json"
expect_rc 0
bj "$T/w.json" "r['mode'] == 'bench' and not b['commands'][0].get('comparisons') and b['commands'][0]['head']['count'] == 3"
[ "$(grep -c "^$T/work\$" where.txt)" = 3 ] || fail "the command did not run 3 times in the user's folder: $(cat where.txt)"
[ "$(grep -c '^2$' where.txt)" = 3 ] || fail "the command did not run in a shell: $(cat where.txt)"
[ "$(wc -l < prep.txt)" -ge 3 ] || fail "--prepare did not run before every run: $(wc -l < prep.txt)"

case_ "--save-suite writes a suite that validates and runs the same commands"
run_k bench "$H sleep 1" "$H sleep 2" -r 2 --warmup 0 --prepare "true" --save-suite saved.yaml --quiet --format json --output "$T/s.json"
expect_rc 0
run_k validate saved.yaml
expect_rc 0
run_k run saved.yaml --quiet --format json --output "$T/sr.json"
expect_rc 0
"$PY" - "$T/sr.json" "$H" <<'PYEOF' || fail "the saved suite does not measure the same commands"
import json, sys
r = json.load(open(sys.argv[1]))
b = r["suites"][0]["benchmarks"][0]
assert b["baseline"] == "c1" and [c["name"] for c in b["commands"]] == ["c1", "c2"], b
assert all(c["head"]["count"] == 2 for c in b["commands"])
PYEOF
grep -q "sleep 2" saved.yaml || fail "saved.yaml lacks the command: $(cat saved.yaml)"
run_k bench -N "$H sleep 1" -r 2 --save-suite saved-n.yaml --quiet
expect_rc 0
run_k validate saved-n.yaml
expect_rc 0
grep -q "command: \[\"$H\", \"sleep\", \"1\"\]" saved-n.yaml || fail "-N did not save an argv: $(cat saved-n.yaml)"

case_ "--save-suite elsewhere: the saved suite runs its commands where bench ran them"
# A project (a repository) with a data file the commands name relatively.
mkdir -p "$T/proj/.git" "$T/proj/suites" "$T/elsewhere" && cd "$T/proj" || exit 1
seq 100 > data.txt
run_k bench "wc -l data.txt" "cat data.txt" -r 2 --warmup 0 --prepare "test -f data.txt" --save-suite suites/s.yaml --quiet
expect_rc 0
grep -q 'cwd: "\.\."' suites/s.yaml || fail "no cwd relative to the saved file's folder: $(cat suites/s.yaml)"
(cd / && "$KAGARI" run "$T/proj/suites/s.yaml" --quiet --format json --output "$T/ss.json" >"$T/out" 2>"$T/err"); RC=$?
expect_rc 0
json_check "$T/ss.json" 'all(c["head"]["count"] == 2 and not c.get("error") for c in r["suites"][0]["benchmarks"][0]["commands"])'
# A folder outside the saved file's repository: no cwd can reach it.
mkdir -p "$T/elsewhere/.git"
run_k bench -N "wc -l data.txt" -r 2 --warmup 0 --save-suite "$T/elsewhere/s.yaml" --quiet
expect_rc 0
(cd / && "$KAGARI" run "$T/elsewhere/s.yaml" --quiet --format json --output "$T/se.json" >"$T/out" 2>"$T/err"); RC=$?
expect_rc 0
json_check "$T/se.json" 'all(c["head"]["count"] == 2 and not c.get("error") for c in r["suites"][0]["benchmarks"][0]["commands"])'
cd "$T/work" || exit 1

case_ "a failing command is exit 4 with its error"
run_k bench "$H exit 3" --runs 2 --quiet
expect_rc 4
expect_err "exit"

case_ "bad usage is exit 3 with what is wrong"
run_k bench
expect_rc 3
expect_err "at least one command"
run_k bench -P ms 5 1 "$H sleep {ms}"
expect_rc 3
expect_err "MAX 1 is below MIN 5"
run_k bench "$H sleep {ms}" -P ms 1
expect_rc 3
expect_err "-P needs NAME MIN MAX"
run_k bench --max-percent lots "$H sleep 1"
expect_rc 3
expect_err "--max-percent 'lots': 'lots' is not a percentage"
# compare's parser and range: a tolerance bench's own suite would refuse is
# a usage error naming the option, never "invalid suite" naming a file the
# user did not write; 0x10 is no percentage.
for bad in 1e-5 0.00001 0 1001 0x10 -5; do
	run_k bench --max-percent "$bad" "$H sleep 1" --runs 2 --quiet
	expect_rc 3
	expect_err "--max-percent '$bad'"
	grep -q "kagari.yaml" "$T/err" && fail "--max-percent $bad names a suite file: $(cat "$T/err")"
done
# What compare takes, bench takes: a percent sign, and a small tolerance
# written into its suite as typed (no exponent the suite would refuse).
for p in "2.5%:2.5" "0.0012345:0.0012345" "1000:1000"; do
	run_k bench "$H sleep 1" --runs 2 --warmup 0 --max-percent "${p%%:*}" --quiet --save-suite "$T/p.yaml" --format json --output "$T/p.json"
	expect_rc 0
	grep -q "max_percent: ${p#*:}," "$T/p.yaml" || fail "--max-percent ${p%%:*}: $(grep max_percent "$T/p.yaml")"
	bj "$T/p.json" "all(c['analysis']['metrics']['latency']['max_percent'] == ${p#*:} and c['analysis']['metrics']['latency']['gate'] for c in b['commands'])"
	run_k validate "$T/p.yaml"
	expect_rc 0
done
run_k compare --against HEAD --max-percent 0.00001
expect_rc 3
expect_err "--max-percent '0.00001': percentage '0.00001' is out of range [0.001, 1000]"
run_k bench --parameter-list=n 1,2 "$H sleep {n}"
expect_rc 3
expect_err "takes 2 values"
run_k bench -L 'n-1' 1,2 "$H sleep 1"
expect_rc 3
expect_err "'n-1' is not a parameter name"
run_k bench --frobnicate "$H sleep 1"
expect_rc 3
expect_err "unknown option '--frobnicate'"
run_k bench -D 2 "$H sleep 1"
expect_rc 3
expect_err "-D"
run_k bench -N "'unclosed" --runs 1
expect_rc 3
expect_err "unclosed quote"
run_k bench --style fancy "$H sleep 1"
expect_rc 3
expect_err "--style: 'fancy'"
run_k bench -u hours "$H sleep 1"
expect_rc 3
expect_err "--time-unit: 'hours'"
run_k bench --min-runs 5 --max-runs 2 "$H sleep 1"
expect_rc 3
expect_err "--min-runs 5 is above --max-runs 2"
run_k bench --export-csv "" "$H sleep 1"
expect_rc 3
expect_err "--export-csv: empty"
run_k bench --help
expect_rc 0
for o in --runs --warmup --prepare --shell --parameter-scan --parameter-list --parameter-step-size --command-name --max-percent --save-suite --setup --cleanup --ignore-failure --min-runs --max-runs --time-unit --style --export-json --export-csv --export-markdown; do
	expect_out "$o"
done
ls "$TMPDIR" | grep -q '^kagari' && fail "a temporary folder was left in \$TMPDIR: $(ls "$TMPDIR")"
finish
