#!/bin/bash
# The history: every run appends to .kagari/history.sqlite beside the suite
# (with a .gitignore kagari writes), --history FILE and --no-history; a
# corrupt, locked or newer database is exit 4 with a message naming it and
# the report is still written; two kagari processes append at once without
# losing a run; an old schema is migrated forward keeping its rows.
# `kagari history` over a scripted series of commits finds a planted step at
# its commit (allocation counts are exact, so this does not depend on the
# machine's timing), no step on an A/A series, and keeps other machines'
# points apart.
. "$(dirname "$0")/lib.sh"

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE KAGARI_MACHINE_ID
g() { git -c user.name=t -c user.email=t@t -c core.hooksPath=/dev/null -c init.defaultBranch=main "$@"; }

# suite N: a suite whose one command makes N allocations.
suite() {
	cat > kagari.yaml <<YAML
version: "1"
name: s
defaults: {warmup: 0, runs: 2, metrics: {allocations: true, cpu: false}}
benchmarks:
  - name: b
    commands:
      m: {command: ["$H", "mallocs", "$1"]}
      same: {command: ["$H", "mallocs", "500"]}
YAML
}

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
SHAS=()
for i in $(seq 1 10); do
	n=1000
	[ "$i" -ge 6 ] && n=1250
	suite $n
	echo "$i" > i.txt
	g add -A && g commit -qm "c$i"
	SHAS+=("$(g rev-parse HEAD)")
	"$KAGARI" run kagari.yaml --quiet --format json --output "$T/run$i.json" 2>"$T/err" ||
		fail "run $i: $(cat "$T/err")"
done

case_ "every run is recorded beside the suite, and git ignores the folder"
[ -f .kagari/history.sqlite ] || fail "no .kagari/history.sqlite"
grep -qx '\*' .kagari/.gitignore || fail ".kagari/.gitignore lacks '*'"
[ -z "$(g status --porcelain)" ] || fail "the history made the tree dirty: $(g status --porcelain)"
run_k history --format json
expect_rc 0
cp "$T/out" "$T/h.json"
json_check "$T/h.json" 'r["runs"] == 10'

case_ "the planted step is found at its commit, with its size"
json_check "$T/h.json" '[(s["benchmark"], s["command"], s["metric"]) for s in r["series"] if s["metric"] == "allocs"] == [("b", "m", "allocs"), ("b", "same", "allocs")]'
json_check "$T/h.json" "[len(s['points']) for s in r['series'] if s['metric'] == 'allocs'] == [10, 10]"
json_check "$T/h.json" "[s['steps'] for s in r['series'] if s['command'] == 'm' and s['metric'] == 'allocs'][0] == [{'from_sha': '${SHAS[4]}', 'to_sha': '${SHAS[5]}', 'before': 1000.0, 'after': 1250.0, 'change_percent': 25.0, 'evidence': 'series', 'verdict': None, 'ci_low_percent': None, 'ci_high_percent': None, 'run': None}]"
json_check "$T/h.json" "[p['sha'] for p in r['series'][0]['points']] == '${SHAS[*]}'.split()"

case_ "no step on an A/A series"
json_check "$T/h.json" "[s['steps'] for s in r['series'] if s['command'] == 'same' and s['metric'] == 'allocs'] == [[]]"

case_ "the table names the step's commit range and size"
run_k history --metric allocs
expect_rc 0
expect_out "step ${SHAS[4]:0:10} → ${SHAS[5]:0:10}  +25.0%  (1000 → 1250)"
expect_out "no steps"

case_ "markdown and html: one trend plot per series with the step marked"
run_k history --metric allocs --format html --output "$T/h.html"
expect_rc 0
[ "$(grep -c '<svg class="plot"' "$T/h.html")" -eq 2 ] || fail "expected 2 plots: $(grep -c '<svg' "$T/h.html")"
grep -q "step at ${SHAS[5]:0:10}" "$T/h.html" || fail "the plot does not mark the step"
run_k history --metric allocs --format markdown
expect_rc 0
expect_out "| \`${SHAS[4]:0:10}\` | \`${SHAS[5]:0:10}\` | +25.0% |"

case_ "filters select benchmarks as for run"
run_k history --filter nomatch
expect_rc 3

case_ "another machine's points are shown apart, never mixed"
KAGARI_MACHINE_ID=elsewhere "$KAGARI" run kagari.yaml --quiet >/dev/null 2>&1
run_k history --format json --metric allocs
cp "$T/out" "$T/h2.json"
json_check "$T/h2.json" '[s["this_machine"] for s in r["series"]] == [True, True, False, False]'
json_check "$T/h2.json" 'len(r["series"][0]["points"]) == 10 and len(r["series"][2]["points"]) == 1'
json_check "$T/h2.json" 'r["series"][2]["machine"] != r["series"][0]["machine"] == r["machine"]'
run_k history --metric allocs
expect_out "other machines (apart, never mixed with this one):"
[ "$(grep -c '^other machines' "$T/out")" = 1 ] || fail "the other machines' heading is not shown once"
run_k history --metric allocs --format markdown
expect_out "## Other machines"
[ "$(grep -c '^## Other machines' "$T/out")" = 1 ] || fail "the markdown heading is not shown once"

case_ "a dirty working tree stands for no commit"
echo dirty > i.txt
"$KAGARI" run kagari.yaml --quiet >/dev/null 2>&1
g checkout -q i.txt
run_k history --format json --metric allocs
json_check "$T/out" 'r["runs"] == 12 and len(r["series"][0]["points"]) == 10'

case_ "--no-history records nothing; --history FILE records there"
run_k run kagari.yaml --quiet --no-history
expect_rc 0
run_k history --format json
json_check "$T/out" 'r["runs"] == 12'
run_k run kagari.yaml --quiet --history "$T/other/h.sqlite"
expect_rc 0
[ -f "$T/other/h.sqlite" ] || fail "--history FILE was not created"
run_k history --history "$T/other/h.sqlite" --format json
json_check "$T/out" 'r["runs"] == 1'

case_ "no history yet is exit 3 naming the file"
run_k history --history "$T/none.sqlite"
expect_rc 3
expect_err "no history at '$T/none.sqlite'"

case_ "a corrupt history is exit 4 with a message; the report is still written"
head -c 8192 /dev/urandom > "$T/bad.sqlite"
run_k run kagari.yaml --quiet --history "$T/bad.sqlite" --format json --output "$T/kept.json"
expect_rc 4
expect_err "history '$T/bad.sqlite'"
expect_err "the run was not recorded (the reports were written"
last_err_has "could not be recorded in the history"
json_check "$T/kept.json" 'r["summary"]["exit_code"] == 0 and r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]["allocs"]["stats"]["median"] == 1250'

case_ "a locked history is exit 4 after the busy timeout; the report is still written"
rm -f "$T/kept.json"
"$PY" - "$R/.kagari/history.sqlite" "$T/locked" "$T/release" <<'PYEOF' &
import sqlite3, sys, os, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
open(sys.argv[2], "w").close()
while not os.path.exists(sys.argv[3]):
    time.sleep(0.02)
c.execute("ROLLBACK")
PYEOF
LOCKER=$!
wait_until 20 test -f "$T/locked"
KAGARI_HISTORY_TIMEOUT_MS=200 "$KAGARI" run kagari.yaml --quiet --format json --output "$T/kept.json" >"$T/out" 2>"$T/err"
RC=$?
touch "$T/release"
wait $LOCKER
expect_rc 4
expect_err "locked"
[ -s "$T/kept.json" ] || fail "the report was lost"
run_k history --format json
json_check "$T/out" 'r["runs"] == 12'

case_ "two kagari processes append at once without losing a run"
for k in 1 2; do
	(for j in 1 2 3; do "$KAGARI" run kagari.yaml --quiet >/dev/null 2>>"$T/conc$k.err" || echo "rc $?" >>"$T/conc$k.err"; done) &
done
wait
[ ! -s "$T/conc1.err" ] && [ ! -s "$T/conc2.err" ] || fail "a concurrent writer failed: $(cat "$T"/conc*.err)"
run_k history --format json
json_check "$T/out" 'r["runs"] == 18'

case_ "an older schema is migrated forward, keeping its runs"
cp .kagari/history.sqlite "$T/old.sqlite"
"$PY" -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("DROP INDEX results_series"); c.execute("DROP INDEX results_run"); c.execute("DROP INDEX runs_machine"); c.execute("DROP INDEX runs_origin"); c.execute("ALTER TABLE runs DROP COLUMN origin"); c.execute("DROP TABLE sync_state"); [c.execute("ALTER TABLE results DROP COLUMN " + k) for k in ("mean_change_percent", "mean_ci_low_percent", "mean_ci_high_percent", "p_value", "max_percent", "gate")]; c.execute("PRAGMA user_version = 1"); c.commit()' "$T/old.sqlite"
# Read as it is (nothing migrated by a reader): the columns it lacks are null.
run_k history --history "$T/old.sqlite" --format json
expect_rc 0
json_check "$T/out" 'r["runs"] == 18 and len(r["series"]) > 0'
run_k run kagari.yaml --quiet --history "$T/old.sqlite"
expect_rc 0
"$PY" -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); v=c.execute("PRAGMA user_version").fetchone()[0]; n=c.execute("SELECT count(*) FROM runs").fetchone()[0]; i=c.execute("SELECT count(*) FROM sqlite_master WHERE type=\"index\" AND name IN (\"results_series\", \"runs_origin\")").fetchone()[0]; o=c.execute("SELECT count(origin) FROM runs").fetchone()[0]; sys.exit(0 if (v, n, i, o) == (4, 19, 2, 1) else 1)' "$T/old.sqlite" ||
	fail "not migrated to version 4 with 19 runs"

case_ "a history from a newer kagari is refused, not rewritten"
"$PY" -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("PRAGMA user_version = 99"); c.commit()' "$T/old.sqlite"
run_k run kagari.yaml --quiet --history "$T/old.sqlite"
expect_rc 4
expect_err "schema version 99 was written by a newer kagari"

case_ "the stored report can be analysed again (samples and settings kept)"
"$PY" -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); open(sys.argv[2],"w").write(c.execute("SELECT report FROM runs WHERE id = 3").fetchone()[0])' .kagari/history.sqlite "$T/stored.json"
run_k report "$T/stored.json" --reanalyze --format json
expect_rc 0
json_check "$T/out" 'r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]["allocs"]["samples"] == [1000, 1000] or [s["value"] for s in r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]["allocs"]["samples"]] == [1000, 1000]'

case_ "an --output onto the history database is refused, and it is kept"
cp .kagari/history.sqlite "$T/before.sqlite"
run_k history --output .kagari/history.sqlite
expect_rc 3
expect_err "is the history database '$R/.kagari/history.sqlite'; refusing to overwrite it"
run_k run kagari.yaml --quiet --format json --output "$R/.kagari/./history.sqlite"
expect_rc 3
expect_err "is the history database"
run_k run kagari.yaml --quiet --no-history --format json --output .kagari/history.sqlite
expect_rc 3
run_k run kagari.yaml --quiet --history "$T/h2.sqlite" --format json --output "$T/h2.sqlite"
expect_rc 3
[ ! -e "$T/h2.sqlite" ] || fail "the refused run created its history"
cmp -s .kagari/history.sqlite "$T/before.sqlite" || fail "the history database changed"

case_ "--history of an empty file or another program's database writes no schema into it"
: > "$T/empty.sqlite"
run_k run kagari.yaml --quiet --history "$T/empty.sqlite"
expect_rc 4
expect_err "history '$T/empty.sqlite' is an empty file, not a kagari history"
[ ! -s "$T/empty.sqlite" ] || fail "a schema was written into the empty file"
"$PY" -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("CREATE TABLE notes(x)"); c.commit()' "$T/theirs.sqlite"
cp "$T/theirs.sqlite" "$T/theirs.before"
run_k run kagari.yaml --quiet --history "$T/theirs.sqlite"
expect_rc 4
expect_err "is another program's database, not a kagari history"
cmp -s "$T/theirs.sqlite" "$T/theirs.before" || fail "the other program's database changed"
run_k history --history "$T/empty.sqlite"
expect_rc 4
expect_err "is an empty file, not a kagari history"

case_ "kagari history reads a history in a folder it may not write"
# As root, without the capability that overrides file permissions.
asuser() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --bounding-set=-dac_override,-dac_read_search "$KAGARI" "$@" >"$T/out" 2>"$T/err"
	else
		"$KAGARI" "$@" >"$T/out" 2>"$T/err"
	fi
	RC=$?
}
mkdir "$T/ro" && cp .kagari/history.sqlite "$T/ro/h.sqlite" && chmod 555 "$T/ro" && chmod 444 "$T/ro/h.sqlite"
asuser history --history "$T/ro/h.sqlite" --format json
expect_rc 0
json_check "$T/out" "r[\"runs\"] == $("$PY" -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM runs").fetchone()[0])' .kagari/history.sqlite)"
[ "$(ls "$T/ro")" = h.sqlite ] || fail "reading left files behind: $(ls "$T/ro")"
cmp -s "$T/ro/h.sqlite" .kagari/history.sqlite || fail "reading changed the history"
chmod 755 "$T/ro"
# ---- few points: the noise is unknown, never ±0.0% -------------------------
R2="$T/few"
mkdir -p "$R2"
cd "$R2" || exit 1
g init -q .
# The count is read from a tracked file, so that compare's base side (in
# its own worktree, with the base revision's suite) reads the base's.
cat > kagari.yaml <<YAML
version: "1"
name: s
defaults: {warmup: 0, runs: 2, metrics: {allocations: true, cpu: false}}
benchmarks:
  - name: b
    commands:
      m: {command: "exec '$H' mallocs \$(cat n.txt)", shell: true}
      same: {command: ["$H", "mallocs", "500"]}
YAML
echo 1000 > n.txt
g add -A && g commit -qm f1
F1=$(g rev-parse HEAD)
echo 1140 > n.txt
g add -A && g commit -qm f2
F2=$(g rev-parse HEAD)

case_ "after one compare: one point, the head side's; the noise is unknown (null)"
run_k compare kagari.yaml --against "$F1" --quiet --format json --output "$T/cmp.json"
expect_rc 0
"$PY" -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); s=sorted(r[0] for r in c.execute("SELECT DISTINCT side FROM results")); sys.exit(0 if s == ["base", "head"] else 1)' .kagari/history.sqlite ||
	fail "compare did not store both sides"
run_k history --metric allocs --format json
expect_rc 0
cp "$T/out" "$T/few1.json"
# (the shell's own allocations count too: the sides are read from the report)
HEADM=$("$PY" -c 'import json,sys; c=json.load(open(sys.argv[1]))["suites"][0]["benchmarks"][0]["commands"][0]; print(c["head"]["metrics"]["allocs"]["stats"]["median"], c["base"]["metrics"]["allocs"]["stats"]["median"])' "$T/cmp.json")
read -r HM BM <<<"$HEADM"
[ "$HM" != "$BM" ] || fail "the two sides of compare did not differ: $HEADM"
json_check "$T/few1.json" "[[(p['sha'], p['median']) for p in s['points']] for s in r['series']] == [[('$F2', $HM)], [('$F2', 500.0)]]"
json_check "$T/few1.json" "all(s['noise_percent'] is None and s['between_percent'] is None and s['detect']['runs_per_commit'] is None and s['detect']['min_step_percent'] is None and s['detect']['step_percent'] == 5 for s in r['series'])"
run_k history --metric allocs
expect_rc 0
expect_out "noise of one run unknown (1 commit, 1 run): 3 more runs of a commit or 3 more commits would tell it, and the runs a 5% step needs"
grep -q '±0.0%' "$T/out" && fail "a noise of ±0.0% from one run: $(cat "$T/out")"
# Every series' third line is its noise line: no blank line in its place.
"$PY" - "$T/out" <<'PYEOF' || fail "a blank or missing noise line in the table: $(cat "$T/out")"
import sys
lines = open(sys.argv[1]).read().split("\n")
heads = [i for i, l in enumerate(lines) if l.startswith("s / b / ")]
sys.exit(0 if heads and all(lines[i + 2].startswith("  noise of one run") for i in heads) else 1)
PYEOF

case_ "two commits over 10% apart: still unknown, and what is missing said"
g checkout -q "$F1"
run_k run kagari.yaml --quiet
expect_rc 0
g checkout -q main
run_k history --metric allocs --format json
json_check "$T/out" "[p['median'] for p in r['series'][0]['points']] == [$BM, $HM] and $HM / $BM > 1.1"
json_check "$T/out" "r['series'][0]['noise_percent'] is None and r['series'][0]['detect']['runs_per_commit'] is None"
run_k history --metric allocs
expect_out "noise of one run unknown (2 commits, 2 runs): 3 more runs of a commit or 2 more commits would tell it"
run_k history --metric allocs --format markdown
expect_out "noise of one run unknown (2 commits, 2 runs)"

case_ "three more runs of one commit tell the noise (exact counts: 0%)"
for k in 1 2 3; do "$KAGARI" run kagari.yaml --quiet >/dev/null 2>&1 || fail "run $k"; done
run_k history --metric allocs --format json
json_check "$T/out" "r['series'][0]['noise_percent'] < 1e-6 and r['series'][0]['between_percent'] > 0 and [p['runs'] for p in r['series'][0]['points']] == [1, 4]"
run_k history --metric allocs
expect_out "noise of one run ±0.0%, between sessions ±"
cd "$R" || exit 1
finish
