#!/bin/bash
# action.yml, step 1: check the inputs before kagari is built or anything
# is measured (scripts/action/lib.sh says what each takes). Exit 3 with an
# ::error per bad input; run.sh checks them again, and the format's exact
# name against kagari's own list, before it runs kagari ci.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
check_inputs || exit 3
echo "kagari: the inputs are valid"
