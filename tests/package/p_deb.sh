#!/bin/bash
# make deb (issue 25): kagari_VERSION_ARCH.deb built by dpkg-buildpackage,
# its Depends naming the package of every shared library the packaged
# kagari links (as dpkg-shlibdeps found them), the man page and the
# completions where Debian's tools look, lintian without errors; then the
# packaged kagari, run from a `dpkg-deb -x` tree, measures and reports
# (allocations through the packaged shim), and doctor finds the packaged
# runner and shim. Skips (77) only when Debian's packaging tools are not
# installed; scripts/deps.sh installs them for make check.
. "${KAGARI_SOURCE_DIR:?}/tests/e2e/lib.sh"
SRC=$KAGARI_SOURCE_DIR
BUILD=${KAGARI_BUILD_DIR:?}
unset KAGARI_ALLOC_SHIM KAGARI_RUNNER_FORK
# One core for the build: under ctest -j2 the timing tests beside it keep theirs.
export CMAKE_BUILD_PARALLEL_LEVEL=1 KAGARI_DEB_JOBS=1

for tool in dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian fakeroot:fakeroot; do
	command -v "${tool%%:*}" >/dev/null || skip_test "make deb needs ${tool%%:*}, Debian package ${tool#*:} (scripts/deps.sh check installs it before the tests)" "${tool#*:}"
done

case_ "make deb gives kagari_VERSION_ARCH.deb, lintian without errors"
version=$("$KAGARI" version | head -n 1 | awk '{print $2}')
deb=$BUILD/kagari_${version}_$(dpkg --print-architecture).deb
rm -f "$deb"
# scripts/deb.sh is what `make deb` runs after scripts/deps.sh: the tests run
# in parallel and must never install packages (racing for dpkg's lock on a
# fresh machine), so the packages come from make check's deps.sh run
# before any test starts, and this test calls the build step alone.
sh "$SRC/scripts/deb.sh" "$BUILD" >deb.log 2>&1 || fail "make deb failed: $(tail -n 40 deb.log)"
[ -f "$deb" ] || { fail "no $deb: $(tail -n 20 deb.log)"; finish; }
lintian --fail-on error "$deb" >lintian.txt 2>&1 || fail "lintian: $(cat lintian.txt)"
grep -q '^E:' lintian.txt && fail "lintian errors: $(grep '^E:' lintian.txt)"
echo "lintian: $(grep -c '^[EW]:' lintian.txt) errors and warnings"
[ "$(dpkg-deb -f "$deb" Package)" = kagari ] && [ "$(dpkg-deb -f "$deb" Version)" = "$version" ] ||
	fail "control: $(dpkg-deb -f "$deb" Package Version)"

case_ "the man page and the completions are where Debian looks"
dpkg-deb -c "$deb" | awk '{print $6}' >contents.txt
for f in ./usr/bin/kagari ./usr/lib/kagari/kagari-runner ./usr/lib/kagari/libkagari-alloc.so \
	./usr/share/man/man1/kagari.1.gz ./usr/share/bash-completion/completions/kagari \
	./usr/share/zsh/vendor-completions/_kagari ./usr/share/fish/vendor_completions.d/kagari.fish \
	./usr/share/doc/kagari/copyright; do
	grep -qxF "$f" contents.txt || fail "not in the package: $f"
done

case_ "Depends names the package of every shared library kagari links"
X="$T/x"
dpkg-deb -x "$deb" "$X" || fail "dpkg-deb -x failed"
depends=$(dpkg-deb -f "$deb" Depends)
for so in $(objdump -p "$X/usr/bin/kagari" "$X/usr/lib/kagari/libkagari-alloc.so" | awk '/NEEDED/ {print $2}' | sort -u); do
	path=$(ldconfig -p | awk -v so="$so" '$1 == so && /x86-64|x32|AArch64|64bit/ {print $NF; exit}')
	[ -n "$path" ] || path=$(ldconfig -p | awk -v so="$so" '$1 == so {print $NF; exit}')
	# dpkg knows a file by the path its package ships (/lib or /usr/lib).
	real=$(readlink -f "$path")
	pkg=""
	for cand in "$path" "$real" "${real#/usr}" "/usr$real"; do
		pkg=$(dpkg -S "$cand" 2>/dev/null | head -n 1 | cut -d: -f1)
		[ -n "$pkg" ] && break
	done
	[ -n "$pkg" ] || { fail "no package owns $so ($path)"; continue; }
	printf '%s\n' "$depends" | tr ',' '\n' | grep -qE "^ *$pkg( |$)" || fail "Depends lacks $pkg (for $so): $depends"
done

case_ "the packaged kagari from the extracted tree measures and reports"
"$X/usr/bin/kagari" version >v.txt 2>&1 || fail "version: $(cat v.txt)"
head -n 1 v.txt | grep -qx "kagari $version" || fail "version: $(head -n 1 v.txt)"
if head=$(git -C "$SRC" rev-parse --short=12 HEAD 2>/dev/null); then
	grep -qE "^commit: $head(-dirty)?$" v.txt || fail "the package does not know its commit: $(grep commit v.txt)"
fi
"$X/usr/bin/kagari" doctor >doctor.txt 2>&1 || fail "doctor failed"
grep -qF "ok    allocation shim: $X/usr/lib/kagari/libkagari-alloc.so" doctor.txt || fail "doctor's shim: $(grep shim doctor.txt)"
grep -qF "ok    runner: $X/usr/bin/../lib/kagari/kagari-runner" doctor.txt || fail "doctor's runner: $(grep runner doctor.txt)"
cat >s.yaml <<YAML
version: "1"
name: deb
defaults: {warmup: 0, runs: 3, metrics: {allocations: true}}
benchmarks:
  - name: b
    commands:
      m: {command: ["$H", "mallocs", "300"]}
YAML
"$X/usr/bin/kagari" run s.yaml --no-history --format json --output "$T/d.json" >run.out 2>run.err
[ $? -eq 0 ] || fail "run failed: $(tail -c 1500 run.err)"
json_check "$T/d.json" 'r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]["allocs"]["stats"]["median"] >= 300'
bash -n "$X/usr/share/bash-completion/completions/kagari" || fail "bash -n rejects the packaged completion"
finish
