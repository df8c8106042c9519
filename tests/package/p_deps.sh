#!/bin/bash
# scripts/deps.sh: `check` holds every other set (make check installs all
# that the package tests' make dist/deb need, once, before any test
# starts), and under the tests (KAGARI_NO_INSTALL, set by lib.sh) it never
# runs apt-get, even as root: it names what is missing and, for dist and
# deb, fails — parallel tests must not race for dpkg's lock.
. "${KAGARI_SOURCE_DIR:?}/tests/e2e/lib.sh"
DEPS=$KAGARI_SOURCE_DIR/scripts/deps.sh

case_ "check's packages include every other set's"
check=" $(sh "$DEPS" check --list) "
for set in build demo dist deb; do
	for p in $(sh "$DEPS" $set --list); do
		case $check in *" $p "*) ;; *) fail "$set needs $p, which check does not install" ;; esac
	done
done
[ "$(echo $check | tr ' ' '\n' | sort | uniq -d)" = "" ] || fail "check lists a package twice: $check"

case_ "with KAGARI_NO_INSTALL nothing is installed, even as root: the missing package is named, deb fails"
mkdir -p fakebin
# Every package missing; apt-get records that it ran; id says root.
printf '#!/bin/sh\nexit 1\n' > fakebin/dpkg-query
printf '#!/bin/sh\necho "$@" >> %s/apt.log\n' "$T" > fakebin/apt-get
printf '#!/bin/sh\necho 0\n' > fakebin/id
chmod +x fakebin/*
PATH="$T/fakebin:$PATH" KAGARI_NO_INSTALL=1 sh "$DEPS" deb >out 2>err; RC=$?
expect_rc 1
expect_err "missing Debian packages:"
expect_err "lintian"
[ ! -e "$T/apt.log" ] || fail "apt-get ran under KAGARI_NO_INSTALL: $(cat "$T/apt.log")"
# Without it, as root, deps.sh installs (what make check does before the tests).
PATH="$T/fakebin:$PATH" env -u KAGARI_NO_INSTALL sh "$DEPS" deb >out 2>err; RC=$?
expect_rc 0
grep -q "install -y" "$T/apt.log" 2>/dev/null || fail "deps.sh did not install as root: $(cat err)"

finish
