#!/bin/bash
# bench/steps: kagari's step detector against E-divisive means on
# histories built from the recorded traces (bench/steps.py says how);
# prints precision, recall, F1, false steps per 1,000 A/A commits and
# the share of steps of 5x the noise found at their commit
# and what became of each of them, per trace (docs/history.md, "Against
# E-divisive").
#
#   bash bench/steps.sh [BUILD-DIR] [SERIES-PER-CELL] [SEED]
#
# Needs /usr/bin/python3 with numpy (Debian python3-numpy). Its driver is
# BUILD-DIR/kagari-bench-steps, built here when missing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
cmake --build "$build" --target kagari-bench-steps >/dev/null
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
	echo "bench/steps: /usr/bin/python3 has no numpy (Debian package python3-numpy)" >&2
	exit 77
fi
exec /usr/bin/python3 "$here/steps.py" "$build/kagari-bench-steps" "${2:-6}" "${3:-41}"
