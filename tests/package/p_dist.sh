#!/bin/bash
# make dist (issue 25): kagari-VERSION-linux-ARCH.tar.gz. Its kagari and
# kagari-runner are static (ldd says so), its shim asks nothing newer of
# glibc than 2.3.4, and unpacked in a folder of its own it measures and
# reports — wall time, peak memory and allocations through its own shim —
# with the project's libraries (libyaml, jansson, sqlite, libelf) made
# unreadable in a private mount namespace, where the dynamically linked
# build/kagari, as a control, cannot even start. Without the right to make
# a mount namespace the run goes on with an empty environment only, and
# says so.
. "${KAGARI_SOURCE_DIR:?}/tests/e2e/lib.sh"
SRC=$KAGARI_SOURCE_DIR
BUILD=${KAGARI_BUILD_DIR:?}
unset KAGARI_ALLOC_SHIM KAGARI_RUNNER_FORK
# One core for the build: under ctest -j2 the timing tests beside it keep theirs.
export CMAKE_BUILD_PARALLEL_LEVEL=1

for p in zlib1g-dev libyaml-dev libjansson-dev libsqlite3-dev libelf-dev; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		skip_test "make dist needs the static libraries of $p" "$p"
done

case_ "make dist gives kagari-VERSION-linux-ARCH.tar.gz"
version=$("$KAGARI" version | head -n 1 | awk '{print $2}')
name=kagari-$version-linux-$(uname -m)
tarball=$BUILD/$name.tar.gz
rm -f "$tarball"
make -s -C "$SRC" dist BUILD="$BUILD" >dist.log 2>&1 || fail "make dist failed: $(tail -n 30 dist.log)"
tail -n 1 dist.log | grep -qF "$tarball" || fail "make dist does not name $tarball: $(tail -n 1 dist.log)"
[ -f "$tarball" ] || { fail "no $tarball"; finish; }
mkdir -p "$T/anywhere" && tar -C "$T/anywhere" -xzf "$tarball" || fail "cannot unpack $tarball"
D="$T/anywhere/$name"
for f in bin/kagari lib/kagari/kagari-runner lib/kagari/libkagari-alloc.so \
	share/man/man1/kagari.1 share/bash-completion/completions/kagari share/doc/kagari/README.md; do
	[ -f "$D/$f" ] || fail "not in the tarball: $f"
done

case_ "kagari and kagari-runner are static; the shim is for any glibc"
for f in bin/kagari lib/kagari/kagari-runner; do
	out=$(ldd "$D/$f" 2>&1)
	printf '%s\n' "$out" | grep -qE 'not a dynamic executable|statically linked' || fail "ldd $f: $out"
done
"$D/bin/kagari" version >v.txt || fail "the packaged kagari version failed"
grep -q '; statically linked$' v.txt || fail "kagari version does not say statically linked: $(cat v.txt)"
newest=$(objdump -T "$D/lib/kagari/libkagari-alloc.so" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
[ -n "$newest" ] || fail "no glibc symbol versions in the shim"
[ "$(printf '%s\n2.3.4\n' "$newest" | sort -V | tail -n 1)" = 2.3.4 ] ||
	fail "the shim needs glibc $newest (a program on an older glibc could not load it)"

case_ "unpacked, it measures and reports without the project's libraries"
cat >"$T/s.yaml" <<YAML
version: "1"
name: dist
defaults: {warmup: 0, runs: 3, metrics: {memory: true, allocations: true}}
benchmarks:
  - name: b
    commands:
      m: {command: ["$H", "mallocs", "500"]}
YAML
# The shared objects of the project's libraries, as the loader finds them.
libs=$(ldd "$KAGARI" | awk '/libyaml|libjansson|libsqlite3|libelf/ {print $3}' | xargs -r readlink -f)
[ "$(printf '%s\n' "$libs" | grep -c .)" -ge 4 ] || fail "ldd of $KAGARI lists $(printf '%s' "$libs" | tr '\n' ' ')"
cat >"$T/hide.sh" <<'SH'
# hide.sh LIB... -- CMD...: CMD with each LIB unreadable (a bind mount of
# /dev/null over it, in this mount namespace only).
while [ "$1" != -- ]; do mount --bind /dev/null "$1" || exit 97; shift; done
shift
exec "$@"
SH
hidden=0
if unshare -m true 2>/dev/null; then
	unshare -m sh "$T/hide.sh" $libs -- "$KAGARI" version >ctl.out 2>ctl.err
	rc=$?
	if [ "$rc" -eq 97 ]; then
		echo "note: no bind mounts here; the run below has an empty environment only"
	elif [ "$rc" -eq 0 ]; then
		fail "control: the dynamic build/kagari ran with its libraries hidden"
	else
		hidden=1
	fi
else
	echo "note: no mount namespace here; the run below has an empty environment only"
fi
run_dist() {
	if [ "$hidden" = 1 ]; then
		unshare -m sh "$T/hide.sh" $libs -- env -i PATH=/usr/bin:/bin HOME="$T" "$@"
	else
		env -i PATH=/usr/bin:/bin HOME="$T" LD_LIBRARY_PATH="$T/nowhere" "$@"
	fi
}
cd "$T/anywhere" || exit 1
run_dist "$D/bin/kagari" run "$T/s.yaml" --no-history --format json --output "$T/d.json" >run.out 2>run.err
rc=$?
[ "$rc" -eq 0 ] || fail "the unpacked kagari run exited $rc: $(tail -c 1500 run.err)"
json_check "$T/d.json" 'all(r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"][m]["status"] == "ok" for m in ("latency", "peak_rss", "allocs"))'
json_check "$T/d.json" 'r["suites"][0]["benchmarks"][0]["commands"][0]["head"]["metrics"]["allocs"]["stats"]["median"] >= 500'
run_dist "$D/bin/kagari" report "$T/d.json" --format table >rep.out 2>rep.err || fail "report from the unpacked tree failed: $(cat rep.err)"
grep -q 'allocs' rep.out || fail "the report table lacks allocs: $(head -c 1000 rep.out)"
run_dist "$D/bin/kagari" doctor >doc.out 2>&1 || fail "doctor failed"
grep -qF "ok    allocation shim: $D/lib/kagari/libkagari-alloc.so" doc.out || fail "doctor's shim: $(grep shim doc.out)"
[ "$hidden" = 1 ] && echo "ran with $(printf '%s\n' "$libs" | grep -c .) libraries hidden: $(printf '%s ' $libs)"
finish
