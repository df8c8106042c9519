#!/bin/bash
# Reports that cannot be written outrank the measured outcome (docs/contract.md:
# precedence 4, 6, 1, 0): standard output that fails, a --summary file over
# the file-size limit. The last line on stderr says why.
. "$(dirname "$0")/lib.sh"

cat > over.yaml <<YAML
version: "1"
name: over
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: b
    commands:
      c:
        command: ["$H", "sleep", "1"]
        budget: {latency: {max: "<= 1ns"}}
YAML
cat > ok.yaml <<YAML
version: "1"
name: ok
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: b
    commands:
      c: {command: ["$H", "sleep", "1"]}
YAML

case_ "over budget is exit 1 when the report is written"
run_k run --quiet over.yaml; expect_rc 1
expect_err "over budget"

case_ "a report to a full standard output is exit 4, over budget or not"
"$KAGARI" run --quiet over.yaml >/dev/full 2>"$T/err"; RC=$?
expect_rc 4
expect_err "standard output"
tail -n 1 "$T/err" | grep -q "could not be written\|could not write" ||
	fail "the last line does not explain exit 4: $(tail -n 1 "$T/err")"
"$KAGARI" run --quiet ok.yaml >/dev/full 2>"$T/err"; RC=$?
expect_rc 4
expect_err "cannot write the report to standard output: No space left on device"
last_err_has "a report could not be written"
"$KAGARI" run --quiet over.yaml --format json >/dev/full 2>"$T/err"; RC=$?
expect_rc 4
expect_err "cannot write the report to standard output: No space left on device"
last_err_has "a report could not be written"

case_ "a --summary file over the file-size limit is exit 4, not death by SIGXFSZ"
head -c 1000 /dev/zero | tr '\0' x > big.md
( ulimit -f 1; "$KAGARI" run --quiet ok.yaml --summary big.md >"$T/out" 2>"$T/err" ); RC=$?
expect_rc 4
expect_err "big.md"

case_ "a --summary symlink is refused"
echo kept > target.md && ln -s target.md link.md
run_k run --quiet ok.yaml --summary link.md; expect_rc 4
expect_err "link.md"
[ "$(cat target.md)" = kept ] || fail "kagari appended through a symlink"

finish
