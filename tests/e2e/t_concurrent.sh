#!/bin/bash
# Concurrent compares in one repository (issue 22 item 8): git's worktree
# add, remove and list race on .git/worktrees/ ("fatal: failed to read
# .git/worktrees/base7/commondir"); kagari serialises its worktree changes
# with a lock in the repository's git dir, so every one of many compares
# started at once succeeds and leaves no worktree and no folder behind.
. "$(dirname "$0")/lib.sh"

git_sandbox

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
echo '.kagari/' > .gitignore
cat > kagari.yaml <<YAML
version: "1"
name: quick
defaults: {warmup: 0, runs: 1}
benchmarks:
  - name: quick
    commands:
      nap: {command: ["$H", "sleep", "1"]}
YAML
# Files enough that a checkout takes a moment: the windows overlap.
mkdir -p src
for i in $(seq 1 300); do echo "$i" > "src/f$i.txt"; done
g add -A && g commit -qm base

N=16
for round in 1 2; do
	case_ "$N compares started at once in one repository all succeed (round $round)"
	pids=()
	for i in $(seq 1 $N); do
		"$KAGARI" compare --against HEAD --quiet --no-history --format json \
			--output "$T/c$i.json" >/dev/null 2>"$T/c$i.err" &
		pids+=($!)
	done
	for i in $(seq 1 $N); do
		wait "${pids[$((i - 1))]}"
		rc=$?
		[ "$rc" -le 1 ] || fail "compare $i of $N: exit $rc: $(tail -3 "$T/c$i.err")"
		grep -q "fatal" "$T/c$i.err" && fail "compare $i of $N: $(grep fatal "$T/c$i.err")"
	done
	left=$(g worktree list --porcelain | grep -c '^worktree ')
	[ "$left" -eq 1 ] || fail "worktrees left behind: $(g worktree list)"
	[ -z "$(ls "$TMPDIR")" ] || fail "temporary folders left behind: $(ls "$TMPDIR")"
done
# The lock lives in the git dir, not in the user's tree.
[ -z "$(g status --porcelain)" ] || fail "the working tree changed: $(g status --porcelain)"
[ -f "$(g rev-parse --git-common-dir)/kagari-worktrees.lock" ] || fail "no lock file in the git dir"

finish
