#!/bin/sh
# make uninstall: remove what `make install` put under ROOT (DESTDIR+PREFIX).
#
#   scripts/uninstall.sh BUILD-DIR ROOT
#
# The list of files is what `cmake --install BUILD-DIR` installs, learnt by
# installing into a temporary folder, so it is right for this version
# whatever PREFIX the tree was installed under (or moved to). Only those
# files go, then the folders that were kagari's alone (lib/kagari,
# share/doc/kagari) once empty; shared folders such as share/man/man1 stay.
set -eu
build=${1:?usage: scripts/uninstall.sh BUILD-DIR ROOT}
root=${2:?usage: scripts/uninstall.sh BUILD-DIR ROOT}
if [ ! -f "$build/cmake_install.cmake" ]; then
	echo "uninstall: '$build' is not a configured build folder; run make first" >&2
	exit 1
fi
stage=$(mktemp -d "${TMPDIR:-/tmp}/kagari-uninstall-XXXXXX")
trap 'rm -rf "$stage"' EXIT
# DESTDIR (make exports it from its command line) is ROOT already.
env -u DESTDIR cmake --install "$build" --prefix "$stage" >/dev/null
n=0
for rel in $(cd "$stage" && find . \( -type f -o -type l \) | sed 's@^\./@@' | LC_ALL=C sort); do
	if [ -e "$root/$rel" ] || [ -L "$root/$rel" ]; then
		rm -f "$root/$rel"
		n=$((n + 1))
	fi
done
# kagari's own folders, deepest first, when nothing else is left in them.
for dir in $(cd "$stage" && find lib/kagari share/doc/kagari -depth -type d 2>/dev/null); do
	[ -d "$root/$dir" ] && rmdir "$root/$dir" 2>/dev/null || true
done
echo "uninstall: removed $n files from $root"
