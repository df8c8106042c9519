#!/bin/bash
# check-format.sh [SRC-DIR] — every C file under src/ is in the tree's own
# style (.clang-format at the top): `clang-format --dry-run -Werror` names
# each file and line that would change. Run by `make check` as the CTest
# test `format`; `clang-format -i src/*/*.[ch] src/*.c` fixes what it finds.
# clang-format is Debian's (scripts/deps.sh installs it for `make check`):
# another version may lay some lines out differently, so the check uses
# the one the tree was formatted with when there is a choice.
set -u
src=${1:-$(dirname "$0")/../src}
cf=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$cf" ]; then
	# In CI (.ci/run sets CI=true) make check installed it: missing is a
	# broken install step, not a reason to skip.
	echo "SKIP: clang-format is not installed (scripts/deps.sh check installs it)"
	[ "${CI:-}" = true ] && exit 1
	exit 77
fi
mapfile -t files < <(find "$src" -name '*.[ch]' | LC_ALL=C sort)
if "$cf" --style=file --dry-run -Werror "${files[@]}" 2>&1 | head -n 40 | grep .; then
	echo "check-format: files above are not in .clang-format's style; run: clang-format -i src/*/*.[ch] src/*.c"
	exit 1
fi
echo "check-format: ${#files[@]} files in .clang-format's style ($("$cf" --version | sed 's/.*version //'))"
