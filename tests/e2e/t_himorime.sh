#!/bin/bash
# himorime's version "1" suites, unchanged: the loader's corpora through the
# CLI (exit codes and FILE:LINE:COL: field.path: message), paths whose
# variables expand per side at run time, and measuring exactly the metrics
# a suite lists (latency unless it asks for more).
. "$(dirname "$0")/lib.sh"
SUITES=${KAGARI_SOURCE_DIR:?}/tests/data/suites

case_ "every suite of the invalid corpus is rejected with exit 2 and its position"
n=0
for f in "$SUITES"/invalid/*.yaml; do
	name=$(basename "$f")
	cp "$f" "$name"
	if head -1 "$name" | grep -q '^# expect: '; then
		want=$(head -1 "$name" | sed 's/^# expect: //')
	else
		want=$(head -1 "${f%.yaml}.expect")
	fi
	run_k validate "$name"
	[ "$RC" -eq 2 ] || fail "$name: exit $RC, expected 2"
	case $want in
	[0-9]*) grep -qF -- "$name:$want" "$T/err" ||
			fail "$name: stderr lacks '$name:$want': $(head -3 "$T/err")" ;;
	*) # a problem of the whole file (empty, not YAML): no field path
		head -1 "$T/err" | grep -q "^$name:" && grep -qF -- "$want" "$T/err" ||
			fail "$name: stderr lacks '$want': $(head -3 "$T/err")" ;;
	esac
	n=$((n + 1))
done
[ "$n" -ge 80 ] || fail "only $n invalid suites"

case_ "every suite of the valid corpus is accepted"
for f in "$SUITES"/valid/*.yaml; do
	run_k validate "$f"
	[ "$RC" -eq 0 ] || fail "$(basename "$f"): exit $RC: $(head -3 "$T/err")"
done

printf 'line one\nline two\n' > in.txt
cat > paths.yaml <<'YAML'
version: "1"
name: paths
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: head-root stdin
    stdin: "${head_root}/in.txt"
    metrics:
      throughput:
        work: {file_size: "${root}/in.txt"}
    commands:
      same: {command: [cmp, -s, "-", in.txt]}
  - name: workdir stdin written by setup
    setup:
      - command: [cp, in.txt, "${workdir}/copy.txt"]
    stdin: {file: "${workdir}/copy.txt"}
    metrics:
      throughput:
        work: {file_size: "${workdir}/copy.txt"}
    commands:
      same: {command: [cmp, -s, "-", in.txt]}
YAML
case_ "stdin and file_size expand \${root}, \${head_root} and \${workdir} at run time"
run_k run --quiet paths.yaml --format json --output p.json; expect_rc 0
json_check p.json 'all(c["head"]["metrics"]["throughput"]["status"] == "ok" and c["head"]["metrics"]["throughput"]["stats"]["median"] > 0 for b in r["suites"][0]["benchmarks"] for c in b["commands"])'
json_check p.json 'r["summary"]["pass"] == 2'

# himorime's layout: a suite in a subfolder of its repository, its fixtures
# beside it. ${root} and ${head_root} are the suite's folder in the tree
# measured, so "${head_root}/testdata/x.txt" is bench/testdata/x.txt.
mkdir -p repo/bench/testdata repo/shared
git -C repo init -q
printf 'abc\n' > repo/bench/testdata/x.txt
printf 'abc\n' > repo/shared/x.txt
cat > repo/bench/kagari.yaml <<'YAML'
version: "1"
name: subfolder
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: beside the suite
    stdin: "${head_root}/testdata/x.txt"
    metrics:
      throughput:
        work: {file_size: "${root}/../shared/x.txt"}
    commands:
      same: {command: [cmp, -s, "-", testdata/x.txt]}
      root: {command: [test, -f, "${root}/kagari.yaml"]}
YAML
case_ "\${root} and \${head_root} are the suite's folder, as in himorime"
run_k run --quiet repo/bench/kagari.yaml --format json --output s.json; expect_rc 0
json_check s.json 'r["summary"]["pass"] == 2'
json_check s.json 'r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]["throughput"]["stats"]["median"] > 0'

cat > only-latency.yaml <<YAML
version: "1"
name: latency only
defaults:
  warmup: 0
  runs: 3
  regression:
    peak_rss: {max_percent: 1}
benchmarks:
  - name: sleep
    commands:
      s: {command: ["$H", "sleep", "5"]}
YAML
case_ "a suite that lists no metric measures, reports and gates latency only"
run_k run --quiet only-latency.yaml --format json --output l.json; expect_rc 0
json_check l.json 'sorted(r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]) == ["latency"]'
run_k run --quiet only-latency.yaml; expect_rc 0
grep -qE 'cpu_|peak_rss' "$T/out" && fail "the table shows a metric the suite did not ask for: $(cat "$T/out")"
expect_out "latency"

cat > listed.yaml <<YAML
version: "1"
name: listed
defaults: {warmup: 0, runs: 3, metrics: {cpu: true, memory: true}}
benchmarks:
  - name: alloc
    commands:
      a: {command: ["$H", "alloc", "16"]}
YAML
case_ "listed metrics are measured and reported"
run_k run --quiet listed.yaml --format json --output m.json; expect_rc 0
json_check m.json 'all(k in r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"] for k in ["latency","cpu_user","cpu_system","cpu_total","cpu_utilization","peak_rss"])'

case_ "kagari init lists the metrics it measures beyond latency"
run_k init started.yaml; expect_rc 0
grep -q '^    cpu: true' started.yaml || fail "init does not list cpu"
grep -q '^    memory: true' started.yaml || fail "init does not list memory"
run_k run --quiet --runs 2 --warmup 0 started.yaml --format json --output i.json; expect_rc 0
json_check i.json '"peak_rss" in r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]'

finish
