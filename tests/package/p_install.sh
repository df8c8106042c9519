#!/bin/bash
# make install / make uninstall (issue 25): install into a temporary DESTDIR
# with a PREFIX, check every file is where each tool looks for it, move the
# installed tree elsewhere (it is relocatable), and from an unrelated folder
# run a compare that counts allocations through the installed shim, doctor
# (which must name the moved tree's shim and runner, not the build's), and
# the bash completion through `bash -n` and a real completion; then make
# uninstall removes every file it installed.
. "${KAGARI_SOURCE_DIR:?}/tests/e2e/lib.sh"
SRC=$KAGARI_SOURCE_DIR
BUILD=${KAGARI_BUILD_DIR:?}
git_sandbox
unset KAGARI_ALLOC_SHIM KAGARI_RUNNER_FORK

case_ "make install DESTDIR=... PREFIX=/opt/kagari"
make -s -C "$SRC" install BUILD="$BUILD" DESTDIR="$T/stage" PREFIX=/opt/kagari >install.log 2>&1 ||
	fail "make install failed: $(tail -n 20 install.log)"
P="$T/stage/opt/kagari"
for f in bin/kagari lib/kagari/kagari-runner lib/kagari/libkagari-alloc.so \
	share/man/man1/kagari.1 share/bash-completion/completions/kagari \
	share/zsh/site-functions/_kagari share/fish/vendor_completions.d/kagari.fish \
	share/doc/kagari/README.md share/doc/kagari/LICENSE share/doc/kagari/docs/suite.md \
	share/doc/kagari/examples/github-actions/kagari.yml; do
	[ -f "$P/$f" ] || fail "not installed: $f"
done
[ -x "$P/bin/kagari" ] && [ -x "$P/lib/kagari/kagari-runner" ] || fail "kagari or kagari-runner is not executable"
grep -q '^\.TH KAGARI 1' "$P/share/man/man1/kagari.1" || fail "the man page is not kagari(1)"
# Nothing outside PREFIX under DESTDIR.
[ "$(ls "$T/stage")" = opt ] || fail "files outside PREFIX: $(ls "$T/stage")"

case_ "the tree moved elsewhere still runs"
mkdir -p "$T/moved"
mv "$P" "$T/moved/kg" || fail "cannot move the installed tree"
M="$T/moved/kg"
[ ! -e "$P" ] || fail "the old prefix still exists"
mkdir -p "$T/unrelated" && cd "$T/unrelated" || exit 1
"$M/bin/kagari" --version >v.txt 2>&1 || fail "--version from the moved tree failed: $(cat v.txt)"
head -n 1 v.txt | grep -qE '^kagari [0-9]+\.[0-9]+\.[0-9]+$' || fail "version: $(cat v.txt)"

case_ "doctor names the moved tree's shim and runner"
"$M/bin/kagari" doctor >doctor.txt 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "doctor exited $rc"
grep -qF "ok    allocation shim: $M/lib/kagari/libkagari-alloc.so" doctor.txt ||
	fail "doctor's shim is not the moved tree's: $(grep -i shim doctor.txt)"
grep -qF "ok    runner: $M/bin/../lib/kagari/kagari-runner" doctor.txt ||
	fail "doctor's runner is not the moved tree's: $(grep -i runner doctor.txt)"

case_ "a compare with allocation counting from an unrelated folder"
mkdir -p "$T/unrelated/proj" && cd "$T/unrelated/proj" || exit 1
g init -q .
malloc_loop_project installed 10
g add -A && g commit -qm base
echo '#define N 3000' >n.h
"$M/bin/kagari" compare --against HEAD --no-history --quiet --seed 4 --format json --output "$T/c.json" >c.out 2>c.err
rc=$?
[ "$rc" -eq 1 ] || fail "compare exited $rc, expected 1 (allocs +1000); stderr: $(tail -c 1500 c.err)"
json_check "$T/c.json" 'r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["allocs"]["verdict"] == "regression"'
json_check "$T/c.json" 'r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["allocs"]["head"] - r["suites"][0]["benchmarks"][0]["commands"][0]["comparisons"]["allocs"]["base"] == 1000'

case_ "the installed bash completion parses and completes"
C="$M/share/bash-completion/completions/kagari"
bash -n "$C" || fail "bash -n rejects $C"
got=$(PATH="$M/bin:$PATH" bash -c '. "$1"; COMP_WORDS=(kagari comp); COMP_CWORD=1; _kagari; printf "%s\n" "${COMPREPLY[@]}"' _ "$C" 2>&1)
[ "$got" = "compare" ] || [ "$(printf '%s\n' "$got" | sort | tr '\n' ' ')" = "compare completion " ] ||
	fail "'kagari comp<TAB>' offers: $got"
if command -v zsh >/dev/null; then zsh -n "$M/share/zsh/site-functions/_kagari" || fail "zsh -n rejects _kagari"; fi
if command -v fish >/dev/null; then fish -n "$M/share/fish/vendor_completions.d/kagari.fish" || fail "fish -n rejects kagari.fish"; fi

case_ "make uninstall removes every installed file"
make -s -C "$SRC" uninstall BUILD="$BUILD" DESTDIR="$T/moved" PREFIX=/kg >uninstall.log 2>&1 ||
	fail "make uninstall failed: $(cat uninstall.log)"
left=$(find "$M" \( -type f -o -type l \) | head -5)
[ -z "$left" ] || fail "left after uninstall: $left"
[ ! -d "$M/lib/kagari" ] && [ ! -d "$M/share/doc/kagari" ] || fail "kagari's own folders are left"
finish
