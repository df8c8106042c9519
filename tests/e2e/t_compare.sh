#!/bin/bash
# kagari compare on real git repositories made here: a tiny C program whose
# amount of CPU work is a #define in work.h, built by the suite's `build`, so
# that the head can do +20% or -20% of the base's work. Asserts verdicts,
# exit codes, JSON fields and messages, and that the user's repository
# (status, index, worktrees, stashes, branches, HEAD, config) and $TMPDIR are
# byte-identical before and after every compare, interrupted ones included,
# and that no git hook ran.
. "$(dirname "$0")/lib.sh"

# Private temporary folder (kagari's kagari-* folders land here) and
# no user/system git configuration.
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
# Our own git calls never run hooks: a hook that fires was run by kagari.
g() { git -c user.name=t -c user.email=t@t -c core.hooksPath=/dev/null -c init.defaultBranch=main "$@"; }

HP="$T/helper-cmp-$$"        # private helper copies, for pgrep
HK="$T/helper-cmpkill-$$"
cp "$H" "$HP"
cp "$H" "$HK"

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
cat > prog.c <<'EOF'
#include <stdio.h>
#include "work.h"
int main(void)
{
	unsigned long long x = 88172645463325252ULL;
	for (long i = 0; i < WORK; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	printf("%llu\n", x & 1);
	return 0;
}
EOF
set_work() { echo "#define WORK $1L" > work.h; }
set_work 12000000            # ~15-20 ms
cat > kagari.yaml <<'YAML'
version: "1"
name: cmp
build:
  command: [cc, -O2, -o, "${artifact}", prog.c]
defaults:
  warmup: 1
  runs: 30
  metrics: {cpu: true, memory: true}
  regression:
    latency: {max_percent: 10}
    cpu_total: {max_percent: 10}   # a tolerance: it gates (the fallback below)
benchmarks:
  - name: xs
    commands:
      prog:
        command: ["${artifact}"]
YAML
# A slow command (300 ms per run, plus a child that sleeps 300 s and must be
# killed with the run's process group) to interrupt while measuring. Each run
# appends its child's pid to cmp-runs.pids, which tells how far it got.
cat > slow.kagari.yaml <<YAML
version: "1"
name: slow
build:
  command: [cc, -O2, -o, "\${artifact}", prog.c]
defaults: {warmup: 0, runs: 50, runs_per_round: 1}
benchmarks:
  - name: s
    commands:
      slow: {command: ["$HP", "--pidfile", "$T/cmp-runs.pids", "spawn", "1", "sleep", "300"]}
YAML
# A build that takes 30 s, to interrupt while building.
cat > slowbuild.kagari.yaml <<YAML
version: "1"
name: slowbuild
build:
  command: ["$HP", "sleep", "30000"]
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: s
    commands:
      c: {command: ["$HP", "sleep", "1"]}
YAML
# Runs that end by themselves (200 ms), for a kagari killed with SIGKILL.
cat > kill.kagari.yaml <<YAML
version: "1"
name: kill
build:
  command: [cc, -O2, -o, "\${artifact}", prog.c]
defaults: {warmup: 0, runs: 100, runs_per_round: 1}
benchmarks:
  - name: k
    commands:
      k: {command: ["$HK", "sleep", "200"]}
YAML
# The same program in a subfolder with a suite of its own.
mkdir -p sub
cp prog.c work.h kagari.yaml sub/
echo "notes" > notes.txt
g add -A
g commit -qm base

# Branches: `faster` does 20% less work (so main is +25% against it);
# `broken-build` has a prog.c that does not compile. Both made without
# touching the working tree.
mk_commit() { # BRANCH FILE CONTENT: a commit on top of HEAD changing FILE
	local idx="$T/idx.$1" blob tree c
	GIT_INDEX_FILE="$idx" g read-tree HEAD
	blob=$(printf '%s\n' "$3" | g hash-object -w --stdin)
	GIT_INDEX_FILE="$idx" g update-index --cacheinfo "100644,$blob,$2"
	tree=$(GIT_INDEX_FILE="$idx" g write-tree)
	c=$(g commit-tree "$tree" -p HEAD -m "$1")
	g branch "$1" "$c"
	rm -f "$idx"
}
mk_commit faster work.h "#define WORK 9600000L"
mk_commit broken-build prog.c "this is not C"
g branch feature
g tag -a v1 -m "release 1" main
# The user's own worktrees: one live, one whose folder was deleted
# (prunable); kagari must touch neither.
g worktree add -q "$T/userwt" feature
g worktree add -q --detach "$T/gonewt" HEAD
rm -rf "$T/gonewt"
# A stash, then a clean tree again.
echo "stashed" >> notes.txt
g stash -q
# Hooks that would report any git call of kagari's that runs them.
for hk in post-checkout reference-transaction post-index-change; do
	printf '#!/bin/sh\necho "%s $*" >> "%s/hook-ran"\n' "$hk" "$T" > .git/hooks/$hk
	chmod +x .git/hooks/$hk
done
MAIN_SHA=$(g rev-parse main)
# kagari's history folders, made now so that their first appearance does not
# change the folders' times in the snapshots below.
mkdir -p .kagari sub/.kagari && printf '*\n' | tee .kagari/.gitignore > sub/.kagari/.gitignore
FASTER_SHA=$(g rev-parse faster)

# The history kagari appends to (.kagari/, which ignores itself in git;
# t_history.sh) is kagari's own file, not the user's: left out here.
state() { # FILE: everything of the user's that compare must not change
	(cd "$R" || exit 1

		echo "## status"; g status --porcelain=v1 --untracked-files=all --ignored | grep -v '^!! \(.*/\)\?\.kagari/'
		echo "## worktrees"; g worktree list --porcelain
		echo "## stash"; g stash list
		echo "## branches"; g branch --list -a -vv
		echo "## head"; g rev-parse HEAD; g symbolic-ref -q HEAD
		echo "## refs"; g for-each-ref
		echo "## index"; g ls-files -s
		echo "## files"; find . -path ./.git -prune -o -name .kagari -prune -o -printf '%p %M %s %T@\n' | sort
		echo "## diff"; g diff; g diff --cached
		echo "## config"; g config --local --list
		echo "## hooks"; ls -A .git/hooks
		echo "## tmpdir"; ls -A "$TMPDIR"
	) > "$1" 2>&1
}

check_state() { # BEFORE AFTER
	cmp -s "$1" "$2" || fail "user state changed: $(diff "$1" "$2" | head -20)"
	[ -e "$T/hook-ran" ] && fail "a git hook ran: $(head -5 "$T/hook-ran")"
	rm -f "$T/hook-ran"
}

# compare ARGS...: `kagari compare ARGS` in the repository; the user's state
# must be byte-identical before and after.
compare() {
	state "$T/before"
	"$KAGARI" compare "$@" >"$T/out" 2>"$T/err"
	RC=$?
	state "$T/after"
	check_state "$T/before" "$T/after"
}

# jc FILE EXPR: like json_check, with c = the first command of the first
# suite, L and C = its latency and cpu_total comparisons, V = the comparison
# named by $JC_METRIC (default latency).
jc() {
	"$PY" - "$1" "$2" <<'PYEOF' || fail "json check failed: $2"
import json, os, sys
r = json.load(open(sys.argv[1]))
try:
    c = r["suites"][0]["benchmarks"][0]["commands"][0]
except (KeyError, IndexError, TypeError):
    c = None
L = ((c or {}).get("comparisons") or {}).get("latency")
C = ((c or {}).get("comparisons") or {}).get("cpu_total")
V = ((c or {}).get("comparisons") or {}).get(os.environ.get("JC_METRIC", "latency"))
try:
    ok = eval(sys.argv[2])
except Exception as e:
    sys.stderr.write("%s: %r\n" % (sys.argv[2], e))
    sys.exit(1)
if not ok:
    sys.stderr.write("expression false: %s\n  latency: %s\n" % (sys.argv[2], json.dumps(L)))
    sys.exit(1)
PYEOF
}

# compare_expect VERDICT RC ARGS... (ARGS write JSON to the file after
# --output): compare until the latency verdict is VERDICT with exit code RC,
# at most 3 attempts, the 2nd and 3rd with twice the runs, since a loaded
# machine may leave a real change unestablished (pass, within_noise,
# inconclusive). No attempt may ever give the opposite verdict, and the exit
# code must always agree with the summary. On an oversubscribed machine
# (wall time over 1.3x the CPU time of this single-threaded program) wall
# time cannot resolve the change, and the CPU time's verdict stands in.
# Sets JC_METRIC to the metric whose verdict was VERDICT (V in jc).
compare_expect() {
	local want=$1 want_rc=$2 opposite attempt out='' prev=''
	shift 2
	[ "$want" = regression ] && opposite=improved || opposite=regression
	for a in "$@"; do [ "$prev" = --output ] && out=$a; prev=$a; done
	export JC_METRIC=latency
	for attempt in 1 2 3; do
		rm -f "$out"
		if [ "$attempt" = 1 ]; then
			compare "$@"
		else
			compare "$@" --runs 60
		fi
		if [ ! -s "$out" ]; then
			fail "no report written (exit code $RC); stderr: $(tail -c 800 "$T/err")"
			return
		fi
		jc "$out" "all(x['verdict'] != '$opposite' for x in c['comparisons'].values())"
		jc "$out" "r['summary']['exit_code'] == $RC and (r['summary']['regression'] > 0) == ($RC == 1)"
		if jc_quiet "$out" "L['verdict'] == '$want'"; then
			expect_rc "$want_rc"
			return
		fi
		echo "note: $CASE: attempt $attempt gave latency $(jc_get "$out" 'L["verdict"], round(L["change_percent"], 1), L["reason"]')" >&2
		if jc_quiet "$out" "L['base'] > 1.3 * C['base'] and C['verdict'] == '$want'"; then
			echo "note: $CASE: machine oversubscribed (wall $(jc_get "$out" 'round(L["base"] / C["base"], 2)')x CPU time); checking cpu_total's verdict instead" >&2
			JC_METRIC=cpu_total
			expect_rc "$want_rc"
			return
		fi
	done
	fail "latency verdict is not $want after 3 attempts"
}

jc_quiet() {
	"$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))
L = r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["latency"]
C = r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["cpu_total"]
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2" 2>/dev/null
}

jc_get() {
	"$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))
L = r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["latency"]
C = r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["cpu_total"]
print(eval(sys.argv[2]))' "$1" "$2" 2>&1
}

case_ "A/A: head identical to the committed base gives no regression"
compare --against HEAD --quiet --format json --output "$T/aa.json" --seed 7
expect_rc 0
jc "$T/aa.json" 'r["mode"] == "compare" and r["seed"] == 7'
jc "$T/aa.json" "r['git'] == {'head_sha': '$MAIN_SHA', 'dirty': False, 'base_ref': 'HEAD', 'base_sha': '$MAIN_SHA'}"
jc "$T/aa.json" 'c["base"]["count"] == 30 and c["head"]["count"] == 30 and r["suites"][0]["benchmarks"][0]["rounds"] == 30'
jc "$T/aa.json" 'all(m in c["comparisons"] for m in ["latency", "cpu_total", "peak_rss"])'
jc "$T/aa.json" 'L["verdict"] in ("pass", "within_noise", "inconclusive") and L["max_percent"] == 10 and L["gate"] is True'
jc "$T/aa.json" 'all(x["verdict"] in ("pass", "within_noise", "inconclusive") for x in c["comparisons"].values())'
jc "$T/aa.json" 'abs(C["change_percent"]) < 10 and abs(L["change_percent"]) < 25 and L["ci_low_percent"] <= L["ci_high_percent"]'
jc "$T/aa.json" 'r["summary"]["regression"] == 0 and r["summary"]["improved"] == 0 and r["summary"]["exit_code"] == 0'
# Every comparison states what it could not see (1 - 0.05^(1/30) of the
# runs) and whether the change moved; a pass says the former in words.
jc "$T/aa.json" 'all(abs(x["blind_share_percent"] - 100 * (1 - 0.05 ** (1 / 30))) < 1e-6 for x in c["comparisons"].values())'
jc "$T/aa.json" 'all(isinstance(x["trend_percent_per_round"], float) and 0 <= x["trend_p"] <= 1 for x in c["comparisons"].values())'
jc "$T/aa.json" 'all("; blind share 9.5%" in x["reason"] for x in c["comparisons"].values() if x["verdict"] == "pass")'

case_ "a committed change: main does 25% more work than branch 'faster'"
compare_expect regression 1 --against faster --quiet --format json --output "$T/c.json"
last_err_has "regression"
jc "$T/c.json" "r['git'] == {'head_sha': '$MAIN_SHA', 'dirty': False, 'base_ref': 'faster', 'base_sha': '$FASTER_SHA'}"
# direction and rough size: CPU time tracks the work closely, wall time on
# a loaded machine less so
jc "$T/c.json" '15 <= C["change_percent"] <= 36 and L["change_percent"] > 0'
jc "$T/c.json" 'V is C or 12 <= L["change_percent"] <= 50'
jc "$T/c.json" 'r["summary"]["regression"] >= 1 and r["summary"]["exit_code"] == 1'

# From here the working tree has an untracked file and a staged change too.
echo "scratch" > scratch.txt
echo "staged" >> notes.txt
g add notes.txt

case_ "+20% work, uncommitted: a gated regression, exit 1"
set_work 14400000
compare_expect regression 1 --against main --quiet --format json --output "$T/up.json"
expect_err "regression"
last_err_has "regression"
jc "$T/up.json" '12 <= C["change_percent"] <= 30 and L["change_percent"] > 0'
jc "$T/up.json" 'V is C or 10 <= L["change_percent"] <= 45'
jc "$T/up.json" 'V["verdict"] == "regression" and 0 < V["ci_low_percent"] <= V["change_percent"] <= V["ci_high_percent"]'
jc "$T/up.json" 'V["p_value"] < 0.05 and V["gate"] is True and V["max_percent"] == 10'
jc "$T/up.json" 'L["gate"] is True and L["statistic"] == "median" and L["pairing"] == "rounds" and L["confidence"] == 0.95'
jc "$T/up.json" 'isinstance(V["reason"], str) and V["reason"] != ""'
jc "$T/up.json" 'c["result"] == "regression" and r["suites"][0]["result"] == "regression"'
jc "$T/up.json" 'r["summary"]["regression"] >= 1 and r["summary"]["exit_code"] == 1'
jc "$T/up.json" 'c["comparisons"]["peak_rss"]["verdict"] != "regression"'

case_ "an uncommitted change is what the head measures; the base is HEAD"
jc "$T/up.json" "r['git'] == {'head_sha': '$MAIN_SHA', 'dirty': True, 'base_ref': 'main', 'base_sha': '$MAIN_SHA'}"
jc "$T/up.json" 'c["head"]["metrics"]["cpu_total"]["stats"]["median"] > 1.1 * c["base"]["metrics"]["cpu_total"]["stats"]["median"]'
jc "$T/up.json" 'L["head"] > L["base"] and C["head"] > C["base"]'

case_ "-20% work, uncommitted: improved, exit 0"
set_work 9600000
compare_expect improved 0 --against main --quiet --format json --output "$T/down.json"
jc "$T/down.json" '-30 <= C["change_percent"] <= -12 and L["change_percent"] < 0'
jc "$T/down.json" 'V is C or -40 <= L["change_percent"] <= -10'
jc "$T/down.json" 'V["verdict"] == "improved" and V["ci_low_percent"] <= V["change_percent"] <= V["ci_high_percent"] < 0'
jc "$T/down.json" 'r["summary"]["regression"] == 0 and r["summary"]["exit_code"] == 0'
jc "$T/down.json" 'V is C or (c["result"] == "improved" and r["summary"]["improved"] >= 1)'
compare --against main --no-color
expect_rc 0
# the table's comparison line: latency  BASE → HEAD  CHANGE [LO, HI]  VERDICT  REASON
grep -Eq '^ +latency .*→.*\] +(improved|pass|within_noise|inconclusive) ' "$T/out" ||
	fail "the table shows no latency verdict: $(grep -A4 '→' "$T/out" | head -c 800)"
grep -Eq '^ +latency .*→.*\] +regression ' "$T/out" && fail "the table shows a regression for -20% work"
set_work 12000000

case_ "--fail-on-inconclusive turns too few samples into exit 1"
compare --against main --runs 4 --quiet --format json --output "$T/inc.json"
expect_rc 0
jc "$T/inc.json" 'L["verdict"] == "inconclusive" and r["summary"]["inconclusive"] >= 1 and r["summary"]["exit_code"] == 0'
compare --against main --runs 4 --fail-on-inconclusive --quiet --format json --output "$T/inc.json"
expect_rc 1
last_err_has "inconclusive"
jc "$T/inc.json" 'L["verdict"] == "inconclusive" and r["summary"]["exit_code"] == 1'

case_ "a suite file not in the base: both sides run the head's (suite_from: head), compared"
sed 's/^name: cmp/name: fresh/' kagari.yaml > new.kagari.yaml
compare --against main new.kagari.yaml --runs 4 --quiet --format json --output "$T/new.json"
expect_rc 0
jc "$T/new.json" 'r["suites"][0]["suite_from"] == "head" and r["suites"][0]["name"] == "fresh"'
jc "$T/new.json" 'any("does not exist in main" in w and "suite_from: head" in w for w in r["warnings"])'
jc "$T/new.json" 'c["head"]["count"] == 4 and c["base"]["count"] == 4 and "latency" in c["comparisons"]'
[ "$(grep -c "suite_from: head" "$T/err")" = 1 ] || fail "not one line on stderr saying suite_from: head: $(cat "$T/err")"
compare --against main new.kagari.yaml --runs 2 --no-color
expect_rc 0
grep -q "suite_from: head" "$T/out" || fail "the table does not say which suite ran: $(head -c 800 "$T/out")"
# --suite-from base: a file the base lacks stands for the base's suites in
# its folder (t_suite_edits.sh); a folder where the base has none is exit 3.
mkdir -p fresh
sed 's/^name: cmp/name: fresh/' kagari.yaml > fresh/new.kagari.yaml
compare --against main fresh/new.kagari.yaml --suite-from base --runs 2 --quiet
expect_rc 3
expect_err "--suite-from base: main has no suite where the arguments point (main has no suite at 'fresh')"
rm -rf new.kagari.yaml fresh

case_ "a suite edited in the working tree: compare runs the edit and says so first, --suite-from base runs the base's"
cp kagari.yaml "$T/kagari.yaml.orig"
cat >> kagari.yaml <<'YAML'
  - name: extra
    commands:
      again:
        command: ["${artifact}"]
YAML
compare --against main --runs 3 --quiet --format json --output "$T/sf.json"
expect_rc 0
jc "$T/sf.json" 'r["suites"][0]["suite_from"] == "head" and [b["name"] for b in r["suites"][0]["benchmarks"]] == ["xs", "extra"]'
jc "$T/sf.json" 'r["suites"][0]["benchmarks"][1]["commands"][0]["base"]["count"] == 3'
jc "$T/sf.json" 'any("both sides run the working tree\x27s copy of kagari.yaml, which differs from main\x27s" in w and "no benchmark left out" in w for w in r["warnings"])'
# one line, the first on stderr: said before anything was measured
head -n 1 "$T/err" | grep -q "both sides run the working tree's copy of kagari.yaml.*no benchmark left out" || fail "the first stderr line does not say which suite ran: $(head -n 3 "$T/err")"
[ "$(grep -c "which differs from" "$T/err")" = 1 ] || fail "the suite line is not said once: $(cat "$T/err")"
compare --against main --suite-from base --runs 3 --quiet --format json --output "$T/sf.json"
expect_rc 0
jc "$T/sf.json" 'r["suites"][0]["suite_from"] == "base" and [b["name"] for b in r["suites"][0]["benchmarks"]] == ["xs"]'
jc "$T/sf.json" 'any("both sides run main\x27s copy" in w and "--suite-from head" in w and "left out: \x27extra\x27 (only in the working tree\x27s copy)" in w for w in r["warnings"])'
head -n 1 "$T/err" | grep -q "left out: 'extra'" || fail "the first stderr line does not name the benchmark left out: $(head -n 3 "$T/err")"
# the table says it too
compare --against main --suite-from base --runs 2 --no-color
grep -q "left out: 'extra'" "$T/out" || fail "the table does not name the benchmark left out: $(tail -c 800 "$T/out")"
compare --against main --suite-from sideways --quiet
expect_rc 3
expect_err "sideways"
cp "$T/kagari.yaml.orig" kagari.yaml

case_ "a benchmark only the base's suite has: compare names it as left out"
sed -i 's/^  - name: xs$/  - name: xs2/' kagari.yaml
compare --against main --runs 3 --quiet --format json --output "$T/sf.json"
expect_rc 0
jc "$T/sf.json" '[b["name"] for b in r["suites"][0]["benchmarks"]] == ["xs2"]'
jc "$T/sf.json" 'any("left out: \x27xs\x27 (only in main\x27s copy)" in w for w in r["warnings"])'
cp "$T/kagari.yaml.orig" kagari.yaml

case_ "an unchanged suite: silently"
compare --against main --runs 3 --quiet --format json --output "$T/sf.json"
expect_rc 0
jc "$T/sf.json" 'r["suites"][0]["suite_from"] == "head" and not any("suite" in w for w in r["warnings"])'
compare --against main --suite-from base --runs 3 --quiet --format json --output "$T/sf.json"
expect_rc 0
jc "$T/sf.json" 'r["suites"][0]["suite_from"] == "base" and not any("suite" in w for w in r["warnings"])'

case_ "--max-percent P replaces the suite's latency tolerance; METRIC=P another's; bad values exit 3"
compare --against main --runs 3 --max-percent 3 --max-percent cpu_total=7% --quiet --format json --output "$T/mp.json"
expect_rc 0
jc "$T/mp.json" 'c["analysis"]["metrics"]["latency"]["max_percent"] == 3 and L["max_percent"] == 3'
jc "$T/mp.json" 'c["analysis"]["metrics"]["cpu_total"]["max_percent"] == 7 and C["max_percent"] == 7'
compare --against main --runs 3 --quiet --format json --output "$T/mp.json"
jc "$T/mp.json" 'L["max_percent"] == 10'
for bad in 0 lots nosuch=5 latency=2000; do
	compare --against main --max-percent "$bad" --quiet
	expect_rc 3
	expect_err "--max-percent '$bad'"
done

case_ "bad revisions"
compare --against no-such-branch --quiet --format json --output "$T/bad.json"
expect_rc 4
expect_err "no-such-branch"; expect_err "fetch"
last_err_has "no-such-branch"
compare --against "HEAD:prog.c" --quiet
expect_rc 4
expect_err "not a commit"
compare --against -x --quiet
expect_rc 3
expect_err "'-x'"
compare --against=-x --quiet
expect_rc 3
compare --quiet
expect_rc 3
expect_err "--against"
mkdir -p "$T/norepo"
cp kagari.yaml "$T/norepo/"
compare --against HEAD "$T/norepo/kagari.yaml" --quiet
expect_rc 4
expect_err "git repository"

case_ "a suite in a subfolder, named from outside the repository, against a short sha"
echo "#define WORK 18000000L" > sub/work.h        # +50% in sub/ only
cd "$T" || exit 1
compare --against "${MAIN_SHA:0:9}" repo/sub --runs 6 --quiet --format json --output "$T/sub.json"
cd "$R" || exit 1
expect_rc 0
jc "$T/sub.json" "r['git']['base_sha'] == '$MAIN_SHA' and r['git']['base_ref'] == '${MAIN_SHA:0:9}'"
jc "$T/sub.json" 'r["suites"][0]["file"].endswith("sub/kagari.yaml") and c["base"]["count"] == 6 and c["head"]["count"] == 6'
jc "$T/sub.json" 'c["head"]["metrics"]["cpu_total"]["stats"]["median"] > 1.25 * c["base"]["metrics"]["cpu_total"]["stats"]["median"]'
jc "$T/sub.json" 'L["verdict"] != "improved"'
g checkout -q sub/work.h

case_ "spaces and non-ASCII in the repository and TMPDIR paths"
SP="$T/my repo ü"
mkdir -p "$SP" "$T/t m p"
g -C "$SP" init -q .
cp prog.c kagari.yaml "$SP/"
echo "#define WORK 12000000L" > "$SP/work.h"
g -C "$SP" add -A
g -C "$SP" commit -qm base
echo "#define WORK 18000000L" > "$SP/work.h"
TMPDIR="$T/t m p" compare --against HEAD "$SP/kagari.yaml" --runs 4 --quiet --format json --output "$T/sp.json"
expect_rc 0
jc "$T/sp.json" 'c["head"]["metrics"]["cpu_total"]["stats"]["median"] > 1.25 * c["base"]["metrics"]["cpu_total"]["stats"]["median"]'
[ -z "$(ls -A "$T/t m p")" ] || fail "left in TMPDIR: $(ls -A "$T/t m p")"
[ "$(g -C "$SP" worktree list --porcelain | grep -c '^worktree ')" -eq 1 ] || fail "worktree left: $(g -C "$SP" worktree list)"

case_ "from the user's own linked worktree"
echo "#define WORK 18000000L" > "$T/userwt/work.h"
compare --against main "$T/userwt/kagari.yaml" --runs 4 --quiet --format json --output "$T/uw.json"
expect_rc 0
jc "$T/uw.json" "r['git'] == {'head_sha': '$MAIN_SHA', 'dirty': True, 'base_ref': 'main', 'base_sha': '$MAIN_SHA'}"
jc "$T/uw.json" 'c["head"]["metrics"]["cpu_total"]["stats"]["median"] > 1.25 * c["base"]["metrics"]["cpu_total"]["stats"]["median"]'
g -C "$T/userwt" checkout -q work.h
[ "$(g -C "$T/userwt" status --porcelain)" = "" ] || fail "the linked worktree changed: $(g -C "$T/userwt" status --porcelain)"

case_ "a repository without commits"
mkdir -p "$T/unborn"
g -C "$T/unborn" init -q .
cp kagari.yaml prog.c work.h "$T/unborn/"
compare --against HEAD "$T/unborn/kagari.yaml" --quiet
expect_rc 4
expect_err "no commits"

cat > logbuild.kagari.yaml <<YAML
version: "1"
name: logbuild
build:
  command: 'echo "\$PWD" >> "$T/builds.log" && cc -O2 -o \${artifact} prog.c'
  shell: true
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: x
    commands:
      p: {command: ["\${artifact}"]}
YAML
case_ "the head is built first; a head that does not build stops before the base is built"
cp prog.c "$T/prog.c.keep"
echo "neither is this" >> prog.c
rm -f "$T/builds.log"
compare --against main logbuild.kagari.yaml --quiet
expect_rc 4
[ "$(wc -l < "$T/builds.log")" = 1 ] || fail "not one build: $(cat "$T/builds.log")"
[ "$(cat "$T/builds.log")" = "$(pwd -P)" ] || fail "the one build was not the head's: $(cat "$T/builds.log")"
last_err_has "the head build of suite 'logbuild' failed"
cp "$T/prog.c.keep" prog.c
rm -f "$T/builds.log"
compare --against broken-build logbuild.kagari.yaml --quiet
expect_rc 4
[ "$(wc -l < "$T/builds.log")" = 2 ] && [ "$(head -n 1 "$T/builds.log")" = "$(pwd -P)" ] || fail "not the head, then the base: $(cat "$T/builds.log")"
last_err_has "the base build of suite 'logbuild' failed"
rm -f logbuild.kagari.yaml "$T/builds.log"

case_ "a measured command that fails on one side stops the other side; the last line names the side"
cat > fails.kagari.yaml <<'YAML'
version: "1"
name: fails
defaults: {warmup: 0, runs: 20}
benchmarks:
  - name: f
    commands:
      t: {command: [sh, -c, "test -e marker.txt"]}
YAML
touch marker.txt             # in the working tree only: the base fails
compare --against main fails.kagari.yaml --quiet --format json --output "$T/fl.json"
expect_rc 4
jc "$T/fl.json" 'c["error"].startswith("base: ") and c["head"]["count"] <= 1 and c["base"]["count"] == 0'
last_err_has "failed to run, first: benchmark 'f', command 't' on the base side"
# said before measuring: the suite line is the first on stderr
head -n 1 "$T/err" | grep -q "fails.kagari.yaml) does not exist in main" || fail "first stderr line: $(head -n 2 "$T/err")"
rm -f marker.txt
sed -i 's/marker.txt/notes.txt/' fails.kagari.yaml
mv notes.txt "$T/notes.keep"  # tracked in main, gone from the working tree: the head fails
compare --against main fails.kagari.yaml --quiet --format json --output "$T/fl.json"
expect_rc 4
jc "$T/fl.json" 'c["error"].startswith("head: ") and c["base"]["count"] <= 1 and c["head"]["count"] == 0'
last_err_has "on the head side"
mv "$T/notes.keep" notes.txt
# a setup that fails on the base: the head is not set up, nor measured
cat > fails.kagari.yaml <<YAML
version: "1"
name: fails
defaults: {warmup: 0, runs: 20}
benchmarks:
  - name: f
    setup:
      - {command: 'echo "\$PWD" >> "$T/setups.log"; test -e marker.txt', shell: true}
    commands:
      t: {command: ["true"]}
YAML
touch marker.txt
rm -f "$T/setups.log"
compare --against main fails.kagari.yaml --quiet --format json --output "$T/fl.json"
expect_rc 4
jc "$T/fl.json" 'c["error"].startswith("base: ") and c["head"]["count"] == 0 and c["base"]["count"] == 0'
[ "$(wc -l < "$T/setups.log")" = 1 ] || fail "the head was set up after the base's setup failed: $(cat "$T/setups.log")"
last_err_has "on the base side"
rm -f marker.txt fails.kagari.yaml "$T/setups.log"

case_ "a base that does not build: exit 4, says the base build failed"
compare --against broken-build --quiet --format json --output "$T/bb.json"
expect_rc 4
grep -qi "base.*build.*fail\|build.*base.*fail" "$T/err" || fail "stderr does not say the base build failed: $(tail -c 800 "$T/err")"
expect_err "this is not C"      # the compiler's message is shown
jc "$T/bb.json" 'r["summary"]["exit_code"] == 4'

case_ "a head that does not build: exit 4, says the head build failed"
cp prog.c "$T/prog.c.keep"
echo "neither is this" >> prog.c
compare --against main --runs 2 --quiet
expect_rc 4
grep -qi "head.*build.*fail\|build.*head.*fail" "$T/err" || fail "stderr does not say the head build failed: $(tail -c 800 "$T/err")"
cp "$T/prog.c.keep" prog.c

case_ "the repository and TMPDIR reached through symlinks"
ln -s "$R" "$T/repolink"
mkdir -p "$T/realtmp"
ln -s "$T/realtmp" "$T/tmplink"
cd "$T/repolink" || exit 1
TMPDIR="$T/tmplink" compare --against HEAD --runs 2 --quiet --format json --output "$T/ln.json"
cd "$R" || exit 1
expect_rc 0
jc "$T/ln.json" "r['git']['base_sha'] == '$MAIN_SHA' and c['base']['count'] == 2"
[ -z "$(ls -A "$T/realtmp")" ] || fail "left in TMPDIR: $(ls -A "$T/realtmp")"

for sig in INT TERM; do
	case_ "SIG$sig while measuring: exit 4, partial report, worktree removed"
	rm -f "$T/int.json" "$T/cmp-runs.pids"
	state "$T/before-int"
	"$KAGARI" compare --against HEAD slow.kagari.yaml --quiet --format json \
		--output "$T/int.json" >"$T/int.out" 2>"$T/int.err" &
	pid=$!
	# A second line: the first measured run is over, the next under way.
	wait_until 60 has_lines "$T/cmp-runs.pids" 2
	if [ "$sig" = INT ]; then
		# A second compare meanwhile must neither disturb this one nor
		# take its worktree for an orphan.
		compare --against HEAD --runs 2 --quiet
		expect_rc 0
		[ "$(g worktree list --porcelain | grep -c '^locked kagari')" -eq 1 ] ||
			fail "the running compare's worktree is gone: $(g worktree list)"
		kill -0 "$pid" 2>/dev/null || fail "the first compare ended early: $(tail -c 600 "$T/int.err")"
	fi
	kill -s "$sig" "$pid"
	wait "$pid"; RC=$?
	cp "$T/int.out" "$T/out"; cp "$T/int.err" "$T/err"
	state "$T/after-int"
	check_state "$T/before-int" "$T/after-int"
	expect_rc 4
	expect_err "interrupted"
	if [ -s "$T/int.json" ]; then
		jc "$T/int.json" 'r["interrupted"] is True and r["summary"]["exit_code"] == 4'
		# The runs that ended are in the report, the one stopped is not
		# (or, had it just ended when the signal came, it is).
		started=$(wc -l <"$T/cmp-runs.pids")
		jc "$T/int.json" "$started - 1 <= c['base']['count'] + c['head']['count'] <= $started"
		jc "$T/int.json" 'c["base"]["count"] + c["head"]["count"] >= 1'
		jc "$T/int.json" "r['git']['base_sha'] == '$MAIN_SHA'"
	else
		fail "no partial report"
	fi
	no_process_left "$HP"
done

case_ "SIGTERM during the build: exit 4, worktree removed"
state "$T/before"
"$KAGARI" compare --against HEAD slowbuild.kagari.yaml --quiet >"$T/out" 2>"$T/err" &
pid=$!
wait_until 60 running "$HP"      # the build command runs
kill -s TERM "$pid"
wait "$pid"; RC=$?
state "$T/after"
check_state "$T/before" "$T/after"
expect_rc 4
expect_err "interrupted"
no_process_left "$HP"

case_ "a detached HEAD, against an annotated tag"
g checkout -q --detach main
compare --against v1 --runs 2 --quiet --format json --output "$T/det.json"
expect_rc 0
jc "$T/det.json" "r['git'] == {'head_sha': '$MAIN_SHA', 'dirty': True, 'base_ref': 'v1', 'base_sha': '$MAIN_SHA'}"
jc "$T/det.json" 'c["base"]["count"] == 2 and c["head"]["count"] == 2'
g checkout -q main

case_ "a compare killed with SIGKILL is cleaned up by the next one"
state "$T/before-kill"
"$KAGARI" compare --against HEAD kill.kagari.yaml --quiet >"$T/out" 2>"$T/err" &
pid=$!
wait_until 60 running "$HK"      # a measured run is in flight
exec 3>&2 2>/dev/null           # no "Killed" job message
kill -s KILL "$pid"
wait "$pid"
exec 2>&3 3>&-
# The runner stops the run in flight once kagari is gone.
wait_until 10 none_running "$HK"
g worktree list --porcelain | grep -q "kagari" || fail "expected the killed compare's worktree to be left"
compgen -G "$TMPDIR/kagari-*" >/dev/null || fail "expected the killed compare's folder to be left"
"$KAGARI" compare --against HEAD --runs 2 --quiet >"$T/out" 2>"$T/err"
RC=$?
expect_rc 0
state "$T/after-kill"
check_state "$T/before-kill" "$T/after-kill"
no_process_left "$HK"

case_ "a base that cannot be checked out is said once, naming the ref and the commit"
# A file where git keeps its worktrees: `git worktree add` fails (as root too).
W="$T/wtfail"
mkdir -p "$W" && cd "$W" || exit 1
g init -q . && printf 'version: "1"\nname: w\nbenchmarks:\n  - name: b\n    commands:\n      c: {command: [\"true\"]}\n' > kagari.yaml
g add -A && g commit -qm w
: > .git/worktrees
run_k compare --against HEAD --runs 2 --quiet --no-history
expect_rc 4
expect_err "base 'HEAD': cannot check out '$(g rev-parse HEAD)' into a temporary worktree"
[ "$(grep -o "temporary worktree" "$T/err" | wc -l)" -eq 1 ] || fail "said more than once: $(cat "$T/err")"
cd "$R" || exit 1

cd "$T" || exit 1
finish
