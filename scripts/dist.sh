#!/bin/sh
# make dist: BUILD/kagari-VERSION-linux-ARCH.tar.gz, a tree that runs
# unpacked anywhere on Linux with no package installed:
#
#   kagari-VERSION-linux-ARCH/bin/kagari                 static
#   kagari-VERSION-linux-ARCH/lib/kagari/kagari-runner   static
#   kagari-VERSION-linux-ARCH/lib/kagari/libkagari-alloc.so
#   kagari-VERSION-linux-ARCH/share/...                  man page, completions, docs
#
# kagari is linked statically against Debian's static libyaml, jansson,
# sqlite3, libelf and zlib (-DKAGARI_STATIC=ON) in a build tree of its own,
# BUILD/dist/build, configured without the tests; the shim is a shared
# object that needs nothing newer than glibc 2.3.4, so it loads into the
# programs of any glibc. The tree is `make install`'s, so it is relocatable.
#
#   scripts/dist.sh [BUILD-DIR]        prints the tarball's path last
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
mkdir -p "$build"
build=$(cd "$build" && pwd)
version=$(sed -n 's/^project(kagari VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
arch=$(uname -m)
name=kagari-$version-linux-$arch
tree=$build/dist/build
sh "$src/scripts/configure.sh" "$tree" -DKAGARI_STATIC=ON -DKAGARI_TESTS=OFF \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$tree"
stage=$build/dist/$name
rm -rf "$stage"
env -u DESTDIR cmake --install "$tree" --prefix "$stage" --strip >/dev/null
tar -C "$build/dist" --owner=0 --group=0 --numeric-owner --sort=name \
	-czf "$build/$name.tar.gz.tmp" "$name"
mv "$build/$name.tar.gz.tmp" "$build/$name.tar.gz"
echo "dist: $build/$name.tar.gz"
