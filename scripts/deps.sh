#!/bin/sh
# Install the Debian 12 packages kagari needs, when they are missing, in one
# serial step: the Makefile runs this before it configures, builds or starts
# any test, and no test installs anything itself.
#
#   scripts/deps.sh [build|demo|check|dist|deb]     (default: build)
#
# build: what compiling kagari and its tests needs; demo: build + what the
# demo runs; check: demo + every program a test uses (valgrind, chromium,
# Debian's packaging tools, ...); dist: what `make dist` needs (the static
# libraries); deb: what `make deb` needs (dpkg-buildpackage, debhelper,
# lintian and the package's build dependencies).
# As root this runs apt-get (not with KAGARI_NO_INSTALL set, as the tests
# set it); otherwise it prints the one command to run. A
# missing build package stops the build (exit 1); a missing test-only package
# does not: the tests that need it exit 77 and CTest lists them as skipped.
# With `--list` it prints the package names of a set and exits (scripts that
# remove them to imitate a fresh machine use this).
set -eu
set_name=build
list_only=0
for arg in "$@"; do
	case $arg in
	build | demo | check | dist | deb) set_name=$arg ;;
	--list) list_only=1 ;;
	*)
		echo "usage: scripts/deps.sh [build|demo|check|dist|deb] [--list]" >&2
		exit 2
		;;
	esac
done

# Compiling: the toolchain, CMake + Ninja, and the libraries (headers).
BUILD_PKGS="cmake ninja-build pkg-config gcc libc6-dev make git libyaml-dev \
libjansson-dev libsqlite3-dev libcmocka-dev libelf-dev"
# The demo reads the report with python3.
DEMO_PKGS="python3"
# The tests: GNU time and pgrep (procps) in e2e scripts, valgrind for the
# instruction-count path, chromium for the HTML report in a real browser,
# hyperfine for the differential checks of bench's exports, python3-jsonschema
# for docs/report.schema.json, xmllint (libxml2-utils) for the JUnit schema
# and clang-format for the source's own style (scripts/check-format.sh);
# python3-numpy for bench/steps.sh's reference detector.
TEST_PKGS="time procps valgrind chromium hyperfine python3-jsonschema libxml2-utils clang-format python3-numpy"
# make dist and make deb (and the tests that run them): building kagari
# without its tests (no cmocka), zlib's static library for the static link
# (libelf and sqlite need it), Debian's packaging tools and lintian;
# build-essential because dpkg-buildpackage's dependency check requires it
# of every build (a machine with gcc and make but without it fails there).
DIST_PKGS="cmake ninja-build pkg-config gcc libc6-dev make git libyaml-dev \
libjansson-dev libsqlite3-dev libelf-dev zlib1g-dev"
DEB_PKGS="$DIST_PKGS build-essential dpkg-dev debhelper fakeroot lintian"

case $set_name in
build) want=$BUILD_PKGS ;;
demo) want="$BUILD_PKGS $DEMO_PKGS" ;;
# check holds every other set: the package tests run make dist and make deb,
# and everything is installed here, once, before any test starts (tests run
# in parallel and would race for dpkg's lock; under them KAGARI_NO_INSTALL
# is set and this script never installs). Duplicates are dropped below.
check) want="$BUILD_PKGS $DEMO_PKGS $TEST_PKGS $DEB_PKGS" ;;
dist) want=$DIST_PKGS ;;
deb) want=$DEB_PKGS ;;
esac
want=$(printf '%s\n' $want | awk '!seen[$0]++' | tr '\n' ' ')
if [ "$list_only" = 1 ]; then
	echo $want
	exit 0
fi

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"
}
missing=""
for p in $want; do
	installed "$p" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

# KAGARI_NO_INSTALL: the tests (tests/e2e/lib.sh) run make dist/deb/install
# beside each other; they must find the packages, never install them.
if [ "$(id -u)" = 0 ] && [ -z "${KAGARI_NO_INSTALL:-}" ]; then
	echo "kagari: installing missing packages:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	# Wait for another apt or dpkg to finish instead of failing on its lock.
	lock="-o DPkg::Lock::Timeout=600"
	# shellcheck disable=SC2086
	apt-get $lock update -qq >&2
	# shellcheck disable=SC2086
	apt-get $lock install -y -qq --no-install-recommends $missing >&2
	exit 0
fi

echo "kagari: missing Debian packages:$missing" >&2
echo "run: sudo apt-get install -y --no-install-recommends$missing" >&2
for p in $missing; do
	case $set_name in
	dist | deb) exit 1 ;; # nothing to go on with
	esac
	case " $BUILD_PKGS $DEMO_PKGS " in
	*" $p "*) exit 1 ;;
	esac
done
echo "kagari: going on; the tests that need them will be reported as skipped" >&2
exit 0
