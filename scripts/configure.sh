#!/bin/sh
# scripts/configure.sh BUILD-DIR [CMAKE-ARGS...]: configure BUILD-DIR (CMake
# and Ninja) for the source tree this script is in, when it is not yet.
#
# A build folder remembers the source folder it was configured for
# (CMakeCache.txt's CMAKE_HOME_DIRECTORY) and where it was itself
# (CMAKE_CACHEFILE_DIR). In a copied or moved tree both name the old place:
# CMake refuses ("... is different from the directory where it was
# created"), Ninja runs a step in the old tree, and `make` would end 0 with
# a stale binary. So when either differs from here, this says so in one
# line and configures the folder again from scratch: only what CMake and
# Ninja generated is removed (the cache, CMakeFiles/, build.ninja and
# Ninja's logs), nothing else in the folder. CMAKE-ARGS are used only when
# the folder is configured.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd -P)
[ $# -ge 1 ] || { echo "usage: scripts/configure.sh BUILD-DIR [CMAKE-ARGS...]" >&2; exit 2; }
build=$1
shift
cache=$build/CMakeCache.txt

# The physical path of directory $1, or $1 as written when it is gone.
physical() {
	if [ -n "$1" ] && [ -d "$1" ]; then (cd "$1" && pwd -P); else printf '%s\n' "$1"; fi
}

if [ -f "$cache" ]; then
	home=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$cache")
	at=$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$cache")
	here=$(physical "$build")
	if [ "$(physical "$home")" != "$src" ] || [ "$(physical "$at")" != "$here" ]; then
		echo "kagari: $build was configured for the sources in $home; configuring it again for $src" >&2
		rm -rf "$cache" "$build/CMakeFiles" "$build/build.ninja" "$build/.ninja_deps" \
			"$build/.ninja_log" "$build/cmake_install.cmake" "$build/CTestTestfile.cmake"
	fi
fi
[ -f "$build/build.ninja" ] || cmake -S "$src" -B "$build" -G Ninja "$@"
