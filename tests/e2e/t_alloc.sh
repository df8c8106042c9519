#!/bin/bash
# Allocation counts through the LD_PRELOAD shim (build/libkagari-alloc.so),
# for real: the shim against glibc's own libmemusage.so as an oracle on the
# same program, exact deltas (+1000 mallocs in the head of a `kagari
# compare` is exactly +1000 `allocs`), threads and fork in the measured
# program, budgets on allocation metrics, and programs the shim cannot see
# (a static binary, _exit) reported `unsupported` with the reason, never 0.
. "$(dirname "$0")/lib.sh"

MEMUSAGE=/usr/lib/x86_64-linux-gnu/libmemusage.so

# allocs_of FILE COMMAND-INDEX METRIC: the median of a metric in a report.
stat_of() {
	"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); m=r["suites"][0]["benchmarks"][0]["commands"][int(sys.argv[2])]["head"]["metrics"][sys.argv[3]]; print(int(m["stats"]["median"]) if m["status"] == "ok" else m["status"])' "$@"
}

cat > a.yaml <<YAML
version: "1"
name: alloc
defaults:
  warmup: 0
  runs: 3
  metrics: {allocations: true, cpu: false}
benchmarks:
  - name: b
    commands:
      plain: {command: ["$H", "mallocs", "700", "alloc", "1"]}
      threads: {command: ["$H", "threads", "3"]}
      threads-fork: {command: ["$H", "threads", "3", "fork-mallocs", "200"]}
      budgeted:
        command: ["$H", "mallocs", "1000"]
        budget: {allocs: {max: "<= 2000"}, peak_heap: {max: "<= 1KiB"}}
YAML

case_ "allocation metrics are measured, exactly and with units"
run_k run a.yaml --format json --output "$T/a.json" --quiet
expect_rc 0
json_check "$T/a.json" 'all(c["head"]["metrics"][m]["status"] == "ok" for c in r["suites"][0]["benchmarks"][0]["commands"] for m in ("allocs", "alloc_bytes", "peak_heap"))'
json_check "$T/a.json" '[r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"][m]["unit"] for m in ("allocs", "alloc_bytes", "peak_heap")] == ["count", "bytes", "bytes"]'
json_check "$T/a.json" 'all(len(c["head"]["metrics"]["allocs"]["samples"]) == 3 for c in r["suites"][0]["benchmarks"][0]["commands"])'
json_check "$T/a.json" 'r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]["allocs"]["stats"]["stddev"] == 0'

case_ "the shim agrees with glibc's libmemusage.so on the same program"
if [ -r "$MEMUSAGE" ]; then
	for spec in "0 mallocs 700 alloc 1" "1 threads 3"; do
		set -- $spec
		idx=$1
		shift
		LD_PRELOAD=$MEMUSAGE "$H" "$@" 2>"$T/mu" >/dev/null
		read -r calls total <<<"$("$PY" - "$T/mu" <<'PY'
import re, sys
t = re.sub(r"\x1b\[[0-9;]*m", "", open(sys.argv[1]).read())
calls = sum(int(m.group(1)) for m in re.finditer(r"^\s*(?:malloc|calloc|realloc)\|\s+(\d+)", t, re.M))
total = int(re.search(r"heap total: (\d+)", t).group(1))
print(calls, total)
PY
)"
		ours=$(stat_of "$T/a.json" "$idx" allocs)
		bytes=$(stat_of "$T/a.json" "$idx" alloc_bytes)
		echo "oracle '$*': libmemusage calls $calls, heap total $total; kagari allocs $ours, alloc_bytes $bytes"
		[ "$ours" = "$calls" ] || fail "'$*': allocs $ours, libmemusage counted $calls calls"
		# Threads: glibc sizes each thread's TLS vector by the number of
		# loaded TLS modules, which differs by 16 bytes between the two
		# preloaded libraries; everything else must match.
		diff=$((total - bytes))
		if [ "$1" = threads ]; then
			[ "$diff" -ge 0 ] && [ "$diff" -le $((16 * $2)) ] ||
				fail "'$*': alloc_bytes $bytes, libmemusage heap total $total"
		else
			[ "$diff" -eq 0 ] || fail "'$*': alloc_bytes $bytes, libmemusage heap total $total"
		fi
	done
else
	skip_part "glibc's $MEMUSAGE not found (another architecture?)"
fi

case_ "threads and fork: the forked child's 200 mallocs are added exactly"
t3=$(stat_of "$T/a.json" 1 allocs)
tf=$(stat_of "$T/a.json" 2 allocs)
[ "$t3" -ge 3000 ] || fail "threads 3: allocs $t3 < 3000"
[ $((tf - t3)) -eq 200 ] || fail "fork-mallocs 200 added $((tf - t3)) allocs"
b3=$(stat_of "$T/a.json" 1 alloc_bytes)
bf=$(stat_of "$T/a.json" 2 alloc_bytes)
[ $((bf - b3)) -eq 12800 ] || fail "fork-mallocs 200 added $((bf - b3)) bytes, not 12800"

case_ "budgets on allocation metrics"
json_check "$T/a.json" '[b["status"] for b in r["suites"][0]["benchmarks"][0]["commands"][3]["budgets"]] == ["pass", "pass"]'
sed -i 's/<= 2000/<= 999/' a.yaml
run_k run a.yaml --filter b --format json --output "$T/b.json" --quiet
expect_rc 1
json_check "$T/b.json" 'r["suites"][0]["benchmarks"][0]["commands"][3]["result"] == "over_budget"'
json_check "$T/b.json" 'r["suites"][0]["benchmarks"][0]["commands"][3]["budgets"][0]["actual"] == 1000'

case_ "a static binary and _exit: unsupported with the reason, exit 6 unless skip"
printf '#include <stdlib.h>\nint main(void){for(int i=0;i<100;i++)free(malloc(10));return 0;}\n' > st.c
if cc -static -o "$T/static" st.c 2>/dev/null; then
	cat > s.yaml <<YAML
version: "1"
name: st
defaults: {warmup: 0, runs: 2, metrics: {allocations: true}}
benchmarks:
  - name: b
    commands:
      static: {command: ["$T/static"]}
      quick: {command: ["$H", "mallocs", "10", "_exit", "0"]}
YAML
	run_k run s.yaml --format json --output "$T/s.json" --quiet
	expect_rc 6
	json_check "$T/s.json" 'all(c["head"]["metrics"]["allocs"]["status"] == "unsupported" for c in r["suites"][0]["benchmarks"][0]["commands"])'
	json_check "$T/s.json" 'all("static binary" in c["head"]["metrics"]["allocs"]["reason"] for c in r["suites"][0]["benchmarks"][0]["commands"])'
	json_check "$T/s.json" 'all(c["head"]["metrics"]["allocs"].get("samples") in (None, []) for c in r["suites"][0]["benchmarks"][0]["commands"])'
	sed -i 's/allocations: true}/allocations: true, unsupported: skip}/' s.yaml
	run_k run s.yaml --format json --output "$T/s2.json" --quiet
	expect_rc 0
	json_check "$T/s2.json" 'r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]["allocs"]["status"] == "unsupported"'
else
	skip_part "cc -static failed: no libc.a (Debian package libc6-dev, which scripts/deps.sh installs)" libc6-dev
fi

case_ "exact deltas: a head with 1000 more mallocs shows exactly +1000 allocs"
git_sandbox
R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
malloc_loop_project delta 10
g add -A && g commit -qm base
run_k compare --against HEAD --format json --output "$T/aa.json" --quiet --seed 3
expect_rc 0
json_check "$T/aa.json" 'r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["allocs"]["verdict"] == "pass"'
echo '#define N 3000' > n.h
run_k compare --against HEAD --format json --output "$T/d.json" --quiet --seed 4
expect_rc 1
json_check "$T/d.json" 'r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["allocs"]["verdict"] == "regression"'
json_check "$T/d.json" 'r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["allocs"]["head"] - r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["allocs"]["base"] == 1000'
json_check "$T/d.json" '(lambda c: c["head"]["metrics"]["alloc_bytes"]["stats"]["median"] - c["base"]["metrics"]["alloc_bytes"]["stats"]["median"])(r["suites"][0]["benchmarks"][0]["commands"][0]) == 48000'
"$PY" -c 'import json,sys; c=json.load(open(sys.argv[1]))["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["allocs"]; print("delta: allocs base %d head %d change %.1f%% verdict %s (%s)" % (c["base"], c["head"], c["change_percent"], c["verdict"], c["reason"]))' "$T/d.json"

finish
