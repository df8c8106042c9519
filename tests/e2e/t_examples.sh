#!/bin/bash
# The CI examples (examples/gitlab-ci/.gitlab-ci.yml, examples/other-ci/,
# examples/github-actions/) use only commands and options kagari has, and
# the GitLab file is valid YAML whose JUnit report is the file the job
# writes — so a copied example does not fail on a typo.
. "$(dirname "$0")/lib.sh"
SRC=${KAGARI_SOURCE_DIR:?}
GL="$SRC/examples/gitlab-ci/.gitlab-ci.yml"

case_ "every 'kagari CMD --option' in the examples exists"
for f in "$GL" "$SRC/examples/other-ci/kagari-ci.sh" "$SRC/examples/github-actions/kagari.yml" \
	"$SRC/examples/github-actions/kagari-history-check.yml"; do
	[ -f "$f" ] || { fail "missing example $f"; continue; }
	grep -v '^[[:space:]]*#' "$f" | grep -o 'kagari [a-z]\+[^|;&#]*' | grep -v '^kagari [a-z]*[/.]' | while read -r _ cmd rest; do
		"$KAGARI" help "$cmd" >help.txt 2>/dev/null || { echo "unknown command '$cmd' in $f"; continue; }
		for o in $(printf '%s\n' "$rest" | grep -o -- '--[a-z][a-z-]*'); do
			grep -q -- "$o" help.txt || echo "unknown option '$o' of '$cmd' in $f"
		done
		fmt=$(printf '%s\n' "$rest" | grep -o -- '--format [a-z-]*' | awk '{print $2}')
		if [ -n "$fmt" ] && ! grep -q -- "$fmt" help.txt; then echo "unknown format '$fmt' in $f"; fi
	done >problems.txt
	[ -s problems.txt ] && fail "$(cat problems.txt)"
done

case_ "the GitLab example is YAML with a JUnit report the job writes"
if "$PY" -c 'import yaml' 2>/dev/null; then
	"$PY" - "$GL" <<'PYEOF' || fail "the GitLab example is not what GitLab expects"
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
job = d["kagari"]
junit = job["artifacts"]["reports"]["junit"]
assert job["artifacts"]["when"] == "always"
script = "\n".join(job["script"] + job["after_script"])
assert "--format junit --output " + junit in script, script
assert str(job["variables"]["GIT_DEPTH"]) == "0"
assert "merge_request_event" in job["rules"][0]["if"]
PYEOF
else
	grep -q 'junit: kagari-junit.xml' "$GL" && grep -q -- '--format junit --output kagari-junit.xml' "$GL" ||
		fail "the GitLab example's JUnit report is not the file it writes"
fi
finish
