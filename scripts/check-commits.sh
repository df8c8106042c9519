#!/bin/bash
# check-commits.sh [REPO] — every commit since this check was added has a
# subject of at most 72 characters and a body that says why (at least one
# non-empty line after the subject); merges included. Run by `make check`
# as the CTest test `commits`. Known, already-landed exceptions are in
# scripts/check-commits.known. Outside a git checkout (a release tarball)
# there is nothing to check.
set -u
repo=${1:-$(dirname "$0")/..}
cd "$repo" || exit 2
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "SKIP: not a git checkout, no commits to check"
	exit 77
fi
# The commit that added this script: the rule holds from there on.
since=$(git log --diff-filter=A --format=%H -- scripts/check-commits.sh | tail -n 1)
if [ -z "$since" ]; then
	echo "check-commits: the script is not committed yet; nothing to check"
	exit 0
fi
range="$since^..HEAD"
# Commits already on main that break the rule cannot be fixed: main is
# append-only, never amended. scripts/check-commits.known lists each by
# its full hash with the reason, and only the subject's length is excused;
# a body is still required.
known=$(dirname "$0")/check-commits.known
bad=0 n=0
# One git process for every commit: hash, subject and body, fields
# separated by US (0x1f), records by RS (0x1e).
while IFS=$'\x1f' read -r -d $'\x1e' h subject body; do
	h=${h#$'\n'}
	n=$((n + 1))
	if [ "${#subject}" -gt 72 ] && ! grep -q "^$h " "$known" 2>/dev/null; then
		echo "${h:0:12}: subject of ${#subject} characters, more than 72: $subject"
		bad=1
	fi
	if [ -z "${body//[[:space:]]/}" ]; then
		echo "${h:0:12}: no body saying why: $subject"
		bad=1
	fi
done < <(git log --format='%H%x1f%s%x1f%b%x1e' "$range")
if [ "$bad" -ne 0 ]; then
	echo "check-commits: commit messages above break the rule (docs/architecture.md, HACKING)"
	exit 1
fi
echo "check-commits: $n commits with a subject of at most 72 characters and a body"
