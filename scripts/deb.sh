#!/bin/sh
# make deb: BUILD/kagari_VERSION_ARCH.deb with Debian's own tools.
#
#   scripts/deb.sh [BUILD-DIR]        prints lintian's findings, then the .deb
#
# KAGARI_DEB_JOBS: parallel build jobs (default: the number of CPUs).
#
# The source tree (tracked and untracked files, not ignored ones) is copied
# to BUILD/deb/kagari-VERSION/ and built there by `dpkg-buildpackage -b`
# with debian/ (debhelper, CMake + Ninja, no tests), so nothing is written
# beside the source tree. dpkg-shlibdeps fills Depends from the shared
# libraries kagari actually links; the man page and the bash, zsh and fish
# completions are where Debian's tools look. lintian then checks the .deb;
# any error fails make deb.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
mkdir -p "$build"
build=$(cd "$build" && pwd)
version=$(sed -n 's/^project(kagari VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
debversion=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
if [ "$debversion" != "$version" ]; then
	echo "deb: debian/changelog is at $debversion, CMakeLists.txt at $version; add a changelog entry (dch -v $version)" >&2
	exit 1
fi
arch=$(dpkg --print-architecture)
work=$build/deb
tree=$work/kagari-$version
rm -rf "$work"
mkdir -p "$tree"
# The commit, as `kagari version` would say it from the source tree.
commit=$(cmake -DSRC="$src" -DOUT="$work/commit.h" -P "$src/cmake/commit.cmake" >/dev/null 2>&1 &&
	sed -n 's/^#define KAGARI_COMMIT "\(.*\)"$/\1/p' "$work/commit.h")
if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1 && [ -n "$commit" ]; then
	(cd "$src" && git ls-files -z -c -o --exclude-standard | xargs -0 tar -cf - --no-recursion) | tar -C "$tree" -xf -
else
	(cd "$src" && tar -cf - --exclude='./build' --exclude='./build-*' .) | tar -C "$tree" -xf -
fi
jobs=${KAGARI_DEB_JOBS:-$(nproc 2>/dev/null || echo 1)}
echo "deb: dpkg-buildpackage in $tree (log: $work/build.log)"
if ! (cd "$tree" && DEB_KAGARI_COMMIT="$commit" DEB_BUILD_OPTIONS="nocheck parallel=$jobs" \
	dpkg-buildpackage -b -us -uc) >"$work/build.log" 2>&1; then
	tail -n 40 "$work/build.log" >&2
	echo "deb: dpkg-buildpackage failed; the whole log is $work/build.log" >&2
	exit 1
fi
deb=kagari_${version}_$arch.deb
cp "$work/$deb" "$build/$deb"
echo "deb: lintian $deb"
lintian --fail-on error "$build/$deb" || {
	echo "deb: lintian found errors" >&2
	exit 1
}
echo "deb: $build/$deb"
