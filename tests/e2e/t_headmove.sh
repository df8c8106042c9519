#!/bin/bash
# HEAD and the working tree are read when `run` and `compare` start and
# again when they finish (issue 22 item 9): a commit made while measuring,
# or a clean tree that became dirty, is a warning, and the run is recorded
# as dirty (the JSON report's git.dirty for compare, the history's dirty
# column for both) with the commit it started on. A run that changes
# nothing says nothing.
. "$(dirname "$0")/lib.sh"

git_sandbox

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
echo '.kagari/' > .gitignore
# suite NAME COMMAND: one benchmark, two runs, no warm-up.
suite() {
	cat > "$1.kagari.yaml" <<YAML
version: "1"
name: $1
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: b
    commands:
      c: {command: $2}
YAML
}
suite still '["'"$H"'", "sleep", "1"]'
suite commits '[sh, -c, "git -c user.name=t -c user.email=t@t -c core.hooksPath=/dev/null commit -q --allow-empty -m moved"]'
suite edits '[sh, -c, "echo x >> new-file.txt"]'
g add -A && g commit -qm base
START=$(g rev-parse HEAD)

# history_dirty KIND: the dirty column and head_sha of the last run of KIND.
history_dirty() {
	"$PY" - "$R/.kagari/history.sqlite" "$1" <<'PYEOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
row = db.execute("SELECT dirty, head_sha FROM runs WHERE kind = ? ORDER BY id DESC LIMIT 1", (sys.argv[2],)).fetchone()
print("%s %s" % row)
PYEOF
}

case_ "nothing moves: no warning, recorded clean"
run_k run still.kagari.yaml --quiet --format json --output "$T/still.json"
expect_rc 0
grep -q "while measuring" "$T/err" && fail "a warning without a change: $(cat "$T/err")"
[ "$(history_dirty run)" = "0 $START" ] || fail "history: $(history_dirty run)"
run_k compare --against HEAD still.kagari.yaml --quiet --format json --output "$T/still-c.json"
json_check "$T/still-c.json" 'r["git"]["dirty"] is False and not any("while measuring" in w for w in r["warnings"])'

case_ "HEAD moves during run: a warning naming both commits, recorded dirty on the first"
run_k run commits.kagari.yaml --quiet --format json --output "$T/commits.json"
expect_rc 0
NOW=$(g rev-parse HEAD)
[ "$NOW" != "$START" ] || fail "the command did not commit"
expect_err "HEAD moved from ${START:0:12} to ${NOW:0:12} while measuring"
expect_err "recorded as dirty"
json_check "$T/commits.json" 'any("HEAD moved from" in w for w in r["warnings"])'
[ "$(history_dirty run)" = "1 $START" ] || fail "history: $(history_dirty run)"

case_ "the working tree becomes dirty during compare: a warning, git.dirty in the report and the history"
g reset -q --hard "$START"
run_k compare --against HEAD edits.kagari.yaml --quiet --format json --output "$T/edits.json"
[ -f new-file.txt ] || fail "the command did not write into the tree"
json_check "$T/edits.json" 'r["git"]["dirty"] is True and r["git"]["head_sha"] == "'"$START"'"'
json_check "$T/edits.json" 'any("working tree was clean at the start and has uncommitted changes at the end" in w for w in r["warnings"])'
expect_err "was clean at the start"
[ "$(history_dirty compare)" = "1 $START" ] || fail "history: $(history_dirty compare)"
rm -f new-file.txt

# The rule of dirtiness (docs/contract.md): tracked changes, and untracked
# files other than kagari's own (the suite files run, its outputs, .kagari/).
mkdir -p "$T/r2"
cd "$T/r2" || exit 1
g init -q .
cat > own.kagari.yaml <<'YAML'
version: "1"
name: own
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: b
    commands:
      c: {command: [sh, -c, "mkdir -p .kagari && echo x > .kagari/another-history && echo y > report.json"]}
YAML
echo 'int main(void) { return 0; }' > prog.c
g add -A && g commit -qm base

case_ "kagari's own files appearing in the tree while measuring (.kagari/, its --output) are no change"
run_k compare --against HEAD own.kagari.yaml --quiet --no-history --format json --output report.json
[ "$RC" -le 1 ] || fail "exit $RC: $(tail -3 "$T/err")"
[ -f .kagari/another-history ] || fail "the command did not write into .kagari/"
grep -q "while measuring" "$T/err" && fail "kagari's own files made a warning: $(grep 'while measuring' "$T/err")"
json_check report.json 'r["git"]["dirty"] is False and not any("while measuring" in w for w in r["warnings"])'
rm -rf .kagari report.json

case_ "an untracked suite file being run is no change, but an untracked source file is"
cat > quiet.kagari.yaml <<'YAML'
version: "1"
name: quiet
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: b
    commands:
      c: {command: [sh, -c, ":"]}
YAML
run_k compare --against HEAD quiet.kagari.yaml --quiet --no-history --format json --output "$T/q.json"
[ "$RC" -le 1 ] || fail "exit $RC: $(tail -3 "$T/err")"
json_check "$T/q.json" 'r["git"]["dirty"] is False and not any("while measuring" in w for w in r["warnings"])'
# An untracked source file there from the start: the head is not HEAD's code.
echo 'int helper2;' > helper.c
run_k compare --against HEAD quiet.kagari.yaml --quiet --no-history --format json --output "$T/q2.json"
json_check "$T/q2.json" 'r["git"]["dirty"] is True and not any("while measuring" in w for w in r["warnings"])'
rm -f helper.c quiet.kagari.yaml
# One made while measuring: the tree changed.
cat > newsrc.kagari.yaml <<'YAML'
version: "1"
name: newsrc
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: b
    commands:
      c: {command: [sh, -c, "echo 'int helper;' > helper.c"]}
YAML
run_k compare --against HEAD newsrc.kagari.yaml --quiet --no-history --format json --output "$T/ns.json"
[ "$RC" -le 1 ] || fail "exit $RC: $(tail -3 "$T/err")"
json_check "$T/ns.json" 'any("clean at the start and has uncommitted changes at the end" in w for w in r["warnings"])'
json_check "$T/ns.json" 'r["git"]["dirty"] is True'
rm -f helper.c

case_ "a new untracked source file while the tree was already dirty is a change too"
echo '/* edited */' >> prog.c
run_k compare --against HEAD newsrc.kagari.yaml --quiet --no-history --format json --output "$T/ns3.json"
json_check "$T/ns3.json" 'r["git"]["dirty"] is True'
json_check "$T/ns3.json" 'any("working tree changed" in w for w in r["warnings"])'
g checkout -q prog.c
rm -f helper.c
cd "$R" || exit 1

finish
