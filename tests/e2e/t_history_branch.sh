#!/bin/bash
# The history branch (docs/history.md), with a bare repository on this
# machine standing for the remote: `kagari history push` creates the branch
# with its marker and one file per run, leaving the work tree, the index,
# HEAD and the user's refs as they were; `pull` into another clone imports
# every run and a second pull changes nothing; two clones pushing 20 runs
# each at once end with 40 runs on the branch, none lost; a branch that is
# not kagari's is refused (exit 4, nothing written on either side); a bad
# file is skipped with a warning naming it; a force-pushed branch is
# detected, the local runs are kept and the next push restores the lost
# ones; a push interrupted while git pushes leaves the branch whole and
# the next push lands every run; credentials in a remote's URL never
# reach a message; `kagari ci
# --history-push` pulls and pushes on a push to the default branch only —
# never on a pull request, another branch or a GitLab merge request.
. "$(dirname "$0")/lib.sh"

git_sandbox
unset KAGARI_BASE_REF GITHUB_EVENT_NAME GITHUB_EVENT_PATH GITHUB_STEP_SUMMARY \
	GITHUB_WORKSPACE GITLAB_CI CI_MERGE_REQUEST_DIFF_BASE_SHA CI_COMMIT_BEFORE_SHA \
	CI_PIPELINE_SOURCE CI_COMMIT_BRANCH CI_DEFAULT_BRANCH KAGARI_MACHINE_ID

REMOTE="$T/remote.git"
g init -q --bare "$REMOTE"
# rg ARGS...: git in the remote.
rg() { git --git-dir="$REMOTE" "$@"; }
# branch_runs: the run files on the remote's branch.
branch_runs() { rg ls-tree -r --name-only kagari-history -- runs/ 2>/dev/null | grep -c '\.json$'; }
# runs_in DIR: the runs of DIR's history.
runs_in() {
	"$PY" -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM runs").fetchone()[0])' "$1/.kagari/history.sqlite"
}
# snap DIR FILE: what the user owns in DIR's repository.
snap() {
	(cd "$1" && git status --porcelain && sha1sum .git/index && git rev-parse HEAD &&
		git symbolic-ref HEAD && git for-each-ref refs/heads refs/remotes refs/tags &&
		git stash list && ls .git/FETCH_HEAD 2>&1) > "$2"
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
g fetch -q origin
for i in 1 2 3; do "$KAGARI" run --quiet >/dev/null 2>>"$T/run.err" || fail "run $i: $(cat "$T/run.err")"; done

case_ "push creates the branch: its marker and one file per run"
snap "$A" "$T/before"
run_k history push
expect_rc 0
expect_out "3 runs pushed to the new branch 'kagari-history' of '$REMOTE'"
[ "$(branch_runs)" -eq 3 ] || fail "the branch has $(branch_runs) runs, expected 3"
rg cat-file -p kagari-history:KAGARI-HISTORY | head -1 | grep -qx "kagari history branch" || fail "no marker"
rg ls-tree -r --name-only kagari-history | grep -qE '^runs/[0-9]{4}-[0-9]{2}/[0-9]{8}T[0-9]{6}Z-[0-9a-f]{12}-[0-9a-f]{16}-[0-9a-f]{12}\.json$' ||
	fail "run files not named runs/YYYY-MM/ORIGIN.json: $(rg ls-tree -r --name-only kagari-history)"

case_ "the work tree, index, HEAD and the user's refs are untouched"
snap "$A" "$T/after"
cmp -s "$T/before" "$T/after" || fail "changed: $(diff "$T/before" "$T/after")"
[ -z "$(g for-each-ref refs/remotes/origin/kagari-history)" ] || fail "a remote-tracking ref was made"

case_ "a second push has nothing to push"
run_k history push
expect_rc 0
expect_out "nothing to push"
[ "$(rg rev-list --count kagari-history)" -eq 1 ] || fail "a second commit was made"

case_ "pull into an empty history imports every run; pull after pull changes nothing"
g clone -q "$REMOTE" "$T/b"
cd "$T/b" || exit 1
run_k history pull
expect_rc 0
expect_out "3 runs on branch 'kagari-history' of '$REMOTE'"
expect_out "3 imported, 0 already here, 0 skipped"
[ "$(runs_in "$T/b")" -eq 3 ] || fail "b has $(runs_in "$T/b") runs"
run_k history --format json
cp "$T/out" "$T/h1.json"
run_k history pull
expect_rc 0
expect_out "0 imported, 3 already here, 0 skipped"
run_k history --format json
cmp -s "$T/h1.json" "$T/out" || fail "a second pull changed the history"
json_check "$T/out" 'r["runs"] == 3 and len(r["series"][0]["points"]) == 1'

case_ "history --from-branch imports first, then shows"
(cd "$A" && "$KAGARI" run --quiet >/dev/null && "$KAGARI" history push >/dev/null) || fail "push of a 4th run"
run_k history --from-branch --format json
expect_rc 0
expect_err "1 imported, 3 already here"
json_check "$T/out" 'r["runs"] == 4'

case_ "two clones pushing 20 runs each at once: 40 more runs, none lost"
before=$(branch_runs)
for c in p1 p2; do
	g clone -q "$REMOTE" "$T/$c"
	(
		cd "$T/$c" || exit 1
		for i in $(seq 1 20); do
			"$KAGARI" run --quiet >/dev/null 2>>"$T/$c.err" || echo "run $i failed" >>"$T/$c.err"
			"$KAGARI" history push >>"$T/$c.out" 2>>"$T/$c.err" || echo "push $i failed" >>"$T/$c.err"
		done
	) &
done
wait
[ ! -s "$T/p1.err" ] && [ ! -s "$T/p2.err" ] || fail "a pusher failed: $(cat "$T/p1.err" "$T/p2.err")"
[ "$(branch_runs)" -eq $((before + 40)) ] || fail "the branch has $(branch_runs) runs, expected $((before + 40))"
[ "$(grep -c '1 run pushed' "$T/p1.out" "$T/p2.out" | awk -F: '{s += $2} END {print s}')" -eq 40 ] ||
	fail "not 40 pushes of one run: $(cat "$T/p1.out" "$T/p2.out")"
echo "  (pushes that needed more than one attempt: $(cat "$T/p1.out" "$T/p2.out" | grep -vc "in 1 attempt"))"
cd "$T/b" || exit 1
run_k history pull
expect_rc 0
expect_out "40 imported"
[ "$(runs_in "$T/b")" -eq $((before + 40)) ] || fail "b has $(runs_in "$T/b") runs"

case_ "a bad file is skipped whole, with a warning naming it"
W="$T/w"
g clone -q --branch kagari-history "$REMOTE" "$W" 2>/dev/null
good=$(cd "$W" && ls runs/*/*.json | head -1)
newer=${good%-*}-00000000beef.json
"$PY" - "$W/$good" "$W/$newer" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["kagari_history"] = 2
r["origin"] = sys.argv[2].rsplit("/", 1)[1][:-5]
open(sys.argv[2], "w").write(json.dumps(r))
PYEOF
broken=${good%-*}-00000000dead.json
printf '{"kagari_history":1,' > "$W/$broken"
echo '{"hello": 1}' > "$W/runs/notes.json"
(cd "$W" && g add -A && g commit -qm "someone's files" && g push -q origin kagari-history) || fail "cannot add files"
n=$(runs_in "$T/b")
run_k history pull
expect_rc 0
expect_err "skipped '$newer': written by a newer kagari (run format 2"
expect_err "skipped '$broken': not JSON"
expect_err "skipped 'runs/notes.json': not a kagari run"
expect_out "0 imported"
expect_out "3 skipped"
[ "$(runs_in "$T/b")" -eq "$n" ] || fail "a bad file was imported"

case_ "a branch that is not kagari's is refused: exit 4, nothing written"
g -C "$A" push -q origin main:refs/heads/not-ours
tip=$(rg rev-parse not-ours)
cd "$A" || exit 1
sum=$(sha1sum .kagari/history.sqlite)
run_k history push --branch not-ours
expect_rc 4
last_err_has "branch 'not-ours' of '$REMOTE' is not a kagari history branch (it has no KAGARI-HISTORY file at its root)"
[ "$(rg rev-parse not-ours)" = "$tip" ] || fail "the foreign branch moved"
run_k history pull --branch not-ours
expect_rc 4
last_err_has "is not a kagari history branch"
[ "$(sha1sum .kagari/history.sqlite)" = "$sum" ] || fail "the history was written"

case_ "a force-pushed branch is detected, local runs kept; the next push restores them"
cd "$T/b" || exit 1
n=$(runs_in "$T/b")
first=$(rg rev-list --max-parents=0 kagari-history)
rg update-ref refs/heads/kagari-history "$first"
run_k history pull
expect_rc 0
expect_err "branch 'kagari-history' of '$REMOTE' was rewritten (force-pushed) since this history last saw it"
expect_err "the runs of this history are kept"
[ "$(runs_in "$T/b")" -eq "$n" ] || fail "local runs lost: $(runs_in "$T/b") of $n"
run_k history push
expect_rc 0
expect_out "runs pushed"
[ "$(branch_runs)" -eq "$n" ] || fail "the branch has $(branch_runs) runs after the push, expected $n"

case_ "a push interrupted half-way leaves the branch whole; the next push lands every run"
cd "$T/b" || exit 1
for i in 1 2; do "$KAGARI" run --quiet >/dev/null 2>>"$T/run.err" || fail "run: $(cat "$T/run.err")"; done
n=$(runs_in "$T/b")
before=$(branch_runs)
# The remote takes 3 s to accept; kagari is interrupted (as by Ctrl-C)
# after 1 s, while git is pushing.
printf '#!/bin/sh\nsleep 3\n' > "$REMOTE/hooks/pre-receive"
chmod +x "$REMOTE/hooks/pre-receive"
timeout -s INT 1 "$KAGARI" history push >"$T/out" 2>"$T/err"
rc=$?
rm -f "$REMOTE/hooks/pre-receive"
sleep 3 # a push the interrupt did not stop ends now
after=$(branch_runs)
[ "$after" -eq "$before" ] || [ "$after" -eq "$n" ] ||
	fail "the branch holds $after runs: neither the $before before nor the $n after (exit $rc)"
echo "note: the interrupted push exited $rc; the branch then held $after runs ($before before, $n in all)"
rg fsck --no-progress >/dev/null 2>&1 || fail "the remote is not whole after the interrupt"
run_k history push
expect_rc 0
[ "$(branch_runs)" -eq "$n" ] || fail "the branch has $(branch_runs) runs after the next push, expected $n"
grep -q "force-pushed" "$T/err" && fail "the interrupted push was taken for a force-push: $(cat "$T/err")"

case_ "credentials in the remote's URL never reach a message"
run_k history push --remote "https://kagari:s3cr3t-t0ken@127.0.0.1:9/none.git"
expect_rc 4
expect_err "https://***@127.0.0.1:9/none.git"
grep -q "s3cr3t" "$T/err" "$T/out" && fail "the token was printed: $(cat "$T/err")"

case_ "no such remote: exit 4 naming it"
run_k history pull --remote nowhere
expect_rc 4
expect_err "no remote 'nowhere'"

# ci: a base and a head on main, the history branch on the remote.
C="$T/c"
g clone -q "$REMOTE" "$C"
cd "$C" || exit 1
BASE=$(g rev-parse HEAD)
echo x > x.txt && g add -A && g commit -qm c2 && g push -q origin main
HEAD_SHA=$(g rev-parse HEAD)
EV="$T/events"
mkdir -p "$EV"
printf '{"ref":"refs/heads/main","before":"%s","after":"%s","repository":{"default_branch":"main"}}\n' "$BASE" "$HEAD_SHA" > "$EV/push.json"
printf '{"ref":"refs/heads/topic","before":"%s","after":"%s","repository":{"default_branch":"main"}}\n' "$BASE" "$HEAD_SHA" > "$EV/topic.json"
printf '{"action":"synchronize","pull_request":{"number":1,"base":{"ref":"main","sha":"%s"},"head":{"sha":"%s"}},"repository":{"default_branch":"main"}}\n' "$BASE" "$HEAD_SHA" > "$EV/pr.json"

case_ "ci --history-push on a pull request neither pulls nor pushes, and says why"
tip=$(rg rev-parse kagari-history)
GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$EV/pr.json" run_k ci --history-push --quiet --format json
expect_rc 0
expect_err "not pulling or pushing the history branch: the 'pull_request' event is not a push"
[ "$(rg rev-parse kagari-history)" = "$tip" ] || fail "a pull request pushed"
[ "$(runs_in "$C")" -eq 1 ] || fail "a pull request pulled: $(runs_in "$C") runs"

case_ "ci --history-push on a push to another branch does not push"
GITHUB_EVENT_NAME=push GITHUB_EVENT_PATH="$EV/topic.json" run_k ci --history-push --quiet --format json
expect_rc 0
expect_err "the push is to 'refs/heads/topic', not to the default branch 'main'"
[ "$(rg rev-parse kagari-history)" = "$tip" ] || fail "a push to topic pushed"

case_ "ci --history-push in a GitLab merge request pipeline does not push"
GITLAB_CI=true CI_PIPELINE_SOURCE=merge_request_event CI_COMMIT_BRANCH= CI_DEFAULT_BRANCH=main \
	CI_MERGE_REQUEST_DIFF_BASE_SHA=$BASE run_k ci --history-push --quiet --format json
expect_rc 0
expect_err "this GitLab pipeline is not a push to the default branch"
[ "$(rg rev-parse kagari-history)" = "$tip" ] || fail "a merge request pushed"

case_ "ci --history-push on a push to the default branch pulls, measures, pushes"
# This history also holds the three runs above (on a CI runner, new for
# every job, it would hold only the one measured now): all four are pushed.
n=$(branch_runs)
GITHUB_EVENT_NAME=push GITHUB_EVENT_PATH="$EV/push.json" run_k ci --history-push --quiet --format json
expect_rc 0
expect_err "kagari: history pull: $n runs on branch 'kagari-history'"
expect_err "kagari: history push: 4 runs pushed"
[ "$(branch_runs)" -eq $((n + 4)) ] || fail "the branch has $(branch_runs) runs, expected $((n + 4))"
json_check "$T/out" 'r["mode"] == "compare"'
[ "$(runs_in "$C")" -eq $((n + 4)) ] || fail "c has $(runs_in "$C") runs, expected $((n + 4))"
n=$((n + 4))

case_ "ci --history-push on a GitLab push to the default branch pushes"
GITLAB_CI=true CI_PIPELINE_SOURCE=push CI_COMMIT_BRANCH=main CI_DEFAULT_BRANCH=main \
	CI_COMMIT_BEFORE_SHA=$BASE run_k ci --history-push --quiet --format json
expect_rc 0
[ "$(branch_runs)" -eq $((n + 1)) ] || fail "the branch has $(branch_runs) runs, expected $((n + 1))"

case_ "ci --history-push with --no-history is a usage error"
GITHUB_EVENT_NAME=push GITHUB_EVENT_PATH="$EV/push.json" run_k ci --history-push --no-history --quiet
expect_rc 3
expect_err "cannot go with --no-history"

echo "$CASES cases, $FAILS failures"
[ "$FAILS" -eq 0 ]
