#!/bin/bash
# The command line: help, version, unknown commands and flags, init.
. "$(dirname "$0")/lib.sh"

case_ "version: the version, the commit, the counter sources"
run_k version; expect_rc 0
head -n 1 "$T/out" | grep -qE '^kagari [0-9]+\.[0-9]+\.[0-9]+$' || fail "first line: $(head -n 1 "$T/out")"
grep -qE '^commit: ([0-9a-f]{12}(-dirty)?|unknown \(not built from a git checkout\))$' "$T/out" || fail "no commit line: $(cat "$T/out")"
# Built from this source tree's checkout: the commit is its HEAD.
SRC=${KAGARI_SOURCE_DIR:-}
if [ -n "$SRC" ] && head=$(git -C "$SRC" rev-parse --short=12 HEAD 2>/dev/null) &&
	[ "$(git -C "$SRC" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$SRC" && pwd -P)" ]; then
	grep -qE "^commit: $head(-dirty)?\$" "$T/out" || fail "commit is not $head: $(grep '^commit' "$T/out")"
fi
expect_out "counter sources:"
for src in "  perf " "  valgrind " "  alloc " cycles instructions task-clock libkagari-alloc.so allocs; do expect_out "$src"; done
grep -qE '^built with: libyaml [0-9.]+, jansson [0-9.]+, sqlite [0-9.]+; (dynamically|statically) linked$' "$T/out" || fail "no 'built with' line: $(cat "$T/out")"
cp "$T/out" version.txt
for flag in --version -V; do
	run_k "$flag"; expect_rc 0
	cmp -s "$T/out" version.txt || fail "$flag differs from version: $(cat "$T/out")"
done

case_ "help lists every command"
run_k help; expect_rc 0
for c in init validate list run version help; do expect_out "  $c"; done

case_ "run --help is generated from the option table"
run_k run --help; expect_rc 0
for f in --filter --tag --skip-tag --format --output --seed --runs --warmup --quiet --no-color; do
	expect_out "$f"
done

case_ "unknown command is a usage error"
run_k frobnicate; expect_rc 3; expect_err "unknown command 'frobnicate'"

case_ "unknown flag suggests the right one"
run_k run --fliter x; expect_rc 3; expect_err "unknown option '--fliter'"; expect_err "did you mean '--filter'?"

case_ "a flag without its value"
run_k run --runs; expect_rc 3; expect_err "option '--runs' needs a value (N)"
expect_err "usage: kagari run [options]"

case_ "--runs 0 is a usage error"
run_k run --runs 0; expect_rc 3; expect_err "--runs must be at least 1"

case_ "a bad --format value"
run_k run --format yaml; expect_rc 3
expect_err "invalid value 'yaml' for '--format': expected one of table|json|"

case_ "no suite in an empty folder"
mkdir empty && (cd empty && "$KAGARI" run >"$T/out" 2>"$T/err"); RC=$?
expect_rc 2
expect_err "no suite given and neither kagari.yaml nor himorime.yaml in the current directory (try 'kagari init')"
[ -z "$(ls -A empty)" ] || fail "files left in the empty folder: $(ls -A empty)"

case_ "init writes a runnable suite and refuses to overwrite it"
mkdir proj && cd proj
run_k init; expect_rc 0
expect_out "wrote kagari.yaml"
[ -s "$T/err" ] && fail "init warned about its own suite: $(cat "$T/err")"
[ -f kagari.yaml ] || fail "init wrote no kagari.yaml"
cp kagari.yaml before.yaml
run_k init; expect_rc 3; expect_err "already exists"
cmp -s kagari.yaml before.yaml || fail "init overwrote the suite without --force"
run_k validate; expect_rc 0
expect_out "kagari.yaml: ok (suite 'my-project', 2 benchmarks, 3 commands)"
run_k run --runs 2 --warmup 0 --format json --output r.json; expect_rc 0
json_check r.json 'r["summary"]["exit_code"] == 0 and r["mode"] == "run"'
json_check r.json 'all(c["head"]["count"] == 2 for b in r["suites"][0]["benchmarks"] for c in b["commands"])'
echo "# changed" >> kagari.yaml
run_k init --force; expect_rc 0; expect_out "wrote kagari.yaml"
cmp -s kagari.yaml before.yaml || fail "init --force did not rewrite the suite"
cd "$T"

case_ "init's suite can decide: runs unset (sequential), and validate does not warn"
cd proj
grep -qE '^[[:space:]]*runs:' kagari.yaml && fail "init wrote a fixed runs: $(grep -E '^[[:space:]]*runs:' kagari.yaml)"
run_k validate; expect_rc 0
[ -s "$T/err" ] && fail "validate warned about init's suite: $(cat "$T/err")"
cd "$T"

case_ "validate warns, at the key, when a fixed runs cannot reach the confidence"
mkdir power && cd power
cat > kagari.yaml <<'YAML'
version: "1"
name: power
defaults:
  runs: 10
  runs_per_round: 2
  regression:
    latency: {max_percent: 5}
benchmarks:
  - name: a
    commands:
      x: {command: ["true"]}
      y: {command: ["true"]}
      z: {command: ["true"]}
  - name: b
    runs: 40
    commands:
      w: {command: ["true"]}
YAML
# 5 rounds: 2^-5 = 0.031 is not below 0.05 / 4 (latency of four
# commands); 6 rounds (12 runs) give 0.016, still not; 7 (14 runs) 0.0078.
run_k validate; expect_rc 0
expect_out "kagari.yaml: ok (suite 'power', 2 benchmarks, 4 commands)"
expect_err "kagari.yaml:4:9: defaults.runs: runs: 10 gives 5 rounds of 2; the smallest possible p is 0.031, not below the Holm threshold 0.05 / 4 = 0.013 of the suite's 4 gated comparisons"
expect_err "leave runs unset (sequential rounds in compare), or at least 14"
[ "$(grep -c 'warning:' "$T/err")" -eq 1 ] || fail "expected one warning (b's 20 rounds can decide): $(cat "$T/err")"
# One command alone: the threshold is 1 - confidence.
cat > one.yaml <<'YAML'
version: "1"
name: one
benchmarks:
  - name: a
    runs: 8
    runs_per_round: 2
    commands:
      x: {command: ["true"]}
YAML
run_k validate one.yaml; expect_rc 0
expect_err "one.yaml:5:11: benchmarks[0].runs: runs: 8 gives 4 rounds of 2; the smallest possible p is 0.062, not below 1 - confidence = 0.05"
expect_err "or at least 10"
# Enough rounds: no warning.
sed -i 's/runs: 8/runs: 10/' one.yaml
run_k validate one.yaml; expect_rc 0
[ -s "$T/err" ] && fail "validate warned about 5 rounds of one comparison: $(cat "$T/err")"
# rare_share 2% needs 149 head runs for a pass: a cap below that can never
# pass, and validate says so at the key; a design that reaches it is quiet.
cat > rare.yaml <<'YAML'
version: "1"
name: rare
defaults:
  max_runs: 100
  regression:
    rare_share: 2%
benchmarks:
  - name: a
    commands:
      x: {command: ["true"]}
  - name: b
    max_runs: 200
    commands:
      x: {command: ["true"]}
  - name: c
    regression: {rare_share: 1%}
    runs: 200
    commands:
      x: {command: ["true"]}
YAML
run_k validate rare.yaml; expect_rc 0
expect_err "rare.yaml:6:17: defaults.regression.rare_share: rare_share 2% needs 149 head runs for a pass, but max_runs is 100: no comparison of benchmark 'a' can pass; raise max_runs to at least 149"
expect_err "rare.yaml:16:30: benchmarks[2].regression.rare_share: rare_share 1% needs 299 head runs for a pass, but runs is 200"
[ "$(grep -c 'warning:' "$T/err")" -eq 2 ] || fail "expected two warnings (b reaches 149): $(cat "$T/err")"
cd "$T"

case_ "list text and json"
cd proj
run_k list; expect_rc 0; expect_out "sort-numbers"; expect_out "sort:"
run_k list --format json; expect_rc 0
cp "$T/out" list.json
json_check list.json 'r["suites"][0]["benchmarks"][0]["name"] == "sort-numbers"'
run_k list --filter 'nothing-matches-this'; expect_rc 3; expect_err "no benchmark matches"
run_k list --tag smoke --format json; expect_rc 0
cp "$T/out" list2.json
json_check list2.json '[b["name"] for b in r["suites"][0]["benchmarks"]] == ["sort-numbers"]'
run_k list --skip-tag smoke --format json; expect_rc 0
cp "$T/out" list3.json
json_check list3.json '[b["name"] for b in r["suites"][0]["benchmarks"]] == ["list-root"]'
run_k list --filter '(' ; expect_rc 3; expect_err "invalid --filter"
cd "$T"

finish
