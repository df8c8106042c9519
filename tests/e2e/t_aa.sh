#!/bin/bash
# kagari aa (issue 15): N A/A compares of the working tree against itself.
# Structure and direction only: one recommendation per command and gated
# metric, min_tolerance_percent from the documented list (or null), false
# verdicts per tolerance present and never more at a wider tolerance; the
# suite is built once per side; the HTML holds the A/A scatter; usage errors exit 3.
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/work" "$T/tmp" && cd "$T/work" || exit 1
export TMPDIR="$T/tmp"

cat > kagari.yaml <<YAML
version: "1"
name: aa
build:
  command: [sh, -c, 'echo built >> "\$1.count"; cp "\$2" "\$3"', sh, "$T/builds", "$H", "\${artifact}"]
defaults:
  warmup: 0
  runs: 6
  metrics: {cpu: true}
  regression:
    latency: {max_percent: 10}
    cpu_total: {max_percent: 10}
benchmarks:
  - name: naps
    commands:
      short: {command: ["\${artifact}", sleep, "2"]}
      busy: {command: ["$H", work, "200000"]}
YAML

case_ "--repeat 3: JSON recommendations per command and gated metric"
run_k aa --repeat 3 --quiet --format json --output "$T/aa.json"
expect_rc 0
json_check "$T/aa.json" "r['mode'] == 'aa' and r['repeat'] == 3"
json_check "$T/aa.json" "sorted((x['command'], x['metric']) for x in r['recommendations']) == [('busy', 'cpu_total'), ('busy', 'latency'), ('short', 'cpu_total'), ('short', 'latency')]"
json_check "$T/aa.json" "all(x['benchmark'] == 'naps' and x['compares'] == 3 and len(x['change_percent']['values']) == 3 for x in r['recommendations'])"
json_check "$T/aa.json" "all(x['min_tolerance_percent'] is None or x['min_tolerance_percent'] in (1, 2, 3, 5, 10, 15, 20, 30, 50) for x in r['recommendations'])"
json_check "$T/aa.json" "all([f['tolerance_percent'] for f in x['false_verdicts']][:5] == [1, 2, 3, 5, 10] for x in r['recommendations'])"
json_check "$T/aa.json" "all(all(a['count'] >= b['count'] for a, b in zip(x['false_verdicts'], x['false_verdicts'][1:])) for x in r['recommendations'])"
json_check "$T/aa.json" "all(0 <= f['count'] <= 3 for x in r['recommendations'] for f in x['false_verdicts'])"
json_check "$T/aa.json" "all(x['change_percent']['p5'] <= x['change_percent']['median'] <= x['change_percent']['p95'] for x in r['recommendations'])"
# the rule: the recommended T has no false verdict and p95 |change| < T/2
json_check "$T/aa.json" "all(x['min_tolerance_percent'] is None or ([f['count'] for f in x['false_verdicts'] if f['tolerance_percent'] == x['min_tolerance_percent']] == [0] and x['change_percent']['p95_abs'] < x['min_tolerance_percent'] / 2) for x in r['recommendations'])"
# Once per side, as compare builds a base and a head (outside a
# repository both in the working tree).
[ "$(wc -l < "$T/builds.count")" = 2 ] || fail "the suite was built $(wc -l < "$T/builds.count") times for 3 A/A compares, expected once per side"
[ -z "$(ls -A "$T/tmp")" ] || fail "temporary folders left: $(ls -A "$T/tmp")"

case_ "table (default) and --filter"
run_k aa --repeat 2 --quiet --runs 3 --filter naps
expect_rc 0
expect_out "naps/short"
expect_out "resolves"

case_ "--format html draws one A/A scatter per command and metric"
run_k aa --repeat 2 --runs 3 --quiet --format html --output "$T/aa.html"
expect_rc 0
[ "$(grep -o '<svg class="plot"' "$T/aa.html" | wc -l)" = 4 ] || fail "expected 4 plots in the HTML"
grep -q 'naps/short latency: A/A change per compare' "$T/aa.html" || fail "no scatter titled for naps/short latency"
grep -q '<script' "$T/aa.html" && fail "the HTML has a script"

case_ "usage errors exit 3, an invalid suite 2, a failing command 4"
run_k aa --repeat 1 --quiet
expect_rc 3
expect_err "--repeat must be at least 2"
run_k aa --format csv
expect_rc 3
echo "version: [" > bad.kagari.yaml
run_k aa bad.kagari.yaml --repeat 2
expect_rc 2
cat > fail.kagari.yaml <<YAML
version: "1"
name: f
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: b
    commands:
      bad: {command: ["$H", exit, "3"]}
YAML
run_k aa fail.kagari.yaml --repeat 2 --quiet
expect_rc 4
expect_err "command 'bad'"

case_ "--help lists the options"
run_k aa --help
expect_rc 0
expect_out "--repeat"

finish
