#!/bin/bash
# Try the README's two commands the way a new user on a fresh Debian 12
# machine would, and `make check` repeatedly on a loaded machine.
#
#   scripts/fresh-machine.sh [--repeat N] [--keep-logs DIR]
#
# As root only, on a machine you may change: it REMOVES the Debian packages
# that scripts/deps.sh installs (all but the toolchain, git and python3,
# which a new machine has and this script itself needs) and lets the
# Makefile install them again.
#
#   1. remove the packages, clone HEAD of this repository into a temporary
#      folder, `make -j4` (build only);
#   2. remove them again, clone again, `make demo`, then `make check`;
#   3. `make check` N more times (default 5) in that clone while another
#      build of kagari runs in a loop beside it (a loaded machine).
#
# Prints one line per step (exit code, wall time, CTest's summary) and exits
# 0 only when every step succeeded. Logs are kept in DIR (default: a
# temporary folder, printed at the end).
set -u
repeat=5
logs=""
while [ $# -gt 0 ]; do
	case $1 in
	--repeat) repeat=$2; shift 2 ;;
	--keep-logs) logs=$2; shift 2 ;;
	*) echo "usage: scripts/fresh-machine.sh [--repeat N] [--keep-logs DIR]" >&2; exit 2 ;;
	esac
done
if [ "$(id -u)" -ne 0 ]; then
	echo "fresh-machine: run as root on a machine you may change (it removes packages)" >&2
	exit 2
fi
src=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$logs" ] || logs=$(mktemp -d "${TMPDIR:-/tmp}/kagari-fresh-logs-XXXXXX")
mkdir -p "$logs"
work=$(mktemp -d "${TMPDIR:-/tmp}/kagari-fresh-XXXXXX")
load_pid=""
cleanup() {
	[ -n "$load_pid" ] && kill -- -"$load_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# What a new machine of this kind already has, and what this script runs on.
keep=" gcc libc6-dev make git python3 procps "
remove_pkgs() {
	local pkgs="" p
	for p in $(sh "$src/scripts/deps.sh" check --list); do
		case $keep in *" $p "*) continue ;; esac
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" &&
			pkgs="$pkgs $p"
	done
	[ -z "$pkgs" ] && return 0
	echo "fresh-machine: removing$pkgs"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq $pkgs >"$logs/remove-$1.log" 2>&1
}

failures=0
# step NAME DIR COMMAND...: run, time, and print one line.
step() {
	local name=$1 dir=$2 t0 t1 rc summary
	shift 2
	t0=$(date +%s)
	(cd "$dir" && "$@") >"$logs/$name.log" 2>&1
	rc=$?
	t1=$(date +%s)
	summary=$(grep -E '^[0-9]+% tests passed|^kagari: [0-9]+ passed|^kagari demo:.*OK' "$logs/$name.log" | tr '\n' ' ')
	printf '%-22s exit %-3s %5ss  %s\n' "$name" "$rc" "$((t1 - t0))" "$summary"
	[ "$rc" -eq 0 ] || failures=$((failures + 1))
}

echo "fresh-machine: logs in $logs"
remove_pkgs 1
git clone -q "$src" "$work/a"
step "make -j4" "$work/a" make -j4

remove_pkgs 2
git clone -q "$src" "$work/b"
step "make demo" "$work/b" make demo
step "make check" "$work/b" make check

[ "$repeat" -gt 0 ] || { [ "$failures" -eq 0 ]; exit $?; }
# Another build of kagari, over and over, in its own clone and build folder.
git clone -q "$src" "$work/load"
setsid bash -c 'cd "$1" || exit 1
	while :; do rm -rf build-load; make BUILD=build-load >/dev/null 2>&1; done' _ "$work/load" \
	</dev/null >/dev/null 2>&1 &
load_pid=$!
kill -0 "$load_pid" 2>/dev/null || echo "fresh-machine: the load did not start" >&2
for i in $(seq 1 "$repeat"); do
	step "make check (load) $i" "$work/b" make check
done
kill -- -"$load_pid" 2>/dev/null
load_pid=""

if [ "$failures" -gt 0 ]; then
	echo "fresh-machine: $failures step(s) failed; logs in $logs"
	exit 1
fi
echo "fresh-machine: every step passed; logs in $logs"
