#!/bin/bash
# compare in odd git situations: started from a git hook (GIT_DIR,
# GIT_INDEX_FILE and the like in the environment), and a base revision
# whose build needs a submodule.
. "$(dirname "$0")/lib.sh"

export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e \
	GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY

# ---- item: builds and hooks get git's environment without the hook's ----
mkdir repo
cd repo || exit 1
git init -q . && git config commit.gpgsign false
cat > kagari.yaml <<YAML
version: "1"
name: gitenv
build:
  command: [sh, -c, "git rev-parse HEAD >> $T/build.log; echo idx=\$(printenv GIT_INDEX_FILE || echo unset) dir=\$(printenv GIT_DIR || echo unset) >> $T/build.log; touch \"\${artifact}\""]
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: b
    setup: [{command: [sh, -c, "echo hook idx=\$(printenv GIT_INDEX_FILE || echo unset) >> $T/hook.log"]}]
    commands:
      c: {command: ["true"]}
YAML
git add kagari.yaml && git commit -qm base
echo 1 > f && git add f && git commit -qm head
BASE=$(git rev-parse HEAD~1)
HEAD_SHA=$(git rev-parse HEAD)
cd "$T" || exit 1

case_ "compare from a pre-commit hook: the base build sees the base commit"
# What git sets for a pre-commit hook of `git commit -a` (a temporary
# index), plus the repository variables a hook may carry.
cp repo/.git/index "$T/hook-index"
cp repo/.git/index "$T/index.orig"
rm -f build.log hook.log
(cd repo && GIT_DIR="$T/repo/.git" GIT_WORK_TREE="$T/repo" \
	GIT_INDEX_FILE="$T/hook-index" GIT_PREFIX= \
	"$KAGARI" compare --against HEAD~1 --quiet >"$T/out" 2>"$T/err"); RC=$?
expect_rc 0
grep -qx "$BASE" build.log || fail "the base build did not see the base commit: $(cat build.log)"
grep -qx "$HEAD_SHA" build.log || fail "the head build did not see the head commit: $(cat build.log)"
[ "$(grep -c "idx=unset dir=unset" build.log)" -eq 2 ] ||
	fail "builds inherited git's variables: $(cat build.log)"
[ "$(grep -c "hook idx=unset" hook.log)" -eq 2 ] ||
	fail "hooks inherited GIT_INDEX_FILE: $(cat hook.log)"
# Neither the hook's temporary index nor the repository's own is touched.
cmp -s hook-index index.orig || fail "the hook's index was modified"
cmp -s repo/.git/index index.orig || fail "the repository's index was modified"
[ "$(git -C repo worktree list --porcelain | grep -c '^worktree ')" -eq 1 ] ||
	fail "worktrees left: $(git -C repo worktree list)"

case_ "a suite's env: can still set GIT_DIR for its commands"
cat > envset.yaml <<YAML
version: "1"
name: envset
defaults: {warmup: 0, runs: 1}
benchmarks:
  - name: b
    commands:
      c:
        command: [sh, -c, "echo \"dir=\$GIT_DIR\" > $T/envset.log"]
        env: {GIT_DIR: /some/where}
YAML
GIT_DIR=/from/hook run_k run --quiet envset.yaml
expect_rc 0
grep -qx "dir=/some/where" envset.log || fail "suite env lost: $(cat envset.log)"

# ---- item: submodules in the base worktree, from the local clone ----
git init -q sub
(cd sub && echo lib > lib.txt && git add lib.txt && git commit -qm s1)
git init -q nested
(cd nested && echo deep > deep.txt && git add deep.txt && git commit -qm n1)
(cd sub && git -c protocol.file.allow=always submodule add -q "$T/nested" nested &&
	git commit -qm nested)
git init -q super
cd super || exit 1
git -c protocol.file.allow=always submodule add -q "$T/sub" sub
git -c protocol.file.allow=always submodule update -q --init --recursive
cat > kagari.yaml <<YAML
version: "1"
name: submod
build:
  command: [sh, -c, "cat sub/lib.txt sub/nested/deep.txt > \"\${artifact}\""]
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: b
    commands:
      c: {command: [cat, "\${artifact}"]}
YAML
git add kagari.yaml .gitmodules sub && git commit -qm base
echo 1 > f && git add f && git commit -qm head
cd "$T" || exit 1
# The URLs must not be used: the originals are gone.
mv sub sub.moved
mv nested nested.moved
cp super/.git/config config.before

case_ "compare: the base worktree has the submodules (recursive), from the local clone"
(cd super && "$KAGARI" compare --against HEAD~1 --quiet >"$T/out" 2>"$T/err"); RC=$?
expect_rc 0
cmp -s super/.git/config config.before || fail "the repository's config changed: $(diff config.before super/.git/config)"
[ "$(git -C super worktree list --porcelain | grep -c '^worktree ')" -eq 1 ] ||
	fail "worktrees left: $(git -C super worktree list)"
[ -z "$(git -C super status --porcelain)" ] || fail "the user's tree changed: $(git -C super status --porcelain)"

case_ "compare: a submodule not available locally fails clearly"
git clone -q super clone 2>/dev/null
(cd clone && "$KAGARI" compare --against HEAD~1 --quiet >"$T/out" 2>"$T/err"); RC=$?
expect_rc 4
expect_err "submodule 'sub' (sub) of the base revision is not available locally"
expect_err "submodule update --init --recursive"
# ... and the suite setting that says the build needs none (issue 40, item 11).
expect_err "if the build of suite 'submod' ("
expect_err "build: {submodules: false}"
[ "$(git -C clone worktree list --porcelain | grep -c '^worktree ')" -eq 1 ] ||
	fail "worktrees left: $(git -C clone worktree list)"

case_ "compare: a build that says submodules: false needs none of them"
cat > clone/nosub.yaml <<YAML
version: "1"
name: nosub
build:
  command: [sh, -c, "echo built > \"\${artifact}\""]
  submodules: false
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: b
    commands:
      c: {command: [cat, "\${artifact}"]}
YAML
(cd clone && "$KAGARI" compare --against HEAD~1 --quiet nosub.yaml >"$T/out" 2>"$T/err"); RC=$?
expect_rc 0
[ "$(git -C clone worktree list --porcelain | grep -c '^worktree ')" -eq 1 ] ||
	fail "worktrees left: $(git -C clone worktree list)"

case_ "compare: one suite that needs the submodules still gets them checked out"
(cd clone && "$KAGARI" compare --against HEAD~1 --quiet nosub.yaml kagari.yaml >"$T/out" 2>"$T/err"); RC=$?
expect_rc 4
expect_err "if the build of suite 'submod' ("

case_ "validate: build.submodules must be a boolean"
sed 's/submodules: false/submodules: nope/' clone/nosub.yaml > bad-sub.yaml
run_k validate bad-sub.yaml
expect_rc 2
expect_err "build.submodules"

finish
