#!/bin/bash
# `matrix:` on a benchmark (issue 15): {NAME: [values...]} expands each
# command into one per combination, named after the values, with ${NAME}
# replaced in the command, its env and its other strings; "$${" stays a
# literal; bad matrices are invalid suites (exit 2) naming file:line:col.
. "$(dirname "$0")/lib.sh"

cat > m.yaml <<YAML
version: "1"
name: mx
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: nap
    matrix: {ms: [1, 3], tag: [a, "b c"]}
    commands:
      s:
        command: [sh, -c, 'echo "\$T \$1" >> "$T/seen"; exec "$H" sleep "\$1"', x, "\${ms}"]
        env: {T: "tag=\${tag}"}
YAML

case_ "one command per combination, named after the values, variables replaced"
run_k run m.yaml --quiet --format json --output "$T/m.json"
expect_rc 0
"$PY" - "$T/m.json" <<'PYEOF' || fail "the matrix did not expand as expected"
import json, sys
r = json.load(open(sys.argv[1]))
cs = r["suites"][0]["benchmarks"][0]["commands"]
assert [c["name"] for c in cs] == ["s.ms-1.tag-a", "s.ms-1.tag-b_c", "s.ms-3.tag-a", "s.ms-3.tag-b_c"], [c["name"] for c in cs]
assert all(c["command"].endswith(" x " + n.split(".")[1][3:]) for c, n in zip(cs, [c["name"] for c in cs])), [c["command"] for c in cs]
assert all(c["head"]["count"] == 2 for c in cs)
PYEOF
for want in "tag=a 1" "tag=b c 1" "tag=a 3" "tag=b c 3"; do
	[ "$(grep -cx "$want" "$T/seen")" = 2 ] || fail "'$want' did not run twice: $(sort "$T/seen" | uniq -c)"
done
run_k list m.yaml
expect_rc 0
expect_out "s.ms-3.tag-b_c"

case_ "\$\${ stays literal, and a command without the variables is expanded too"
cat > lit.yaml <<YAML
version: "1"
name: lit
defaults: {warmup: 0, runs: 1}
benchmarks:
  - name: l
    matrix: {n: [1, 2]}
    commands:
      c: {command: [sh, -c, 'printf "%s\n" "\$1" >> "$T/lit"', x, "\$\${n}"]}
YAML
run_k run lit.yaml --quiet
expect_rc 0
[ "$(sort -u "$T/lit")" = '${n}' ] || fail "\$\${ was not kept literal: $(cat "$T/lit")"
[ "$(wc -l < "$T/lit")" = 2 ] || fail "not one command per value: $(cat "$T/lit")"

# bad NAME MATRIX WANT: the suite is invalid (exit 2) with WANT and a position
bad() {
	cat > "bad-$1.yaml" <<YAML
version: "1"
name: bad
benchmarks:
  - name: b
    matrix: $2
    commands:
      c: {command: [true, "\${n}"]}
YAML
	run_k validate "bad-$1.yaml"
	expect_rc 2
	expect_err "$3"
	grep -q "bad-$1.yaml:[0-9]*:[0-9]*: benchmarks\[0\]\.matrix" "$T/err" ||
		fail "no file:line:col naming benchmarks[0].matrix: $(cat "$T/err")"
}
case_ "bad matrices are invalid suites, with the position"
bad reserved '{root: [1]}' "'root' is a built-in variable"
bad empty '{n: []}' "non-empty list"
bad notlist '{n: 5}' "non-empty list"
bad dup '{n: [1, 1]}' "duplicate value '1'"
bad name '{1n: [1]}' "invalid variable name '1n'"
bad nested '{n: [[1]]}' "must be a value"
bad nomap '[1, 2]' "benchmarks[0].matrix"

case_ "a variable the matrix does not define is still an error"
cat > undef.yaml <<'YAML'
version: "1"
name: u
benchmarks:
  - name: b
    matrix: {n: [1]}
    commands:
      c: {command: [true, "${m}"]}
YAML
run_k validate undef.yaml
expect_rc 2
expect_err "undef.yaml:7:"

case_ "JSON records each command's matrix values; HTML plots metrics against the numeric axis"
"$PY" - "$T/m.json" <<'PYEOF' || fail "the commands lack their matrix values"
import json, sys
r = json.load(open(sys.argv[1]))
cs = r["suites"][0]["benchmarks"][0]["commands"]
assert [c["matrix"] for c in cs] == [{"ms": "1", "tag": "a"}, {"ms": "1", "tag": "b c"}, {"ms": "3", "tag": "a"}, {"ms": "3", "tag": "b c"}], [c.get("matrix") for c in cs]
PYEOF
run_k report "$T/m.json" --format html --output "$T/m.html"
expect_rc 0
grep -q 'nap: latency by ms (median)' "$T/m.html" || fail "no plot of latency by the numeric axis ms"
grep -q 'by tag (median)' "$T/m.html" && fail "a plot against the non-numeric axis tag"
# one line per value of the other axis: both labelled in the plot
"$PY" - "$T/m.html" <<'PYEOF' || fail "the latency-by-ms plot lacks a line per tag"
import re, sys
h = open(sys.argv[1]).read()
m = re.search(r'<svg class="plot"[^>]*>(?:(?!</svg>).)*nap: latency by ms \(median\)(?:(?!</svg>).)*</svg>', h, re.S)
assert m, "no svg"
svg = m.group(0)
assert "s tag=a" in svg and "s tag=b c" in svg, svg[:2000]
assert svg.count("<circle") >= 4, svg.count("<circle")
PYEOF

finish
