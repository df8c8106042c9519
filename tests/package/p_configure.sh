#!/bin/bash
# `make` in a copied or moved tree (issue 34): its build/ was configured
# for the original source folder, and CMake then refused ("different
# directory"), Ninja ran a step in the original tree and make ended 0 with
# the stale binary. scripts/configure.sh sees it, says so in one line and
# configures the copy's build/ for the copy: the copy builds its own
# sources and nothing in the original tree is touched. The target built is
# the allocation shim (one source file), so the test stays short.
. "${KAGARI_SOURCE_DIR:?}/tests/e2e/lib.sh"
SRC=$KAGARI_SOURCE_DIR
export CMAKE_BUILD_PARALLEL_LEVEL=1

command -v cmake >/dev/null && command -v ninja >/dev/null ||
	skip_test "make needs cmake and ninja" cmake

# The sources without any build folder or git metadata.
mkdir -p "$T/a"
tar -C "$SRC" --exclude=./build --exclude='./build-*' --exclude=./.git -cf - . | tar -C "$T/a" -xf - ||
	fail "cannot copy the sources"
A=$(cd "$T/a" && pwd -P)
SO=libkagari-alloc.so

case_ "the original tree builds"
make -s -C "$A" TARGETS=kagari-alloc >a.log 2>&1 || fail "make in the original tree failed: $(tail -n 20 a.log)"
[ -f "$A/build/$SO" ] || fail "no $SO in the original tree"
grep -q "configuring it again" a.log && fail "a fresh tree was 'configured again': $(cat a.log)"
a_log=$(cksum <"$A/build/.ninja_log")
a_so=$(cksum <"$A/build/$SO")

case_ "a copy with the original's build/ builds its own sources"
cp -a "$A" "$T/b"
B=$(cd "$T/b" && pwd -P)
echo 'const char kagari_copy_marker[] = "kagari-copy-b-marker";' >>"$B/shim/kagari_alloc.c"
make -s -C "$B" TARGETS=kagari-alloc >b.log 2>&1
rc=$?
[ $rc -eq 0 ] || fail "make in the copy failed ($rc): $(tail -n 20 b.log)"
[ "$(grep -c "configuring it again" b.log)" = 1 ] || fail "no single line saying the copy is configured again: $(cat b.log)"
grep -qF "build was configured for the sources in $A; configuring it again for $B" b.log ||
	fail "the line does not name both folders: $(grep configur b.log)"
grep -qi "different directory\|is different than the directory\|is different from the directory" b.log && fail "CMake's error reached the user: $(cat b.log)"
grep -q kagari-copy-b-marker "$B/build/$SO" || fail "the copy's $SO was not built from the copy's sources"
grep -q "^CMAKE_HOME_DIRECTORY:INTERNAL=$B\$" "$B/build/CMakeCache.txt" ||
	fail "the copy's cache names $(grep CMAKE_HOME_DIRECTORY "$B/build/CMakeCache.txt")"
[ "$(cksum <"$A/build/.ninja_log")" = "$a_log" ] || fail "make in the copy ran a step in the original tree"
[ "$(cksum <"$A/build/$SO")" = "$a_so" ] || fail "make in the copy changed the original's $SO"
grep -q "^CMAKE_HOME_DIRECTORY:INTERNAL=$A\$" "$A/build/CMakeCache.txt" || fail "the original's cache changed"

case_ "the second make in the copy configures nothing"
make -s -C "$B" TARGETS=kagari-alloc >b2.log 2>&1 || fail "the second make failed: $(tail -n 20 b2.log)"
grep -q "configuring it again" b2.log && fail "configured again a second time: $(cat b2.log)"

case_ "a moved tree, and files of the user's in build/, kept"
echo keep >"$B/build/notes.txt"
mv "$B" "$T/c"
C=$(cd "$T/c" && pwd -P)
sh "$C/scripts/configure.sh" "$C/build" >c.log 2>&1 || fail "configure.sh in the moved tree failed: $(tail -n 20 c.log)"
grep -qF "configuring it again for $C" c.log || fail "the moved tree was not configured again: $(cat c.log)"
grep -q "^CMAKE_HOME_DIRECTORY:INTERNAL=$C\$" "$C/build/CMakeCache.txt" || fail "the moved tree's cache is not its own"
[ "$(cat "$C/build/notes.txt" 2>/dev/null)" = keep ] || fail "a file of the user's in build/ was removed"
finish
