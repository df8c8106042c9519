#!/bin/bash
# action.yml, step 2: the cache key and the folder kagari is installed in.
# kagari is built once per kagari version, source and runner image: the key
# is kagari-VERSION-OS-ARCH-HASH, HASH over the files the build reads. Writes
# the outputs key, dir and version to $GITHUB_OUTPUT.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
src=${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/../.." && pwd)}
: "${GITHUB_OUTPUT:?not running in GitHub Actions (GITHUB_OUTPUT is unset)}"
version=$(sed -n 's/^project(kagari VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
[ -n "$version" ] || { gh_error "no version in $src/CMakeLists.txt"; exit 1; }
hash=$(cd "$src" && find CMakeLists.txt Makefile cmake src shim man scripts/deps.sh scripts/dist.sh scripts/configure.sh \
	-type f 2>/dev/null | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)
os=unknown
if [ -r /etc/os-release ]; then
	os=$(. /etc/os-release && echo "${ID:-linux}-${VERSION_ID:-0}")
fi
key="kagari-$version-$os-$(uname -m)-$hash"
dir="${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}/kagari/$version-$hash"
gh_output key "$key"
gh_output dir "$dir"
gh_output version "$version"
echo "kagari $version, cache key $key, installed in $dir"
