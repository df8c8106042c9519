#!/bin/bash
# The bad-input matrix: malformed suites and command-line misuse as a user
# meets them through the binary. Each case asserts the contract's exit code,
# the key part of the message (FILE:LINE:COL and the field path), and that a
# report written earlier to the same --output is left byte for byte intact.
# tests/data/suites/invalid/ checks the loader's exact messages; this file
# checks what reaches the user. It also checks that kagari's sources never
# use a shell behind the user's back (no system() or popen()).
. "$(dirname "$0")/lib.sh"

echo '{"earlier": true}' >report.json
cp report.json keep.json

untouched() {
	cmp -s report.json keep.json || fail "the earlier report.json was modified"
}

# bad NAME RC FRAGMENT... : the suite text on stdin, saved as NAME.yaml and
# run with `kagari run --quiet NAME.yaml --format json --output report.json`.
bad() {
	local name=$1 rc=$2
	shift 2
	cat >"$name.yaml"
	case_ "suite: $name"
	run_k run --quiet "$name.yaml" --format json --output report.json
	expect_rc "$rc"
	for f in "$@"; do expect_err "$f"; done
	untouched
}

# bad_file NAME RC FRAGMENT... : like bad, for a suite file prepared already.
bad_file() {
	local name=$1 rc=$2
	shift 2
	case_ "suite: $name"
	run_k run --quiet "$name" --format json --output report.json
	expect_rc "$rc"
	for f in "$@"; do expect_err "$f"; done
	untouched
}

# usage NAME RC FRAGMENT -- ARGS... : a command-line misuse.
usage() {
	local name=$1 rc=$2 frag=$3
	shift 4
	case_ "cli: $name"
	run_k "$@"
	expect_rc "$rc"
	expect_err "$frag"
	untouched
}

cat >ok.yaml <<'YAML'
version: "1"
name: ok
defaults: {runs: 1, warmup: 0}
benchmarks:
  - name: b
    commands:
      c: {command: ["true"]}
YAML

# ---- unknown and duplicate keys -------------------------------------------

bad unknown_top_key 2 "unknown_top_key.yaml:2:1:" "nmae" "did you mean 'name'?" <<'YAML'
version: "1"
nmae: x
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
YAML

bad unknown_defaults_key 2 "unknown_defaults_key.yaml:4:3:" "defaults.warmpu" "did you mean 'warmup'?" <<'YAML'
version: "1"
name: x
defaults:
  warmpu: 1
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
YAML

bad unknown_bench_key 2 "unknown_bench_key.yaml:5:5:" "benchmarks[0].comands" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    comands: {c: {command: ["true"]}}
YAML

bad unknown_command_key 2 "unknown_command_key.yaml:7:9:" "benchmarks[0].commands.c.shel" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands:
      c:
        shel: true
        command: "true"
YAML

bad unknown_metrics_key 2 "unknown_metrics_key.yaml:3:22:" "defaults.metrics.memroy" <<'YAML'
version: "1"
name: x
defaults: {metrics: {memroy: true}}
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
YAML

bad duplicate_top_key 2 "duplicate_top_key.yaml:3:1:" "duplicate key 'name'" <<'YAML'
version: "1"
name: x
name: y
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
YAML

bad duplicate_command_key 2 "duplicate_command_key.yaml:8:9:" "duplicate key 'command'" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands:
      c:
        command: ["true"]
        command: ["false"]
YAML

bad duplicate_benchmark 2 "duplicate_benchmark.yaml:6:11:" "benchmarks[1].name" "duplicate" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
  - name: b
    commands: {c: {command: ["true"]}}
YAML

# ---- wrong types at every level --------------------------------------------

bad top_is_list 2 "top_is_list.yaml:1:1:" "mapping" <<'YAML'
- version: "1"
YAML

bad version_number 2 "version_number.yaml:1:10:" "version" <<'YAML'
version: 2
name: x
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
YAML

bad name_list 2 "name_list.yaml:2:7:" "name" <<'YAML'
version: "1"
name: [a, b]
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
YAML

bad benchmarks_map 2 "benchmarks_map.yaml:3:13:" "benchmarks" <<'YAML'
version: "1"
name: x
benchmarks: {b: 1}
YAML

bad defaults_runs_string 2 "defaults_runs_string.yaml:3:18:" "defaults.runs" <<'YAML'
version: "1"
name: x
defaults: {runs: many}
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
YAML

bad commands_list 2 "commands_list.yaml:5:15:" "benchmarks[0].commands" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands: [true]
YAML

bad command_number 2 "command_number.yaml:5:29:" "benchmarks[0].commands.c.command" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands: {c: {command: 42}}
YAML

bad env_list 2 "env_list.yaml:5:10:" "benchmarks[0].env" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    env: [A=1]
    commands: {c: {command: ["true"]}}
YAML

bad tags_number 2 "tags_number.yaml:5:11:" "benchmarks[0].tags" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    tags: 3
    commands: {c: {command: ["true"]}}
YAML

bad gate_number 2 "gate_number.yaml:3:41:" "defaults.regression.latency.gate" <<'YAML'
version: "1"
name: x
defaults: {regression: {latency: {gate: 5}}}
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
YAML

bad outputs_map 2 "outputs_map.yaml:6:19:" "report.outputs" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
report: {outputs: {format: json}}
YAML

bad string_without_shell 2 "string_without_shell.yaml:5:29:" "shell: true" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands: {c: {command: "true | cat"}}
YAML

# ---- encoding and YAML structure ------------------------------------------

printf 'version: "1"\nname: x\nbenchmarks:\n\t- name: b\n' >tabs.yaml
bad_file tabs.yaml 2 "tabs.yaml:4:1:" "tab"

printf '\xef\xbb\xbfversion: "1"\nname: x\n' >bom.yaml
bad_file bom.yaml 2 "bom.yaml:1:1:" "BOM"

printf 'version: "1"\nname: "x\xff"\nbenchmarks: []\n' >utf8.yaml
bad_file utf8.yaml 2 "utf8.yaml:2:9:" "invalid UTF-8"

printf 'version: "1"\nname: "x\001"\n' >control.yaml
bad_file control.yaml 2 "control.yaml:2:"

cp ok.yaml second.yaml
printf -- '---\nversion: "1"\n' >>second.yaml
bad_file second.yaml 2 "second.yaml:8:1:" "second YAML document"

bad alias_bomb 2 "alias_bomb.yaml:" "alias" <<'YAML'
version: "1"
name: x
a: &a [x, x, x, x, x, x, x, x, x, x]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
benchmarks: *e
YAML

"$PY" -c "
import sys
s = open('ok.yaml').read() + 'description: \"' + 'a' * (2 * 1024 * 1024) + '\"\n'
open('huge.yaml', 'w').write(s)"
bad_file huge.yaml 2 "huge.yaml: the suite is larger than 1 MiB"

: >empty.yaml
bad_file empty.yaml 2 "empty.yaml: the suite is empty"

bad syntax_error 2 "syntax_error.yaml:4:1:" "invalid YAML" <<'YAML'
version: "1"
name: x
benchmarks: [unclosed
YAML

bad quoted_newline 2 "quoted_newline.yaml:5:14:" "benchmarks[0].timeout" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    timeout: "1\nzz"
    commands: {c: {command: ["true"]}}
YAML
# every line of a message is a FILE:LINE:COL line (no raw newline from the file)
if grep -v -e '^quoted_newline.yaml:' -e '^kagari: ' "$T/err" | grep -q .; then
	fail "a message spans several lines: $(cat "$T/err")"
fi

# ---- files that are not suites ---------------------------------------------

mkdir folder.yaml
bad_file folder.yaml 2 "folder.yaml" "no suite in this directory"

ln -s loop-a.yaml loop-b.yaml
ln -s loop-b.yaml loop-a.yaml
bad_file loop-a.yaml 2 "loop-a.yaml" "symbolic links"

case_ "suite: missing file"
run_k validate no-such-suite.yaml
expect_rc 2
expect_err "no-such-suite.yaml"

# ---- values: units, ranges -------------------------------------------------

bad budget_size_for_latency 2 "budget_size_for_latency.yaml:7:33:" "latency" "size" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands:
      c:
        budget: {latency: {p95: "<= 64MiB"}}
        command: ["true"]
YAML

bad budget_duration_for_rss 2 "budget_duration_for_rss.yaml:7:34:" "peak_rss" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands:
      c:
        budget: {peak_rss: {max: "<= 300ms"}}
        command: ["true"]
YAML

bad budget_bare_number 2 "budget_bare_number.yaml:7:33:" "latency" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands:
      c:
        budget: {latency: {p95: "<= 300"}}
        command: ["true"]
YAML

bad budget_wrong_direction 2 "budget_wrong_direction.yaml:7:33:" "lower is better" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands:
      c:
        budget: {latency: {p95: ">= 1s"}}
        command: ["true"]
YAML

bad budget_unknown_metric 2 "budget_unknown_metric.yaml:7:18:" "latnecy" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands:
      c:
        budget: {latnecy: {p95: "<= 1s"}}
        command: ["true"]
YAML

bad percent_zero 2 "percent_zero.yaml:3:48:" "max_percent" <<'YAML'
version: "1"
name: x
defaults: {regression: {latency: {max_percent: 0}}}
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
YAML

bad percent_too_big 2 "percent_too_big.yaml:3:50:" "max_percent" <<'YAML'
version: "1"
name: x
defaults: {regression: {cpu_total: {max_percent: "1001%"}}}
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
YAML

bad confidence_range 2 "confidence_range.yaml:3:37:" "confidence" <<'YAML'
version: "1"
name: x
defaults: {regression: {confidence: 1.5}}
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
YAML

bad duration_too_long 2 "duration_too_long.yaml:3:21:" "defaults.timeout" "24h" <<'YAML'
version: "1"
name: x
defaults: {timeout: 25h}
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
YAML

bad duration_negative 2 "duration_negative.yaml:3:22:" "defaults.min_time" "negative" <<'YAML'
version: "1"
name: x
defaults: {min_time: -1s}
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
YAML

bad duration_bare 2 "duration_bare.yaml:3:21:" "defaults.timeout" "unit" <<'YAML'
version: "1"
name: x
defaults: {timeout: 5}
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
YAML

bad runs_negative 2 "runs_negative.yaml:3:18:" "defaults.runs" <<'YAML'
version: "1"
name: x
defaults: {runs: -3}
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
YAML

bad min_gt_max 2 "min_gt_max.yaml:3:36:" "defaults.max_runs" "min_runs (50) is larger than max_runs (5)" <<'YAML'
version: "1"
name: x
defaults: {min_runs: 50, max_runs: 5}
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
YAML

bad exit_code_range 2 "exit_code_range.yaml:5:21:" "exit_codes[1]" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    exit_codes: [0, 300]
    commands: {c: {command: ["true"]}}
YAML

# ---- variables and paths ---------------------------------------------------

bad unknown_variable 2 "unknown_variable.yaml:5:35:" "'\${rooot}'" "did you mean '\${root}'?" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands: {c: {command: [ls, "${rooot}"]}}
YAML

bad artifact_without_build 2 "artifact_without_build.yaml:5:31:" "needs a top-level 'build'" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands: {c: {command: ["${artifact}"]}}
YAML

bad workdir_in_build 2 "workdir_in_build.yaml:3:24:" "build.command" "not available" <<'YAML'
version: "1"
name: x
build: {command: [cc, "${workdir}/x.c"]}
benchmarks:
  - name: b
    commands: {c: {command: ["${artifact}"]}}
YAML

bad variable_in_quotes 2 "variable_in_quotes.yaml:" "inside quotes" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands:
      c: {shell: true, command: "echo '${root}'"}
YAML

bad variable_after_backslash 2 "variable_after_backslash.yaml:" "backslash" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands:
      c: {shell: true, command: "echo \\${env:HOME}"}
YAML

bad cwd_leaves_repo 2 "cwd_leaves_repo.yaml:5:10:" "benchmarks[0].cwd" "leaves the repository" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    cwd: ../../../../../../../../../../../../../tmp
    commands: {c: {command: ["true"]}}
YAML

bad cwd_absolute 2 "cwd_absolute.yaml:5:10:" "benchmarks[0].cwd" "absolute" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    cwd: /tmp
    commands: {c: {command: ["true"]}}
YAML

bad stdout_escapes 2 "stdout_escapes.yaml:7:17:" "stdout" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands:
      c:
        stdout: ../out.txt
        command: ["true"]
YAML

# ---- report destinations ---------------------------------------------------

# As in himorime, two outputs naming one file are a load error (exit 2).
bad two_outputs_same_path 2 "two_outputs_same_path.yaml:7:27: report.outputs[1].path:" "conflicts with report.outputs[0]" <<'YAML'
version: "1"
name: x
defaults: {runs: 1, warmup: 0}
report:
  outputs:
    - {format: json, path: r.json}
    - {format: csv, path: ./r.json}
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
YAML
[ -e r.json ] && fail "a report was written despite the conflict"

cat >outputs_one.yaml <<'YAML'
version: "1"
name: x
defaults: {runs: 1, warmup: 0}
report:
  outputs:
    - {format: json, path: report.json}
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
YAML
case_ "suite output and --output name the same file"
run_k run --quiet outputs_one.yaml --format csv --output report.json
expect_rc 3
expect_err "two reports would be written to"
untouched
cp keep.json report.json # keep later cases independent of this one

# Spellings the loader cannot see through (a link to the suite's folder)
# are caught before anything is written.
ln -s . same
cat >outputs_dotdot.yaml <<'YAML'
version: "1"
name: x
defaults: {runs: 1, warmup: 0}
report:
  outputs:
    - {format: json, path: report.json}
    - {format: csv, path: same/report.json}
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
YAML
case_ "two suite outputs spelling one file differently"
run_k run --quiet outputs_dotdot.yaml
expect_rc 3
expect_err "two reports would be written to"
untouched
cp keep.json report.json # keep later cases independent of this one

echo 'not a report' >link-target.txt
ln -s link-target.txt link.json
case_ "report output that is a symbolic link"
run_k run --quiet ok.yaml --format json --output link.json
expect_rc 4
expect_err "refusing to write 'link.json': it is a symbolic link"
[ "$(cat link-target.txt)" = "not a report" ] || fail "the report followed the link"
[ -L link.json ] || fail "the link was replaced"
ls link.json.* >/dev/null 2>&1 && fail "a temporary file was left behind"

bad output_format_unknown 2 "output_format_unknown.yaml:8:16:" "report.outputs[0].format" "did you mean 'json'?" <<'YAML'
version: "1"
name: x
benchmarks:
  - name: b
    commands: {c: {command: ["true"]}}
report:
  outputs:
    - {format: jsn, path: out.json}
YAML

# ---- command-line misuse ---------------------------------------------------

usage unknown_flag 3 "unknown option '--bogus'" -- run ok.yaml --bogus
usage missing_value 3 "'--runs' needs a value" -- run ok.yaml --runs
usage runs_negative 3 "invalid value '-1' for '--runs'" -- run ok.yaml --runs -1
usage runs_suffix 3 "invalid value '1x' for '--runs'" -- run ok.yaml --runs 1x
usage seed_abc 3 "invalid value 'abc' for '--seed'" -- run ok.yaml --seed abc
usage seed_overflow 3 "for '--seed'" -- run ok.yaml --seed 99999999999999999999999
usage format_bogus 3 "invalid value 'bogus' for '--format'" -- run ok.yaml --format bogus --output report.json
usage warmup_x 3 "invalid value 'x' for '--warmup'" -- run ok.yaml --warmup x
usage compare_without_against 3 "--against" -- compare ok.yaml
usage unknown_command 3 "unknown command 'frobnicate'" -- frobnicate
usage filter_selects_nothing 3 "no benchmark matches" -- run ok.yaml --filter zzz-nothing --output report.json
usage filter_bad_regex 3 "invalid --filter" -- run ok.yaml --filter '(' --output report.json
usage output_missing_value 3 "'--output' needs a value" -- run ok.yaml --output
usage path_after_dashdash 2 "--runs" -- run ok.yaml -- --runs

case_ "cli: a report that cannot be written leaves exit 4 and no file"
run_k run --quiet ok.yaml --format json --output no-such-dir/r.json
expect_rc 4
expect_err "no-such-dir/r.json"
[ -e no-such-dir ] && fail "kagari created the missing folder"

# ---- no shell behind the user's back ---------------------------------------

case_ "source: no system() or popen() in kagari"
if [ -n "${KAGARI_SOURCE_DIR:-}" ] && [ -d "$KAGARI_SOURCE_DIR/src" ]; then
	hits=$(grep -rn 'system(\|popen(' "$KAGARI_SOURCE_DIR/src" | grep -v -e '^[^:]*:[0-9]*:\s*/\?\*' || true)
	[ -z "$hits" ] || fail "system()/popen() in src/: $hits"
else
	fail "KAGARI_SOURCE_DIR is not set"
fi

finish
