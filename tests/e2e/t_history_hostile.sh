#!/bin/bash
# A history branch is written by every CI job: every byte of it is treated
# as hostile (docs/history.md, "Bad input, nothing lost"). With a bare
# repository standing for the remote, files put on the branch by hand:
# a run whose head_sha or base_sha is markup, or whose fingerprint is no
# fingerprint, is a skipped, named file, and the trend site escapes every
# field of the runs it shows; file names with a line break or a terminal
# escape, a CPU model and a command name holding `::add-mask::` and
# ESC]0;… BEL never start a line nor reach the terminal raw in `history
# pull`, `history --from-branch`, the table or the Markdown (escaped as
# \n, \x1b); a marker whose format is 4294967297, 99999999999999999999,
# -3, 1x, 0 or empty is refused (exit 4, nothing written on either side);
# a 70 MiB file is skipped by its size and named, the others imported; a
# push streams its runs to git, its memory the same for 1 run as for 12;
# `--format html --output DIR` writes only into an empty folder, a new one
# or one kagari wrote (its .kagari-site), else exit 3 with nothing written.
. "$(dirname "$0")/lib.sh"

git_sandbox
unset KAGARI_BASE_REF GITHUB_EVENT_NAME GITHUB_EVENT_PATH GITHUB_STEP_SUMMARY \
	GITHUB_WORKSPACE GITLAB_CI CI_PIPELINE_SOURCE CI_COMMIT_BRANCH CI_DEFAULT_BRANCH \
	KAGARI_MACHINE_ID

REMOTE="$T/remote.git"
g init -q --bare "$REMOTE"
rg() { git --git-dir="$REMOTE" "$@"; }
runs_in() {
	"$PY" -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM runs").fetchone()[0])' "$1/.kagari/history.sqlite"
}
# clean FILE...: no line starts (after blanks, as a CI runner reads it)
# with "::", and no ESC, BEL or CR reached the output raw.
clean() {
	local f
	for f in "$@"; do
		if grep -qE '^[[:space:]]*::' "$f"; then
			fail "a line of $(basename "$f") starts with '::': $(grep -E '^[[:space:]]*::' "$f" | head -3)"
		fi
		if LC_ALL=C grep -q $'[\x1b\x07\r]' "$f"; then
			fail "$(basename "$f") holds a raw control character: $(LC_ALL=C grep $'[\x1b\x07\r]' "$f" | od -c | head -5)"
		fi
	done
}

A="$T/a"
mkdir -p "$A"
cd "$A" || exit 1
g init -q .
cat > kagari.yaml <<YAML
version: "1"
name: s
defaults: {warmup: 0, runs: 2, metrics: {allocations: true, cpu: false}}
benchmarks:
  - name: b
    commands:
      m: {command: ["$H", "mallocs", "100"]}
YAML
g add -A && g commit -qm c1
g remote add origin "$REMOTE"
g push -q origin main
for i in 1 2; do "$KAGARI" run --quiet >/dev/null 2>>"$T/run.err" || fail "run $i: $(cat "$T/run.err")"; done
"$KAGARI" history push >/dev/null 2>"$T/push.err" || fail "push: $(cat "$T/push.err")"
g clone -q "$REMOTE" "$T/b"
(cd "$T/b" && "$KAGARI" history pull >/dev/null 2>&1) || fail "first pull"
W="$T/w"
g clone -q --branch kagari-history "$REMOTE" "$W" 2>/dev/null
GOOD=$(cd "$W" && ls runs/*/*.json | head -1)

# mkrun SUFFIX PYTHON: a copy of GOOD (the run r) named by an origin
# ending in SUFFIX (12 hex digits), edited by PYTHON; prints its path.
mkrun() {
	"$PY" - "$W" "$GOOD" "$1" "$2" <<'PYEOF'
import json, os, sys
w, good, suffix, edit = sys.argv[1:]
r = json.load(open(os.path.join(w, good)))
r["origin"] = r["origin"][:-12] + suffix
exec(edit)
path = os.path.join(os.path.dirname(good), r["origin"] + ".json")
open(os.path.join(w, path), "w").write(json.dumps(r))
print(path)
PYEOF
}
publish() { (cd "$W" && g add -A && g commit -qm "$1" && g push -q origin kagari-history) || fail "cannot publish: $1"; }

case_ "a run whose head_sha or base_sha is no commit id is skipped, named"
F1=$(mkrun 0000000000a1 'r["run"]["head_sha"] = "<plaintext>"')
F2=$(mkrun 0000000000a2 'r["run"]["base_sha"] = "zz"')
F3=$(mkrun 0000000000a3 'r["machine"]["fingerprint"] = "x\n::error::fp"')
publish "bad ids"
cd "$T/b" || exit 1
n=$(runs_in "$T/b")
run_k history pull
expect_rc 0
expect_err "skipped '$F1': run.head_sha is not a commit id (4 to 64 lowercase hex digits)"
expect_err "skipped '$F2': run.base_sha is not a commit id"
expect_err "skipped '$F3': machine.fingerprint is not a fingerprint (16 lowercase hex digits)"
expect_out "0 imported"
[ "$(runs_in "$T/b")" -eq "$n" ] || fail "a run with a bad id was imported"
clean "$T/out" "$T/err"

case_ "the trend site escapes every field of a run (a history's head_sha as markup)"
# A history holding such a run (one written before the check, or by hand).
"$PY" - "$T/b/.kagari/history.sqlite" <<'PYEOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
cols = [r[1] for r in db.execute("PRAGMA table_info(runs)")]
run = dict(zip(cols, db.execute("SELECT * FROM runs ORDER BY time DESC LIMIT 1").fetchone()))
rcols = [r[1] for r in db.execute("PRAGMA table_info(results)")]
res = [dict(zip(rcols, x)) for x in db.execute("SELECT * FROM results WHERE run = ?", (run["id"],))]
run.update(id=None, origin=None, time="2099-01-01T00:00:00.000Z<i>", kind="<b>kind</b>",
           head_sha="\x1b]0;x\x07<plaintext>")
cur = db.execute("INSERT INTO runs(%s) VALUES (%s)" % (",".join(cols), ",".join("?" * len(cols))), [run[c] for c in cols])
for x in res:
    x.update(id=None, run=cur.lastrowid, result="<u>r</u>")
    db.execute("INSERT INTO results(%s) VALUES (%s)" % (",".join(rcols), ",".join("?" * len(rcols))), [x[c] for c in rcols])
db.commit()
PYEOF
run_k history --metric allocs --format html --output "$T/site1/"
expect_rc 0
SITE="$T/site1/index.html"
grep -q '<pla' "$SITE" && fail "the head_sha is on the page raw: $(grep -o '.\{20\}<pla.\{10\}' "$SITE" | head -2)"
grep -qE '<b>kind|Z<i>|<u>r' "$SITE" && fail "a run's field is on the page raw: $(grep -oE '.{20}(<b>kind|Z<i>|<u>r).{10}' "$SITE" | head -2)"
grep -qF 'Last run: &lt;b&gt;kind&lt;/b&gt; of <code>' "$SITE" && grep -qF ']0;x' "$SITE" && grep -qF '&lt;pla</code>' "$SITE" ||
	fail "the last run's commit is not shown escaped"
run_k history --metric allocs
expect_rc 0
clean "$T/out"
expect_out '\x1b]0;x\x07<pla'

case_ "file names, a CPU model, a command name: escaped in pull, --from-branch, table, Markdown"
GOODDIR=$(dirname "$GOOD")
NL="$GOODDIR/a"$'\n'"::error file=x::name.json"
ESCNAME=$(printf 'runs/\033]0;title\007\033[2J.json')
echo '{}' > "$W/$NL"
echo '{}' > "$W/$ESCNAME"
F4=$(mkrun 0000000000a4 'r["machine"]["fingerprint"] = "00000000deadbeef"
r["machine"]["cpu_model"] = "Evil\n::add-mask::s3cret\x1b]0;title\x07\x1b[2J\r::warning::cr\x9b2J"
for row in r["results"]: row[2] = "m\n::error::cmd"')
publish "hostile names"
run_k history pull
expect_rc 0
expect_err "skipped '$GOODDIR/a\\n::error file=x::name.json': not a kagari run"
expect_err "skipped 'runs/\\x1b]0;title\\x07\\x1b[2J.json': not a kagari run"
expect_out "1 imported"
clean "$T/out" "$T/err"
run_k history --metric allocs
expect_rc 0
expect_out '[machine 00000000deadbeef, Evil\n::add-mask::s3cret\x1b]0;title\x07\x1b[2J\r::warning::cr\xc2\x9b2J]'
expect_out 's / b / m\n::error::cmd — allocs'
clean "$T/out" "$T/err"
run_k history --metric allocs --format markdown
expect_rc 0
clean "$T/out" "$T/err"
g clone -q "$REMOTE" "$T/c"
cp "$A/kagari.yaml" "$T/c/"
cd "$T/c" || exit 1
run_k history --from-branch --metric allocs
expect_rc 0
expect_err "$GOODDIR/a\\n::error file=x::name.json"
clean "$T/out" "$T/err"

case_ "a marker whose format is no number this kagari knows is refused: exit 4, nothing written"
cd "$A" || exit 1
"$KAGARI" run --quiet >/dev/null 2>>"$T/run.err" || fail "run: $(cat "$T/run.err")"
cp "$W/KAGARI-HISTORY" "$T/marker"
for v in 4294967297 99999999999999999999 -3 1x 0 01 '' ' 1' 2; do
	sed "s/^format: 1\$/format: $v/" "$T/marker" > "$W/KAGARI-HISTORY"
	publish "format '$v'"
	tip=$(rg rev-parse kagari-history)
	cd "$A" || exit 1
	run_k history push
	expect_rc 4
	if [ "$v" = 2 ]; then
		expect_err "was written by a newer kagari (branch format 2; this one knows up to 1)"
	else
		expect_err "its KAGARI-HISTORY file says 'format: $v', which is no format number"
	fi
	[ "$(rg rev-parse kagari-history)" = "$tip" ] || fail "format '$v': the push wrote to the branch"
	cd "$T/b" || exit 1
	sum=$(sha1sum .kagari/history.sqlite)
	run_k history pull
	expect_rc 4
	[ "$(sha1sum .kagari/history.sqlite)" = "$sum" ] || fail "format '$v': the pull wrote the history"
done
cp "$T/marker" "$W/KAGARI-HISTORY"
publish "format 1 again"
cd "$A" || exit 1
run_k history push
expect_rc 0
expect_out "1 run pushed"

case_ "a 70 MiB file is skipped by its size and named; the others are imported"
(cd "$W" && g pull -q --ff-only origin kagari-history) || fail "cannot update w"
BIG=$(mkrun 0000000000b1 'r["pad"] = " " * (70 << 20)')
F5=$(mkrun 0000000000b2 'pass')
publish "a large file"
cd "$T/b" || exit 1
n=$(runs_in "$T/b")
run_k history pull
expect_rc 0
expect_err "skipped '$BIG': 70.0 MiB, more than a run file may be (32 MiB)"
expect_out "2 imported"
[ "$(runs_in "$T/b")" -eq $((n + 2)) ] || fail "expected $((n + 2)) runs, have $(runs_in "$T/b")"

case_ "a push streams its runs: the memory of 12 runs of 6 MiB is that of 1"
# git's own memory stays small for large blobs (they are streamed, not
# deltified): what grows with the runs would be kagari's.
printf '[core]\n\tbigFileThreshold = 1m\n[pack]\n\twindow = 0\n' > "$T/gitconfig"
for n in 1 12; do
	P="$T/p$n"
	g init -q --bare "$P.git"
	g init -q "$P"
	cp "$A/kagari.yaml" "$P/"
	mkdir -p "$P/.kagari"
	cp "$A/.kagari/history.sqlite" "$P/.kagari/"
	"$PY" - "$P/.kagari/history.sqlite" "$n" <<'PYEOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = int(sys.argv[2])
cols = [r[1] for r in db.execute("PRAGMA table_info(runs)")]
run = dict(zip(cols, db.execute("SELECT * FROM runs LIMIT 1").fetchone()))
db.execute("DELETE FROM results"); db.execute("DELETE FROM runs")
for i in range(n):
    # different text in each, so that git cannot share it
    pad = ("%04d" % i) * ((6 << 20) // 4)
    run.update(id=None, origin=run["origin"][:-12] + "%012x" % (i + 1),
               report='{"pad":"%s"}' % pad)
    db.execute("INSERT INTO runs(%s) VALUES (%s)" % (",".join(cols), ",".join("?" * len(cols))), [run[c] for c in cols])
db.commit()
PYEOF
	(cd "$P" && ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=1" GIT_CONFIG_GLOBAL="$T/gitconfig" \
		/usr/bin/time -f %M -o "$T/rss$n" "$KAGARI" history push --remote "$P.git" >"$T/out" 2>"$T/err")
	RC=$?
	expect_rc 0
	expect_out "$n run"
done
rss1=$(tail -1 "$T/rss1")
rss12=$(tail -1 "$T/rss12")
echo "  peak RSS of a push: 1 run of 6 MiB $((rss1 / 1024)) MiB, 12 runs $((rss12 / 1024)) MiB"
[ $((rss12 - rss1)) -lt $((24 * 1024)) ] ||
	fail "12 runs of 6 MiB took $(((rss12 - rss1) / 1024)) MiB more than 1 ($((rss1 / 1024)) -> $((rss12 / 1024)) MiB)"

case_ "--format html --output DIR: never over the user's own files"
cd "$T/b" || exit 1
mkdir -p "$T/docs"
echo '<h1>my docs</h1>' > "$T/docs/index.html"
for o in "$T/docs" "$T/docs/"; do
	run_k history --metric allocs --format html --output "$o"
	expect_rc 3
	expect_err "--output '$o' is a folder that holds files kagari did not write (index.html)"
	[ "$(cat "$T/docs/index.html")" = '<h1>my docs</h1>' ] || fail "the user's index.html was replaced"
	[ "$(ls -A "$T/docs")" = index.html ] || fail "something was written: $(ls -A "$T/docs")"
done
mkdir -p "$T/empty"
run_k history --metric allocs --format html --output "$T/empty"
expect_rc 0
[ -s "$T/empty/index.html" ] && [ -f "$T/empty/.kagari-site" ] || fail "no site and marker: $(ls -A "$T/empty")"
echo mine > "$T/empty/CNAME"
run_k history --metric allocs --format html --output "$T/empty/"
expect_rc 0
[ "$(cat "$T/empty/CNAME")" = mine ] || fail "a file of the user's in kagari's folder was touched"
run_k history --metric allocs --format html --output "$T/new/sub/"
expect_rc 0
[ -f "$T/new/sub/.kagari-site" ] || fail "a new folder got no marker"
mkdir -p "$T/odd/.kagari-site"
echo x > "$T/odd/index.html"
run_k history --metric allocs --format html --output "$T/odd/"
expect_rc 3
expect_err "is a folder that holds files kagari did not write"
[ "$(cat "$T/odd/index.html")" = x ] || fail "a folder whose .kagari-site is no file was written"

finish
