#!/bin/bash
# action.yml, step 4 (when the cache has no kagari for this key): install the
# Debian or Ubuntu packages `make dist` needs (with sudo when not root), build
# the static tree, and unpack it into $KAGARI_DIR, which the cache keeps.
set -euo pipefail
src=${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/../.." && pwd)}
: "${KAGARI_DIR:?KAGARI_DIR is unset}"
# KAGARI_DIST_BUILD: the build folder of `make dist` (tests reuse theirs).
work=${KAGARI_DIST_BUILD:-${RUNNER_TEMP:-/tmp}/kagari-build}
pkgs=$(sh "$src/scripts/deps.sh" dist --list)
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo="sudo"
	echo "installing:$missing"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	# shellcheck disable=SC2086
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi
mkdir -p "$work"
make -s -C "$src" dist BUILD="$work" | tee "$work/action-build.log"
tarball=$(sed -n 's/^dist: //p' "$work/action-build.log" | tail -n 1)
[ -f "$tarball" ] || { echo "::error title=kagari::make dist gave no tarball"; exit 1; }
rm -rf "$KAGARI_DIR"
mkdir -p "$KAGARI_DIR"
tar -C "$KAGARI_DIR" --strip-components=1 -xzf "$tarball"
"$KAGARI_DIR/bin/kagari" version
