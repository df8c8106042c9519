#!/bin/bash
# Both sides of a compare are built at paths of one length (issue 40, item
# 10): a build whose output holds its folder (here: the folder, written
# into ${artifact}, as __FILE__ or debug information would) must not
# differ in size between base and head for no change of code. `aa` builds
# its two sides the way compare does, so its advice holds for compare.
. "$(dirname "$0")/lib.sh"

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_AUTHOR_NAME=t \
	GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY

# A short TMPDIR and a working tree with a longer path: the base's folder
# under TMPDIR can be made as long as the working tree's.
export TMPDIR="$T/t"
mkdir -p "$TMPDIR"
R="$T/a-repository-with-a-rather-long-folder-name"
mkdir -p "$R" && cd "$R" || exit 1
git init -q . && git config commit.gpgsign false
cat > kagari.yaml <<YAML
version: "1"
name: where
build:
  command: [sh, -c, 'pwd -P >> "\$1"; pwd -P > "\$2"; cat f g >> "\$3" 2>/dev/null; true', sh, "$T/dirs.log", "\${artifact}", "$T/seen.log"]
defaults: {warmup: 0, runs: 3}
benchmarks:
  - name: b
    commands:
      c: {command: [cat, "\${artifact}"]}
YAML
git add kagari.yaml && git commit -qm base
echo 1 > f && git add f && git commit -qm head
cd "$R" || exit 1

# dirs_check N: the build log holds N lines, of one length, the head's
# being the working tree.
dirs_check() {
	local n len
	n=$(wc -l < "$T/dirs.log")
	[ "$n" -eq "$1" ] || fail "$n builds, expected $1: $(cat "$T/dirs.log")"
	len=$(awk '{ print length($0) }' "$T/dirs.log" | sort -u | wc -l)
	[ "$len" -eq 1 ] || fail "the builds ran in folders of different lengths: $(cat "$T/dirs.log")"
	grep -qxF "$(cd "$R" && pwd -P)" "$T/dirs.log" || fail "no build in the working tree: $(cat "$T/dirs.log")"
}

case_ "compare: base and head are built at paths of one length"
rm -f "$T/dirs.log"
run_k compare --against HEAD~1 --quiet --format json --output "$T/c.json"
expect_rc 0
dirs_check 2
[ "$(sort -u "$T/dirs.log" | wc -l)" -eq 2 ] || fail "both sides built in one folder: $(cat "$T/dirs.log")"
grep -q "differ in size" "$T/err" && fail "warned although the lengths match: $(cat "$T/err")"
[ "$(git worktree list --porcelain | grep -c '^worktree ')" -eq 1 ] ||
	fail "worktrees left: $(git worktree list)"
[ -z "$(ls -A "$TMPDIR")" ] || fail "temporary folders left: $(ls -A "$TMPDIR")"

case_ "compare: a TMPDIR too long for that: builds that differ in size are said, with the fix"
LONG="$T/a-temporary-folder-whose-path-is-far-too-long-for-the-base"
mkdir -p "$LONG"
rm -f "$T/dirs.log"
TMPDIR=$LONG run_k compare --against HEAD~1 --quiet --format json --output "$T/long.json"
expect_rc 0
# Said only when the two builds then differ in size, as these do.
expect_err "the base and head \${artifact} differ in size"
RP=$(cd "$R" && pwd -P)
# <TMPDIR>/kagari-XXXXXX/ and a name of one character at least.
expect_err "a TMPDIR of at most $((${#RP} - 16)) characters builds both at paths of one length"
json_check "$T/long.json" "any('differ in size (' in w and '$LONG' in w for w in r['warnings'])"

case_ "aa: each side built once, as compare builds them, at paths of one length"
rm -f "$T/dirs.log"
run_k aa --repeat 2 --runs 2 --quiet --format json --output "$T/aa.json"
expect_rc 0
dirs_check 2
[ "$(sort -u "$T/dirs.log" | wc -l)" -eq 2 ] || fail "aa built both sides in one folder: $(cat "$T/dirs.log")"
[ "$(git worktree list --porcelain | grep -c '^worktree ')" -eq 1 ] ||
	fail "worktrees left: $(git worktree list)"
[ -z "$(ls -A "$TMPDIR")" ] || fail "temporary folders left: $(ls -A "$TMPDIR")"

case_ "aa with uncommitted changes: the base's copy has them too"
echo 2 > f
echo new > g
rm -f "$T/dirs.log" "$T/seen.log"
run_k aa --repeat 2 --runs 2 --quiet --format json --output "$T/aa.json"
expect_rc 0
dirs_check 2
[ "$(sort -u "$T/dirs.log" | wc -l)" -eq 2 ] || fail "aa built both sides in one folder: $(cat "$T/dirs.log")"
[ "$(grep -cx 2 "$T/seen.log")" -eq 2 ] && [ "$(grep -cx new "$T/seen.log")" -eq 2 ] ||
	fail "both builds must see the changed f and the new g: $(cat "$T/seen.log")"
[ "$(git status --porcelain)" = "$(printf ' M f\n?? g')" ] || fail "the user's tree changed: $(git status --porcelain)"
[ "$(git worktree list --porcelain | grep -c '^worktree ')" -eq 1 ] ||
	fail "worktrees left: $(git worktree list)"
git checkout -q f
rm -f g

finish
