#!/bin/bash
# The HTML report in a real browser: `kagari compare --format html` on a git
# repository made here (one command slowed down on the head, names with
# <script>, quotes and ampersands), opened in headless Chromium (Debian's
# `chromium`, which `make check` installs through scripts/deps.sh; the test
# is skipped, exit 77, without it). Asserts that the
# page loads with no console message at all (it has no scripts; a
# Content-Security-Policy violation or an error would be logged there),
# that every comparison of the JSON report has its four plots in the
# rendered DOM, that user text is shown as text and never becomes markup,
# and writes a screenshot to $KAGARI_BUILD_DIR/report-screenshot-<kagari>.png.
. "$(dirname "$0")/lib.sh"

git_sandbox
OUTDIR=${KAGARI_BUILD_DIR:-$T}

# ---- the browser ----------------------------------------------------------
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] ||
	skip_test "t_html needs Debian's chromium (scripts/deps.sh check installs it)" chromium


# ---- a repository with a slower head ---------------------------------------
R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
echo 8 > fast.txt
echo 8 > slow.txt
cat > kagari.yaml <<YAML
version: "1"
name: "html & <suite>"
defaults:
  warmup: 0
  runs: 20
  runs_per_round: 2
  metrics: {cpu: true, memory: true}
  regression:
    latency: {max_percent: 10}
    peak_rss: {max_percent: 10}
benchmarks:
  - name: "<script>alert('x')</script> & \"quotes\""
    commands:
      steady:
        command: "'$H' burn \$(cat fast.txt)"
        shell: true
        budget: {latency: {max: "<= 10s"}}
      slowed:
        command: "'$H' burn \$(cat slow.txt)"
        shell: true
  - name: plain
    commands:
      sleeper: {command: ["$H", "sleep", "3"]}
YAML
g add -A && g commit -qm base
echo 14 > slow.txt   # the head burns 75% more CPU in "slowed"

case_ "compare --format json and html"
run_k compare --against HEAD --seed 11 --format json --output "$T/report.json"
[ "$RC" -le 1 ] || fail "compare --format json: exit $RC: $(tail -c 1500 "$T/err")"
run_k compare --against HEAD --seed 11 --format html --output "$T/report.html"
[ "$RC" -le 1 ] || fail "compare --format html: exit $RC: $(tail -c 1500 "$T/err")"
[ -s "$T/report.html" ] || { fail "no HTML report written"; finish; }
NCMP=$("$PY" -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(sum(len(c.get("comparisons", {})) for s in r["suites"] for b in s["benchmarks"] for c in b["commands"]))
' "$T/report.json")
[ "${NCMP:-0}" -ge 6 ] || fail "expected at least 6 comparisons in the JSON report, got '$NCMP'"
json_check "$T/report.json" 'all(len(m.get("bootstrap_quantiles", [])) == 101 for s in r["suites"] for b in s["benchmarks"] for c in b["commands"] for m in c.get("comparisons", {}).values())'

case_ "report re-renders the HTML from JSON, plots included"
CRC=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["exit_code"])' "$T/report.json")
run_k report "$T/report.json" --format html --output "$T/again.html"
expect_rc "$CRC"
[ "$(grep -o '<svg' "$T/again.html" | wc -l)" -eq $((4 * NCMP)) ] ||
	fail "re-rendered HTML: $(grep -o '<svg' "$T/again.html" | wc -l) plots for $NCMP comparisons"
[ "$(grep -o 'class="bar"' "$T/again.html" | wc -l)" -gt "$NCMP" ] ||
	fail "re-rendered HTML: the bootstrap histograms are missing"

case_ "the file is self-contained and escaped"
grep -qi '<script' "$T/report.html" && fail "a <script appears in the HTML file"
grep -qiE '(src|href)="?(https?:|//)|url\(|@import' "$T/report.html" && fail "the HTML refers to something outside the file"
grep -qF '&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quotes&quot;' "$T/report.html" ||
	fail "the benchmark name is not escaped as expected"
grep -qF 'html &amp; &lt;suite&gt;' "$T/report.html" || fail "the suite name is not escaped"

case_ "headless Chromium: DOM, console"
start=$(date +%s)
chrome --enable-logging=stderr --v=0 --virtual-time-budget=5000 --dump-dom \
	"file://$T/report.html" >"$T/dom.html" 2>"$T/chrome.err"
crc=$?
[ "$crc" -eq 0 ] || fail "chromium --dump-dom exited $crc: $(grep -v dbus "$T/chrome.err" | tail -5)"
# Console messages are logged as "INFO:CONSOLE(...)"; the page has no
# scripts, so any message at all (an error, a CSP violation "Refused to
# ...", "Uncaught ...") is a real problem. D-Bus, GPU and sandbox warnings
# of a headless machine are not about the page.
if grep -E 'CONSOLE|Uncaught|Refused to|Content Security Policy' "$T/chrome.err" >"$T/console.txt"; then
	fail "console messages: $(head -5 "$T/console.txt")"
fi
"$PY" - "$T/dom.html" "$NCMP" <<'PYEOF' || fail "DOM check failed"
import sys
from html.parser import HTMLParser

dom, ncmp = open(sys.argv[1], encoding="utf-8").read(), int(sys.argv[2])

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.svgs = 0
        self.scripts = 0
        self.cmp = []          # plots per comparison block
        self.depth_cmp = None  # div depth of the open comparison block
        self.divs = 0
        self.text = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
        if tag == "svg":
            self.svgs += 1
            if self.depth_cmp is not None:
                self.cmp[-1] += 1
        if tag == "div":
            self.divs += 1
            if a.get("class") == "cmp":
                self.cmp.append(0)
                self.depth_cmp = self.divs
    def handle_endtag(self, tag):
        if tag == "div":
            if self.depth_cmp == self.divs:
                self.depth_cmp = None
            self.divs -= 1
    def handle_data(self, d):
        self.text.append(d)

p = P()
p.feed(dom)
text = "".join(p.text)
errs = []
if p.scripts:
    errs.append("%d script elements in the DOM" % p.scripts)
if len(p.cmp) != ncmp:
    errs.append("%d comparison blocks in the DOM, %d comparisons in the JSON" % (len(p.cmp), ncmp))
if any(n != 4 for n in p.cmp):
    errs.append("plots per comparison: %s" % p.cmp)
if p.svgs != 4 * ncmp:
    errs.append("%d <svg> in the DOM, expected %d" % (p.svgs, 4 * ncmp))
# user text is shown as text
if "<script>alert('x')</script> & \"quotes\"" not in text:
    errs.append("the benchmark name is not shown as text")
if "html & <suite>" not in text:
    errs.append("the suite name is not shown as text")
for word in ("Summary", "Contents", "Environment", "seed"):
    if word not in text:
        errs.append("no %r on the page" % word)
if errs:
    sys.stderr.write("\n".join(errs) + "\n")
    sys.exit(1)
PYEOF

case_ "headless Chromium: screenshot"
# One file per kagari binary: the plain and the ASan run of this test run at
# the same time under CTest, and a shared name let one remove the other's.
SHOT="$OUTDIR/report-screenshot-$(basename "$KAGARI").png"
rm -f "$SHOT"
chrome --screenshot="$SHOT" --window-size=1280,2000 \
	--hide-scrollbars "file://$T/report.html" >/dev/null 2>"$T/shot.err"
crc=$?
[ "$crc" -eq 0 ] || fail "chromium --screenshot exited $crc: $(grep -v dbus "$T/shot.err" | tail -5)"
if [ -s "$SHOT" ] &&
	[ "$(head -c 8 "$SHOT" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
	echo "t_html: screenshot written to $SHOT"
else
	fail "no PNG screenshot at $SHOT"
fi
echo "t_html: chromium took $(($(date +%s) - start)) s"

finish
