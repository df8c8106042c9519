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

case_ "two commands: the second compared with the first, report only (exit 0)"
run_k bench "$H sleep 2" "$H sleep 20" --runs 20 --quiet --format json --output "$T/b.json"
expect_rc 0
bj "$T/b.json" "r['mode'] == 'compare' and b['name'] == 'vs $H sleep 2' and list(cs) == ['$H sleep 20']"
bj "$T/b.json" "cs['$H sleep 20']['comparisons']['latency']['change_percent'] > 100 and not cs['$H sleep 20']['comparisons']['latency']['gate']"
bj "$T/b.json" "cs['$H sleep 20']['base']['count'] == 20 and cs['$H sleep 20']['head']['count'] == 20 and r['summary']['exit_code'] == 0"
# the base side is the first command: its latency is the shorter sleep
bj "$T/b.json" "cs['$H sleep 20']['base']['metrics']['latency']['stats']['median'] < cs['$H sleep 20']['head']['metrics']['latency']['stats']['median']"

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

case_ "-N -L: one command per value, named with -n and {NAME}; -L lists combine"
run_k bench -N -L ms 1,3 -L x a,b "$H sleep {ms}" -n "nap-{ms}-{x}" -r 4 --quiet --format json --output "$T/l.json"
expect_rc 0
bj "$T/l.json" "b['name'] == 'vs nap-1-a' and list(cs) == ['nap-1-b', 'nap-3-a', 'nap-3-b']"
bj "$T/l.json" "cs['nap-3-b']['command'] == '$H sleep 3' and cs['nap-1-b']['command'] == '$H sleep 1'"

case_ "-P NAME MIN MAX -D STEP scans numbers"
run_k bench -P ms 1 5 -D 2 "$H sleep {ms}" --runs 2 --quiet --format json --output "$T/p.json"
expect_rc 0
bj "$T/p.json" "[c['command'] for c in b['commands']] == ['$H sleep 3', '$H sleep 5'] and b['name'] == 'vs $H sleep 1'"
run_k bench --parameter-scan ms 1 2 "$H sleep {ms}" --runs 2 --quiet --format hyperfine-json
expect_rc 0
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["results"]) == 2 and all(x["parameters"]["side"] in ("base","head") for x in d["results"])' "$T/out" ||
	fail "hyperfine-json of bench: $(head -c 300 "$T/out")"

case_ "commands run in the user's folder, with the shell; --prepare before every run"
run_k bench 'pwd >> where.txt; echo "$((1+1))" >> where.txt' --runs 3 --warmup 0 --prepare 'echo p >> prep.txt' --quiet --format json --output "$T/w.json"
expect_rc 0
bj "$T/w.json" "r['mode'] == 'run' and not b['commands'][0].get('comparisons') and b['commands'][0]['head']['count'] == 3"
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
expect_err "--max-percent: 'lots'"
run_k bench --frobnicate "$H sleep 1"
expect_rc 3
expect_err "unknown option '--frobnicate'"
run_k bench -D 2 "$H sleep 1"
expect_rc 3
expect_err "-D"
run_k bench -N "'unclosed" --runs 1
expect_rc 3
expect_err "unclosed quote"
run_k bench --help
expect_rc 0
for o in --runs --warmup --prepare --shell --parameter-scan --parameter-list --parameter-step-size --command-name --max-percent --save-suite; do
	expect_out "$o"
done
ls "$TMPDIR" | grep -q '^kagari' && fail "a temporary folder was left in \$TMPDIR: $(ls "$TMPDIR")"
finish
