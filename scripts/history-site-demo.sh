#!/bin/bash
# The trend site of docs/history.md, made from scratch: a repository of 36
# commits whose one benchmark gets 20% slower at commit 24 (a CPU burn of
# 10 ms, then 12 ms, measured for real), a second command that stays the
# same, each commit measured twice — a `kagari run` of 3 runs and a
# `kagari ci` as on a push to main (its `before` the commit before: a
# paired comparison) — every fourth commit on a second machine too.
# OUT/site shows every metric, the gated ones (latency, cpu_total,
# peak_rss) first and the others folded; the picture is of OUT/site-cpu,
# --metric cpu_total (the wall time of a machine shared with other builds
# wanders too much for a picture). Writes OUT/site/index.html and, with Debian's chromium,
# OUT/history-site.png (the picture in docs/history.md).
#
#   scripts/history-site-demo.sh [OUT]     (default: build/history-demo)
#   KAGARI=build/kagari KAGARI_HELPER=build/kagari-helper
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(realpath -m "${1:-$top/build/history-demo}")
K=${KAGARI:-$top/build/kagari}
H=${KAGARI_HELPER:-$top/build/kagari-helper}
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE KAGARI_MACHINE_ID
g() { git -c user.name=demo -c user.email=demo@example.org -c core.hooksPath=/dev/null \
	-c init.defaultBranch=main "$@"; }

rm -rf "$OUT"
mkdir -p "$OUT/repo"
cd "$OUT/repo"
g init -q .
g remote add origin https://github.com/example/parser.git
cat > kagari.yaml <<YAML
version: "1"
name: parser
defaults: {warmup: 1, runs: 3, metrics: {cpu: true}}
benchmarks:
  - name: parse
    commands:
      large: {command: "exec '$H' burn \$(cat cost.txt)", shell: true}
      small: {command: ["$H", "burn", "4"]}
YAML
subjects=("initial parser" "tokenizer: table-driven" "docs: grammar" "ci: cache builds"
	"fix: off-by-one in spans" "refactor: error type" "bump deps" "tests: fuzz corpus")
for i in $(seq 1 36); do
	cost=10
	[ "$i" -ge 24 ] && cost=12
	[ "$i" = 24 ] && msg="parser: validate UTF-8 on every token" || msg="${subjects[$((i % 8))]} ($i)"
	echo "$cost" > cost.txt
	echo "$i" > version.txt
	g add -A
	g commit -qm "$msg"
	"$K" run kagari.yaml --quiet >/dev/null
	if [ "$i" -gt 1 ]; then
		printf '{"ref": "refs/heads/main", "before": "%s", "after": "%s", "repository": {"default_branch": "main"}}\n' \
			"$(g rev-parse HEAD~1)" "$(g rev-parse HEAD)" > "$OUT/event.json"
		GITHUB_EVENT_NAME=push GITHUB_EVENT_PATH="$OUT/event.json" "$K" ci kagari.yaml --runs 15 \
			--quiet >/dev/null 2>&1 || true
	else
		"$K" run kagari.yaml --quiet >/dev/null
	fi
	# A second machine (a CI runner) measured every fourth commit.
	if [ $((i % 4)) = 0 ]; then
		KAGARI_MACHINE_ID=ci-runner-7 "$K" run kagari.yaml --quiet >/dev/null
	fi
done
"$K" history --format html --output "$OUT/site/"
"$K" history --metric cpu_total --format html --output "$OUT/site-cpu/"
echo "site: $OUT/site/index.html"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROMIUM" ]; then
	prof=$(mktemp -d)
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--no-first-run --disable-background-networking --user-data-dir="$prof" \
		--screenshot="$OUT/history-site.png" --window-size=1280,1300 \
		"file://$OUT/site-cpu/index.html" >/dev/null 2>&1
	rm -rf "$prof"
	echo "screenshot: $OUT/history-site.png"
fi
