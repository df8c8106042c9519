#!/bin/sh
# Install the Debian 12 packages kagari needs to build and test, when they are
# missing. As root this runs apt-get; otherwise it prints the command to run.
set -eu
PKGS="cmake ninja-build pkg-config gcc make git libyaml-dev libjansson-dev \
libsqlite3-dev libcmocka-dev time procps python3 valgrind"
missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "kagari: installing missing packages:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >&2
else
	echo "kagari: missing Debian packages:$missing" >&2
	echo "run: sudo apt-get install -y$missing" >&2
	exit 1
fi
