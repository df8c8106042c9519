#!/bin/bash
# Where reports go (issue 10): an output that is a device or a FIFO is
# written in place, never replaced; a directory, a socket or a block device
# is refused before anything is measured; an output that is one of the run's
# inputs (suite file, stdin file, saved report) is refused; a --summary
# append that fails leaves the file as it was; rewriting a report keeps its
# mode and owner; names cannot @mention people or link #123 issues in the
# Markdown kagari writes for GitHub; the known limits are documented.
. "$(dirname "$0")/lib.sh"
SRC=${KAGARI_SOURCE_DIR:?}

cat > ok.yaml <<YAML
version: "1"
name: ok
defaults: {warmup: 0, runs: 2}
benchmarks:
  - name: b
    commands:
      c: {command: ["$H", "sleep", "1"]}
YAML
# A suite whose command leaves a mark, to show that nothing was measured.
cat > mark.yaml <<YAML
version: "1"
name: mark
defaults: {warmup: 0, runs: 1}
benchmarks:
  - name: b
    commands:
      c: {command: [sh, -c, "touch '$T/ran'"]}
YAML
"$KAGARI" run --quiet ok.yaml --format json --output saved.json 2>"$T/err" ||
	fail "making saved.json failed: $(cat "$T/err")"

# no_tmp_left: no temporary file of an atomic write is left in $T.
no_tmp_left() {
	ls "$T" | grep -q kagari-tmp && fail "a temporary file was left: $(ls "$T" | grep kagari-tmp)"
}

# ---- 1. outputs that are not regular files ------------------------------

if [ "$(id -u)" = 0 ]; then
	# Our own device nodes, in our own folder: never the system's /dev/null.
	mknod "$T/devnull" c 1 3 && mknod "$T/devfull" c 1 7 ||
		fail "mknod failed"
	case_ "--output onto a character device writes to it and keeps the device"
	run_k run --quiet ok.yaml --format json --output devnull; expect_rc 0
	[ -c devnull ] || fail "devnull is no longer a character device: $(ls -l devnull)"
	no_tmp_left

	case_ "report --output onto a character device keeps the device"
	run_k report saved.json --output devnull; expect_rc 0
	[ -c devnull ] || fail "devnull is no longer a character device: $(ls -l devnull)"

	case_ "report.outputs onto a character device keeps the device"
	cat > devout.yaml <<YAML
version: "1"
name: devout
defaults: {warmup: 0, runs: 1}
report: {outputs: [{format: json, path: devnull}, {format: markdown, path: devnull2}]}
benchmarks:
  - name: b
    commands:
      c: {command: ["$H", "sleep", "1"]}
YAML
	ln "$T/devnull" "$T/devnull2" 2>/dev/null || mknod "$T/devnull2" c 1 3
	run_k run --quiet devout.yaml; expect_rc 0
	[ -c devnull ] && [ -c devnull2 ] || fail "a device was replaced: $(ls -l devnull devnull2)"

	case_ "--summary onto a character device keeps the device"
	run_k run --quiet ok.yaml --summary devnull; expect_rc 0
	[ -c devnull ] || fail "devnull is no longer a character device"

	case_ "a device that refuses the write (full) is exit 4 and stays a device"
	run_k run --quiet ok.yaml --format json --output devfull; expect_rc 4
	expect_err "devfull"
	expect_err "No space left on device"
	[ -c devfull ] || fail "devfull is no longer a character device: $(ls -l devfull)"
	no_tmp_left
else
	echo "note: skipping the character-device cases: mknod needs root (running as uid $(id -u))"
fi

case_ "--output onto a FIFO with a reader: the reader gets the report, the FIFO stays"
mkfifo fifo1
# (A reader of a FIFO that was replaced would wait forever: timeout.)
timeout 120 cat fifo1 > got.json &
reader=$!
wait_until 20 fifo_has_reader fifo1
run_k run --quiet ok.yaml --format json --output fifo1; expect_rc 0
[ -p fifo1 ] || { fail "fifo1 is no longer a FIFO: $(ls -l fifo1)"; kill "$reader"; }
wait "$reader"
json_check got.json 'r["summary"]["exit_code"] == 0'
no_tmp_left

case_ "--summary onto a FIFO with a reader"
timeout 120 cat fifo1 > got.md &
reader=$!
wait_until 20 fifo_has_reader fifo1
run_k run --quiet ok.yaml --summary fifo1; expect_rc 0
[ -p fifo1 ] || { fail "fifo1 is no longer a FIFO"; kill "$reader"; }
wait "$reader"
grep -q 'kagari:begin' got.md || fail "the reader got no summary: $(head -c 300 got.md)"

case_ "--output onto a FIFO nobody reads fails at once, with the reason"
mkfifo fifo2
timeout 120 "$KAGARI" run --quiet ok.yaml --output fifo2 >"$T/out" 2>"$T/err"; RC=$?
[ "$RC" = 124 ] && fail "kagari hung on a FIFO nobody reads"
expect_rc 4
expect_err "fifo2"
expect_err "nothing has it open for reading"
[ -p fifo2 ] || fail "fifo2 is no longer a FIFO"
timeout 120 "$KAGARI" run --quiet ok.yaml --summary fifo2 >"$T/out" 2>"$T/err"; RC=$?
expect_rc 4
expect_err "nothing has it open for reading"

case_ "--section on a FIFO is refused before measuring"
rm -f ran
run_k run --quiet mark.yaml --format markdown --output fifo2 --section perf; expect_rc 3
expect_err "'fifo2' is a FIFO"
[ -e ran ] && fail "the suite was measured before the output was refused"

case_ "--output onto a directory is refused before measuring (exit 3)"
mkdir adir && echo keep > adir/inside
rm -f ran
run_k run --quiet mark.yaml --output adir; expect_rc 3
expect_err "--output 'adir' is a directory"
[ -e ran ] && fail "the suite was measured before the output was refused"
[ "$(cat adir/inside)" = keep ] || fail "the directory changed"
run_k run --quiet mark.yaml --summary adir; expect_rc 3
expect_err "--summary 'adir' is a directory"
run_k report saved.json --output adir; expect_rc 3
expect_err "--output 'adir' is a directory"
[ -e ran ] && fail "the suite was measured"
[ -d adir ] || fail "adir was replaced"

case_ "report.outputs onto a directory is an invalid suite (exit 2, with the location)"
cat > dirout.yaml <<YAML
version: "1"
name: dirout
defaults: {warmup: 0, runs: 1}
report:
  outputs:
    - {format: json, path: adir}
benchmarks:
  - name: b
    commands:
      c: {command: [sh, -c, "touch '$T/ran'"]}
YAML
run_k run --quiet dirout.yaml; expect_rc 2
expect_err "dirout.yaml:6:7: report.outputs[0].path: '"
expect_err "adir' is a directory"
[ -e ran ] && fail "the suite was measured"

case_ "--output onto a socket is refused and the socket stays"
"$PY" -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$T/sock"
run_k run --quiet mark.yaml --output sock; expect_rc 3
expect_err "'sock' is a socket"
[ -S sock ] || fail "the socket was replaced"
[ -e ran ] && fail "the suite was measured"

# ---- 7. a failed --summary append leaves the file as it was -------------

case_ "--summary cut by the file-size limit restores the file's length"
head -c 1000 /dev/zero | tr '\0' x > big.md # no final newline: kagari adds one
cp big.md big.orig
( ulimit -f 1; "$KAGARI" run --quiet ok.yaml --summary big.md >"$T/out" 2>"$T/err" ); RC=$?
expect_rc 4
expect_err "big.md"
expect_err "File too large"
cmp -s big.md big.orig || fail "big.md changed: $(stat -c %s big.md) bytes, was 1000"

case_ "--summary to a file that is small enough is still appended"
( ulimit -f 64; "$KAGARI" run --quiet ok.yaml --summary big.md >"$T/out" 2>"$T/err" ); RC=$?
expect_rc 0
head -c 1000 big.md | cmp -s - big.orig || fail "the existing content changed"
grep -q 'kagari:end' big.md || fail "the summary is not complete"

# ---- 8. an output that is an input ---------------------------------------

cp ok.yaml ok.orig
case_ "run --output onto the suite being run is refused, however it is named"
ln ok.yaml hardlink.yaml
for o in ok.yaml ./ok.yaml "$T/ok.yaml" hardlink.yaml; do
	run_k run --quiet ok.yaml --output "$o"; expect_rc 3
	expect_err "is the suite file"
	cmp -s ok.yaml ok.orig || { fail "the suite was overwritten by --output $o"; cp ok.orig ok.yaml; }
done
rm hardlink.yaml

case_ "--summary and --section onto the suite are refused"
run_k run --quiet ok.yaml --summary ok.yaml; expect_rc 3
expect_err "--summary 'ok.yaml' is the suite file"
run_k run --quiet ok.yaml --format markdown --output ./ok.yaml --section perf; expect_rc 3
expect_err "is the suite file"
cmp -s ok.yaml ok.orig || { fail "the suite was changed"; cp ok.orig ok.yaml; }

case_ "an output onto a stdin file of the suite is refused"
mkdir -p data && echo "input data" > data/in.txt
cat > stdin.yaml <<YAML
version: "1"
name: stdinsuite
defaults: {warmup: 0, runs: 1}
benchmarks:
  - name: reads
    stdin: data/in.txt
    commands:
      c: {command: [cat]}
YAML
run_k run --quiet stdin.yaml --output data/in.txt; expect_rc 3
expect_err "--output 'data/in.txt' is the stdin file of benchmark 'reads'"
[ "$(cat data/in.txt)" = "input data" ] || fail "the stdin file was overwritten"

case_ "report.outputs onto the suite itself is an invalid suite (exit 2)"
cat > self.yaml <<YAML
version: "1"
name: self
defaults: {warmup: 0, runs: 1}
report:
  outputs:
    - {format: json, path: self.yaml}
benchmarks:
  - name: b
    commands:
      c: {command: [sh, -c, "touch '$T/ran'"]}
YAML
cp self.yaml self.orig
rm -f ran
run_k run --quiet self.yaml; expect_rc 2
expect_err "self.yaml:6:7: report.outputs[0].path: '"
expect_err "is the suite file"
cmp -s self.yaml self.orig || fail "the suite was overwritten"
[ -e ran ] && fail "the suite was measured"

case_ "compare --output onto the suite is refused too"
run_k compare --against HEAD --quiet ok.yaml --output ok.yaml; expect_rc 3
expect_err "is the suite file"
cmp -s ok.yaml ok.orig || { fail "the suite was overwritten"; cp ok.orig ok.yaml; }

case_ "report --output onto its input stays refused (one shared check)"
cp saved.json saved.orig
run_k report saved.json --output ./saved.json; expect_rc 3
expect_err "is the input report"
cmp -s saved.json saved.orig || fail "the input report changed"

# ---- 9. rewriting a report keeps its mode and owner -------------------

case_ "rewriting a 0600 report keeps 0600"
echo previous > private.json && chmod 600 private.json
run_k run --quiet ok.yaml --format json --output private.json; expect_rc 0
[ "$(stat -c %a private.json)" = 600 ] || fail "mode is $(stat -c %a private.json), expected 600"
json_check private.json 'r["summary"]["exit_code"] == 0'
run_k report saved.json --format markdown --output private.json; expect_rc 0
[ "$(stat -c %a private.json)" = 600 ] || fail "report: mode is $(stat -c %a private.json)"

case_ "a new report gets 0666 minus the umask"
( umask 022; "$KAGARI" run --quiet ok.yaml --format json --output fresh.json 2>"$T/err" ) ||
	fail "run failed: $(cat "$T/err")"
[ "$(stat -c %a fresh.json)" = 644 ] || fail "mode is $(stat -c %a fresh.json), expected 644"

if [ "$(id -u)" = 0 ]; then
	case_ "as root, rewriting a report keeps its owner and group"
	echo previous > owned.json && chown 4321:4322 owned.json && chmod 640 owned.json
	run_k run --quiet ok.yaml --format json --output owned.json; expect_rc 0
	[ "$(stat -c %u:%g:%a owned.json)" = 4321:4322:640 ] ||
		fail "owner/mode is $(stat -c %u:%g:%a owned.json), expected 4321:4322:640"
else
	echo "note: skipping the owner case: only root can give a file to another user"
fi

# ---- 10. no @mentions or #123 links in the Markdown for GitHub -----------

case_ "names cannot @mention people or link #123 in github/markdown output"
cat > mention.yaml <<YAML
version: "1"
name: "team @octo-org/core"
defaults: {warmup: 0, runs: 1}
benchmarks:
  - name: "ping @octocat about #123 and GH-7"
    commands:
      c: {command: ["$H", "exit", "3"]}
YAML
for f in github markdown; do
	run_k run --quiet mention.yaml --format "$f"; expect_rc 4
	"$PY" - "$T/out" "$f" <<'PYEOF' || fail "$f output links a person or an issue: $(grep -o '.\{0,20\}[@#].\{0,20\}' "$T/out" | head -5)"
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
bad = [m.group(0) for m in re.finditer(r"(?<![\w`])@[A-Za-z0-9]|#[0-9]|\bGH-[0-9]", text)]
if bad:
    sys.stderr.write("found %r\n" % bad)
    sys.exit(1)
if "@\u200docto" not in text or "#\u200d123" not in text:
    sys.stderr.write("the names are not shown\n")
    sys.exit(1)
PYEOF
done
run_k run --quiet mention.yaml --summary mention.md; expect_rc 4
grep -q '@octocat' mention.md && fail "--summary mentions @octocat"
grep -q '#123' mention.md && fail "--summary links #123"

# ---- 11. the known limits are written down --------------------------------

case_ "docs/limits.md names the known limits and the README links it"
grep -q 'docs/limits.md' "$SRC/README.md" || fail "README does not link docs/limits.md"
for w in "untracked" "subfolder" "fetch-depth: 0" "submodule"; do
	grep -qi -- "$w" "$SRC/docs/limits.md" || fail "docs/limits.md does not mention '$w'"
done

finish
