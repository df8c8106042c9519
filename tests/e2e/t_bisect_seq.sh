#!/bin/bash
# kagari bisect with a suite that leaves `runs` unset — the default, so
# each commit is compared in sequential rounds (docs/statistics.md): the
# planted first bad commit of a small history is found (allocation counts,
# exact, so the search is the same on any machine), and nothing is left in
# TMPDIR. A bisect folder a killed kagari left behind is pruned by the next
# bisect; one whose kagari still runs is not.
. "$(dirname "$0")/lib.sh"

git_sandbox

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
malloc_loop_program 1000
# No `runs`: sequential rounds. Latency is measured but not gated.
cat > kagari.yaml <<'YAML'
version: "1"
name: seq
build:
  command: [cc, -O1, -o, "${artifact}", prog.c]
defaults:
  warmup: 0
  metrics: {allocations: true, cpu: false}
  regression:
    latency: {max_percent: 50, gate: false}
    allocs: {max_percent: 5}
benchmarks:
  - name: m
    commands:
      prog: {command: ["${artifact}"]}
YAML
g add -A && g commit -qm c0
SHAS=("$(g rev-parse HEAD)")
# Six commits after the good one; the regression (+40 % allocations) comes
# in commit 4 and stays.
for i in $(seq 1 6); do
	n=1000
	[ "$i" -ge 4 ] && n=1400
	{ echo "#define N $n"; echo "/* commit $i */"; } > n.h
	g commit -qam "c$i"
	SHAS+=("$(g rev-parse HEAD)")
done

case_ "bisect with runs unset finds the planted first bad commit"
run_k bisect --good "${SHAS[0]}" --bad "${SHAS[6]}" --format json --seed 7
expect_rc 0
json_check "$T/out" "r['first_bad'] == '${SHAS[4]}'"
json_check "$T/out" 'abs(r["change_percent"] - 40) < 1e-9 and r["what"] == "seq/m/prog allocs"'
json_check "$T/out" "all((t['outcome'] == 'bad') == (t['sha'] in '${SHAS[*]:4}'.split()) for t in r['tested'])"
[ -z "$(ls -A "$TMPDIR")" ] || fail "temporary files left: $(ls -A "$TMPDIR")"

case_ "a killed bisect's folder is pruned by the next bisect, a live one's is kept"
# A folder as a bisect leaves it when killed: its owner file names a
# process that is gone (a finished subshell's pid)...
dead=$(bash -c 'echo $$')
mkdir -p "$TMPDIR/kagari-bisect-dead01/c001"
# (the first line is the one tmpdir_claim() writes: without it the folder
# is not kagari's and is never pruned)
printf 'kagari-tmpdir-owner v1\nkagari pid=%s start=1 host=%s\n' "$dead" "$(uname -n)" > "$TMPDIR/kagari-bisect-dead01/owner"
# ...and one of a process that still runs (this shell).
mkdir -p "$TMPDIR/kagari-bisect-live01"
printf 'kagari-tmpdir-owner v1\nkagari pid=%s start=0 host=%s\n' "$$" "$(uname -n)" > "$TMPDIR/kagari-bisect-live01/owner"
run_k bisect --good "${SHAS[3]}" --bad "${SHAS[4]}" --format json --seed 7
expect_rc 0
json_check "$T/out" "r['first_bad'] == '${SHAS[4]}'"
[ ! -e "$TMPDIR/kagari-bisect-dead01" ] || fail "the dead bisect's folder was not pruned"
[ -d "$TMPDIR/kagari-bisect-live01" ] || fail "the live bisect's folder was pruned"
rm -rf "$TMPDIR/kagari-bisect-live01"
[ -z "$(ls -A "$TMPDIR")" ] || fail "temporary files left: $(ls -A "$TMPDIR")"
finish
