#!/bin/bash
# The command line: help, version, unknown commands and flags, init.
. "$(dirname "$0")/lib.sh"

case_ "version"
run_k version; expect_rc 0
grep -qE '^kagari [0-9]+\.[0-9]+\.[0-9]+ \(libyaml [0-9.]+, jansson [0-9.]+\)$' "$T/out" || fail "version line: $(cat "$T/out")"
cp "$T/out" version.txt
run_k --version; expect_rc 0
cmp -s "$T/out" version.txt || fail "--version differs from version: $(cat "$T/out")"

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
