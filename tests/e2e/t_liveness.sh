#!/bin/bash
# Whether the kagari that made a temporary folder or a base worktree still
# lives is decided by a lock it holds (flock on <its folder>/lock), not by
# its pid, which means nothing in another pid namespace (issue 22 items 6
# and 11): a compare never removes the worktree of a live compare whose
# pid looks dead from here (a container, `unshare --pid`), and the folders
# of a kagari killed with SIGKILL are pruned by the next one, while a live
# one's and folders that are not kagari's stay.
# The worktree liveness lock lives in the worktree's admin folder under
# .git, so a compare with another TMPDIR (or mount namespace) sees it.
. "$(dirname "$0")/lib.sh"

git_sandbox

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
echo '.kagari/' > .gitignore
cat > slow.kagari.yaml <<YAML
version: "1"
name: slow
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: slow
    commands:
      nap: {command: ["$H", "sleep", "2500"]}
YAML
cat > quick.kagari.yaml <<YAML
version: "1"
name: quick
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: quick
    commands:
      nap: {command: ["$H", "sleep", "1"]}
YAML
g add -A && g commit -qm base

# kagari_worktree: the path of the (one) worktree kagari has locked.
kagari_worktree() {
	g worktree list --porcelain | awk '/^worktree /{p=substr($0, 10)} /^locked kagari /{print p}'
}
has_worktree() { [ -n "$(kagari_worktree)" ]; }

# A live compare whose worktree lock names a pid that means nothing here,
# then a second compare in the same repository: the first one's worktree
# and folder must survive, and the first compare must end normally.
live_compare_survives() { # LABEL
	if ! wait_until 60 has_worktree; then
		# Nothing to protect: no pass without a test.
		fail "$1: the live compare made no worktree: $(tail -5 "$T/a.err")"
		kill "$A" 2>/dev/null
		wait "$A" 2>/dev/null
		return
	fi
	local wt
	wt=$(kagari_worktree)
	run_k compare --against HEAD quick.kagari.yaml --quiet --no-history --format json --output "$T/quick.json"
	[ "$RC" -le 1 ] || fail "$1: the second compare: exit $RC: $(tail -3 "$T/err")"
	# The second compare pruned while the first still lived, or nothing
	# was tested.
	kill -0 "$A" 2>/dev/null || fail "$1: the live compare had ended before the second one's prune"
	[ -d "$wt" ] || fail "$1: the second compare removed the live compare's worktree '$wt'"
	[ "$(kagari_worktree)" = "$wt" ] || fail "$1: the live worktree's entry is gone: $(g worktree list)"
	wait "$A"
	local rc=$?
	[ "$rc" -le 1 ] || fail "$1: the live compare failed (exit $rc): $(tail -5 "$T/a.err")"
	[ -z "$(kagari_worktree)" ] || fail "$1: the live compare left its worktree behind"
}

case_ "a live compare whose pid looks dead from here keeps its worktree"
"$KAGARI" compare --against HEAD slow.kagari.yaml --quiet --no-history --format json --output "$T/a.json" 2>"$T/a.err" &
A=$!
if wait_until 60 has_worktree; then
	# What a pid of another pid namespace looks like from here: a
	# process that does not exist (one that just ended).
	true & dead=$!
	wait "$dead"
	gitdir=$(g rev-parse --absolute-git-dir)
	for f in "$gitdir"/worktrees/*/locked; do
		sed -i "s/pid=[0-9]*/pid=$dead/; s/start=[0-9]*/start=0/" "$f"
	done
	grep -q "pid=$dead" "$gitdir"/worktrees/*/locked || fail "could not fake the lock's pid"
	# By its pid alone it is dead: only the liveness lock can keep it.
	kill -0 "$dead" 2>/dev/null && fail "precondition: pid $dead still runs"
	live_compare_survives "faked pid"
else
	fail "the live compare made no worktree: $(tail -5 "$T/a.err")"
	kill "$A" 2>/dev/null
	wait "$A" 2>/dev/null
fi

case_ "a live compare in another pid namespace (unshare --pid) keeps its worktree"
if unshare --pid --fork --mount-proc true 2>/dev/null; then
	unshare --pid --fork --mount-proc sh -c '"$0" compare --against HEAD slow.kagari.yaml --quiet --no-history --format json --output "$1"; exit $?' \
		"$KAGARI" "$T/ns.json" 2>"$T/a.err" &
	A=$!
	live_compare_survives "unshare --pid"
else
	echo "  (unshare --pid is not allowed here: only the faked pid case ran)"
fi

case_ "the folders of a kagari killed with SIGKILL are pruned by the next one; live and foreign ones stay"
"$KAGARI" run slow.kagari.yaml --quiet --no-history >/dev/null 2>"$T/k.err" &
K=$!
has_lock() { ls "$TMPDIR"/kagari-*/lock >/dev/null 2>&1; }
wait_until 60 has_lock || fail "the slow run never locked its folder: $(tail -3 "$T/k.err")"
dead_dir=$(dirname "$(ls "$TMPDIR"/kagari-*/lock | head -1)")
kill -9 "$K"
wait "$K" 2>/dev/null
no_process_left "$H sleep 2500"
[ -d "$dead_dir" ] || fail "precondition: the killed kagari's folder '$dead_dir' is already gone"
# A folder whose lock a live process holds (a kagari in another pid
# namespace, say), and a user's folder that merely shares the prefix.
# It is named as kagari names its folders and its lock is kagari's (the
# killed one's first line), so only the held lock keeps it.
live=kagari-Live01
mkdir -p "$TMPDIR/$live" "$TMPDIR/kagari-mine"
echo keep > "$TMPDIR/kagari-mine/notes.txt"
head -n 1 "$dead_dir/lock" > "$TMPDIR/$live/lock"
grep -q . "$TMPDIR/$live/lock" || fail "precondition: the killed kagari's lock has no first line"
# (the process that holds the lock is the one killed at the end)
(exec 9<"$TMPDIR/$live/lock" && flock 9 && exec sleep 60) >/dev/null 2>&1 &
F=$!
wait_until 10 sh -c "! flock -n '$TMPDIR/$live/lock' true" || fail "precondition: the lock of '$live' is not held"
run_k run quick.kagari.yaml --quiet --no-history
expect_rc 0
[ -d "$dead_dir" ] && fail "the killed kagari's folder '$dead_dir' was not pruned"
[ -d "$TMPDIR/$live" ] || fail "a folder whose lock is held was removed"
[ "$(cat "$TMPDIR/kagari-mine/notes.txt" 2>/dev/null)" = keep ] || fail "a folder without kagari's lock was touched"
kill "$F" 2>/dev/null
wait "$F" 2>/dev/null
# Now that nobody holds it, that folder is a dead kagari's: pruned.
run_k run quick.kagari.yaml --quiet --no-history
expect_rc 0
[ -d "$TMPDIR/$live" ] && fail "a kagari folder whose lock was released was not pruned"
# Our own folder is gone at exit, and the lock with it.
left=$(ls "$TMPDIR" | grep -v -x -e kagari-mine)
[ -z "$left" ] || fail "a kagari folder was left: $left"

case_ "a live compare whose folder is invisible here (another TMPDIR, another mount namespace) keeps its worktree"
# The liveness lock is in the worktree's admin folder under .git, which
# every process sharing the repository sees; the maker's private folder
# (its TMPDIR) may not be visible at all. The live compare waits in its
# first run until $T/go exists, so nothing of it starts while its TMPDIR is
# out of sight.
cat > gate.kagari.yaml <<YAML
version: "1"
name: gate
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: gate
    commands:
      wait: {command: [sh, -c, 'touch "\$0.started"; while [ ! -e "\$0" ]; do sleep 0.05; done', "$T/go"]}
YAML
g add -A && g commit -qm gate
rm -f "$T/go" "$T/go.started"
mkdir -p "$T/tmpA" "$T/tmpB"
TMPDIR="$T/tmpA" "$KAGARI" compare --against HEAD gate.kagari.yaml --quiet --no-history --format json --output "$T/gate.json" 2>"$T/a.err" &
A=$!
if wait_until 60 test -e "$T/go.started"; then
	wt=$(kagari_worktree)
	case "$wt" in "$T/tmpA/"*) ;; *) fail "precondition: the live worktree '$wt' is not in the first TMPDIR" ;; esac
	gitdir=$(g rev-parse --absolute-git-dir)
	admin=$(dirname "$(grep -l -x -F "$wt/.git" "$gitdir"/worktrees/*/gitdir)")
	[ -f "$admin/kagari-live.lock" ] || fail "no liveness lock in the worktree's admin folder '$admin'"
	flock -n "$admin/kagari-live.lock" true && fail "the liveness lock in '$admin' is not held by the live compare"
	# What the folder of a kagari in another mount namespace looks like
	# from here: nothing at all.
	mv "$T/tmpA" "$T/tmpA.hidden"
	TMPDIR="$T/tmpB" run_k compare --against HEAD quick.kagari.yaml --quiet --no-history --format json --output "$T/quick2.json"
	[ -d "$admin" ] || fail "the second compare removed the live compare's worktree entry '$admin'"
	[ -d "$T/tmpA.hidden/${wt#"$T/tmpA/"}" ] || fail "the second compare removed the live compare's worktree folder"
	mv "$T/tmpA.hidden" "$T/tmpA"
	[ "$RC" -le 1 ] || fail "the second compare: exit $RC: $(tail -3 "$T/err")"
	[ "$(kagari_worktree)" = "$wt" ] || fail "the live worktree's entry is gone: $(g worktree list)"
	touch "$T/go"
	wait "$A"
	rc=$?
	[ "$rc" -le 1 ] || fail "the live compare failed (exit $rc): $(tail -5 "$T/a.err")"
	[ -z "$(kagari_worktree)" ] || fail "the live compare left its worktree behind"
	[ ! -e "$admin" ] || fail "the live compare left its admin folder '$admin' behind"
else
	fail "the live compare never started its first run: $(tail -5 "$T/a.err")"
fi

case_ "a user's own \$TMPDIR/kagari-* folders with a plain lock or owner file survive a compare"
# Not named as kagari names its folders, or named so but with files that
# are not kagari's (no first line of kagari's): none is pruned, though
# nobody holds their `lock`.
for d in kagari-mine kagari-abcdef kagari-compare-Ab12Cd kagari-bisect-xyz123; do
	mkdir -p "$TMPDIR/$d"
	echo "my notes" > "$TMPDIR/$d/notes.txt"
	: > "$TMPDIR/$d/lock"
done
printf 'kagari pid=1 start=1\n' > "$TMPDIR/kagari-bisect-xyz123/owner"
rm -f "$TMPDIR/kagari-bisect-xyz123/lock"
run_k compare --against HEAD quick.kagari.yaml --quiet --no-history --format json --output "$T/quick3.json"
[ "$RC" -le 1 ] || fail "the compare: exit $RC: $(tail -3 "$T/err")"
for d in kagari-mine kagari-abcdef kagari-compare-Ab12Cd kagari-bisect-xyz123; do
	[ "$(cat "$TMPDIR/$d/notes.txt" 2>/dev/null)" = "my notes" ] || fail "the user's folder '$d' was pruned"
done

case_ "the folders of a bench killed with SIGKILL are pruned by the next kagari"
bench_dirs() { ls -d "$TMPDIR"/kagari-bench-* 2>/dev/null; }
"$KAGARI" bench "$H sleep 2500" --runs 2 --warmup 0 --quiet >/dev/null 2>"$T/b.err" &
K=$!
# Both of bench's folders (its suite's and the session's) are there, locked.
two_locked() { [ "$(ls "$TMPDIR"/kagari-bench-*/lock 2>/dev/null | wc -l)" -ge 2 ]; }
wait_until 60 two_locked || fail "bench did not lock both its folders: $(bench_dirs; tail -3 "$T/b.err")"
kill -9 "$K"
wait "$K" 2>/dev/null
no_process_left "$H sleep 2500"
[ -n "$(bench_dirs)" ] || fail "precondition: the killed bench left no folder"
run_k run quick.kagari.yaml --quiet --no-history
expect_rc 0
[ -z "$(bench_dirs)" ] || fail "the killed bench's folders were not pruned: $(bench_dirs)"

finish
