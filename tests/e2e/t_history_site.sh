#!/bin/bash
# kagari history --format html --output DIR/: the trend site. Over a
# scripted repository (12 commits, a planted +25% step in allocation
# counts at commit 7 — exact, so nothing here depends on the machine's
# timing — one run on a second machine, a compare last) asserts what a
# user publishing it sees: DIR/index.html (and kagari's .kagari-site), self-contained
# (no script, no resource from anywhere, a strict Content-Security-Policy),
# one plot per series and machine, the step marked and linked at its
# commit with its subject, the last run's verdict, commit links from the
# origin remote without its token, --commit-url, an existing file as
# --output still one page, bad input refused (exit 3) with nothing
# written; then headless Chromium (as t_html.sh): no console message, every
# plot and point drawn, and a screenshot in $KAGARI_BUILD_DIR.
. "$(dirname "$0")/lib.sh"

git_sandbox
unset KAGARI_MACHINE_ID
OUTDIR=${KAGARI_BUILD_DIR:-$T}

suite() {
	cat > kagari.yaml <<YAML
version: "1"
name: s
defaults: {warmup: 0, runs: 2, metrics: {allocations: true, cpu: false}}
benchmarks:
  - name: "parse <&>"
    commands:
      m: {command: ["$H", "mallocs", "$1"]}
      same: {command: ["$H", "mallocs", "500"]}
YAML
}

R="$T/repo"
mkdir -p "$R"
cd "$R" || exit 1
g init -q .
g remote add origin "https://x-access-token:ghs_SECRET123@github.com/acme/parser.git"
SHAS=()
for i in $(seq 1 12); do
	n=1000
	[ "$i" -ge 7 ] && n=1250
	suite $n
	echo "$i" > i.txt
	g add -A && g commit -qm "c$i: <change> & \"more\""
	SHAS+=("$(g rev-parse HEAD)")
	"$KAGARI" run kagari.yaml --quiet >/dev/null 2>"$T/err" || fail "run $i: $(cat "$T/err")"
done
KAGARI_MACHINE_ID=elsewhere "$KAGARI" run kagari.yaml --quiet >/dev/null 2>&1 || fail "run elsewhere"
"$KAGARI" compare kagari.yaml --against HEAD~1 --quiet --format json --output "$T/cmp.json" >/dev/null 2>&1
[ -s "$T/cmp.json" ] || fail "compare wrote no report"
run_k history --metric allocs --format json
cp "$T/out" "$T/h.json"
NSERIES=$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["series"]))' "$T/h.json")
NPOINTS=$("$PY" -c 'import json,sys; print(sum(len(s["points"]) for s in json.load(open(sys.argv[1]))["series"]))' "$T/h.json")
[ "$NSERIES" = 4 ] || fail "expected 4 allocs series (2 commands, 2 machines), got $NSERIES"

case_ "a folder as --output gets index.html and .kagari-site, its parents made, nothing else"
run_k history --metric allocs --format html --output "$T/pub/deep/"
expect_rc 0
SITE="$T/pub/deep/index.html"
[ -s "$SITE" ] || fail "no $SITE"
[ "$(LC_ALL=C ls -A "$T/pub/deep" | tr '\n' ' ')" = ".kagari-site index.html " ] ||
	fail "the folder holds more than the page and kagari's marker: $(ls -A "$T/pub/deep")"
[ "$(grep -c '<svg class="trend"' "$SITE")" = "$NSERIES" ] ||
	fail "$(grep -c '<svg class="trend"' "$SITE") plots for $NSERIES series"

case_ "self-contained: no script, nothing loaded from anywhere, a strict CSP"
grep -qi '<script' "$SITE" && fail "a <script in the site"
grep -qiE '<(link|img|iframe|object|embed)|src=|url\(|@import' "$SITE" && fail "the site loads something"
grep -qF "content=\"default-src 'none'; style-src 'unsafe-inline'\"" "$SITE" || fail "no strict Content-Security-Policy"
grep -qF 'parse &lt;&amp;&gt;' "$SITE" || fail "the benchmark name is not escaped"
grep -qF 'c7: &lt;change&gt; &amp; &quot;more&quot;' "$SITE" || fail "the subject is not escaped"

case_ "the step is marked and linked at the commit that made it, the token never shown"
grep -q 'SECRET' "$SITE" && fail "the remote's token is on the page"
grep -q 'x-access-token' "$SITE" && fail "the remote's user is on the page"
grep -qF "<a href=\"https://github.com/acme/parser/commit/${SHAS[6]}\"><code>${SHAS[6]:0:10}</code></a> c7: " "$SITE" ||
	fail "the step does not link its commit with its subject"
grep -qF "+25.0% at ${SHAS[6]:0:10}" "$SITE" || fail "the plot does not mark the step at its commit"
grep -qF "the change is in ${SHAS[5]:0:10}..${SHAS[6]:0:10}" "$SITE" || fail "the step's range is not said"
[ "$(grep -c '<li class="step">' "$SITE")" = 1 ] || fail "expected exactly one step (the A/A command has none)"
[ "$(grep -o "href=\"https://github.com/acme/parser/commit/[0-9a-f]\{40\}\"" "$SITE" | wc -l)" -ge "$NPOINTS" ] ||
	fail "not every point links its commit"
grep -qF 'href="https://github.com/acme/parser"' "$SITE" || fail "no link to the repository"

case_ "machines told apart, the last run's verdict shown"
grep -q 'machine <code>[0-9a-f]\{16\}</code>.*(the machine that made this page)' "$SITE" || fail "this machine is not named"
[ "$(grep -c '^<li>machine <code>' "$SITE")" = 2 ] || fail "expected two machines listed"
# compare gates latency, not allocations: allocs shows the command's result
read -r V RES CH <<<"$("$PY" -c 'import json,sys; c=json.load(open(sys.argv[1]))["suites"][0]["benchmarks"][0]["commands"][0]; l=c["comparisons"]["latency"]; print(l["verdict"], c["result"], "%+.1f%%" % l["change_percent"])' "$T/cmp.json")"
grep -qF "Last run: compare of <code>${SHAS[11]:0:10}</code>" "$SITE" || fail "the last run (the compare) is not shown"
grep -qF ">$RES</span> <span class=\"dim\">(the command's result: allocs was not compared in that run)" "$SITE" ||
	fail "the compare's result '$RES' is not shown for allocs"
grep -qF 'Last run: run of' "$SITE" || fail "the other machine's last run (a run) is not shown"
run_k history --metric latency --format html --output "$T/lat/"
expect_rc 0
grep -qF "Last run: compare of <code>${SHAS[11]:0:10}</code>" "$T/lat/index.html" || fail "latency: no last run"
grep -qF ">$V</span> $CH [" "$T/lat/index.html" || fail "latency: the compare's verdict '$V $CH' is not shown"

case_ "--commit-url names the links; '' makes none, and says why"
run_k history --metric allocs --format html --output "$T/c1/" --commit-url 'https://git.example.org/p/c/{sha}?x=1&y={sha}'
expect_rc 0
grep -qF "href=\"https://git.example.org/p/c/${SHAS[6]}?x=1&amp;y=${SHAS[6]}\"" "$T/c1/index.html" || fail "--commit-url not used"
run_k history --metric allocs --format html --output "$T/c2/" --commit-url ''
expect_rc 0
grep -q '<a href="https://[^"]*/commit' "$T/c2/index.html" && fail "links despite --commit-url ''"
grep -qF 'Commits are not links: --commit-url is empty' "$T/c2/index.html" || fail "no reason for the missing links"

case_ "a GitLab remote (scp-like) links /-/commit/; another host links nothing"
g remote set-url origin git@gitlab.example.com:group/sub/parser.git
run_k history --metric allocs --format html --output "$T/gl/"
expect_rc 0
grep -qF "href=\"https://gitlab.example.com/group/sub/parser/-/commit/${SHAS[6]}\"" "$T/gl/index.html" || fail "no GitLab link"
g remote set-url origin /srv/git/parser.git
run_k history --metric allocs --format html --output "$T/none/"
expect_rc 0
grep -qF 'no origin remote on GitHub or GitLab to link to' "$T/none/index.html" || fail "no reason for the missing links"

case_ "an existing file as --output (or a new name) stays one page, as before"
echo old > "$T/one.html"
run_k history --metric allocs --format html --output "$T/one.html"
expect_rc 0
grep -q '<svg class="plot"' "$T/one.html" || fail "the single page was not written"
grep -q 'class="trend"' "$T/one.html" && fail "an existing file got the site"
run_k history --metric allocs --format html --output "$T/new.html"
expect_rc 0
[ -f "$T/new.html" ] || fail "a new name is not one file"

case_ "bad input: exit 3, nothing written"
run_k history --format json --output "$T/j/"
expect_rc 3
expect_err "--output '$T/j/' names a folder: only --format html writes a site into one"
[ ! -e "$T/j" ] || fail "a folder was made for json"
run_k history --format html --output "$T/x/" --commit-url 'javascript:alert(1)//{sha}'
expect_rc 3
expect_err "--commit-url 'javascript:alert(1)//{sha}' is not an http:// or https:// address"
run_k history --format html --output "$T/x/" --commit-url 'https://example.org/commit/'
expect_rc 3
expect_err "has no {sha}"
run_k history --format html --output "$T/x.html" --commit-url 'https://example.org/{sha}'
expect_rc 3
expect_err '--commit-url is for the site (--format html --output DIR/) and `history check`'
[ ! -e "$T/x" ] && [ ! -e "$T/x.html" ] || fail "a refused run wrote something"
echo keep > "$T/afile"
run_k history --format html --output "$T/afile/"
expect_rc 3
expect_err "--output '$T/afile/' names a folder, but it is a file"
[ "$(cat "$T/afile")" = keep ] || fail "the file was changed"

# ---- the browser -------------------------------------------------------------
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	case_ "headless Chromium"
	skip_part "needs Debian's chromium (scripts/deps.sh check installs it)" chromium
	finish
fi

case_ "headless Chromium: no console message, every plot and point drawn"
chrome --enable-logging=stderr --v=0 --virtual-time-budget=5000 --dump-dom \
	"file://$SITE" >"$T/dom.html" 2>"$T/chrome.err"
crc=$?
[ "$crc" -eq 0 ] || fail "chromium --dump-dom exited $crc: $(grep -v dbus "$T/chrome.err" | tail -5)"
if grep -E 'CONSOLE|Uncaught|Refused to|Content Security Policy' "$T/chrome.err" >"$T/console.txt"; then
	fail "console messages: $(head -5 "$T/console.txt")"
fi
"$PY" - "$T/dom.html" "$NSERIES" "$NPOINTS" <<'PYEOF' || fail "DOM check failed"
import sys
from html.parser import HTMLParser

dom, nseries, npoints = open(sys.argv[1], encoding="utf-8").read(), int(sys.argv[2]), int(sys.argv[3])

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.trend = self.circles = self.scripts = self.steps = self.polylines = 0
        self.text = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
        if tag == "svg" and a.get("class") == "trend":
            self.trend += 1
        if tag == "circle" and a.get("class") in ("pt", "off"):
            self.circles += 1
        if tag == "line" and a.get("class") == "step":
            self.steps += 1
        if tag == "polyline":
            self.polylines += 1
    def handle_data(self, d):
        self.text.append(d)

p = P()
p.feed(dom)
text = "".join(p.text)
errs = []
if p.scripts:
    errs.append("%d script elements" % p.scripts)
if p.trend != nseries:
    errs.append("%d plots in the DOM for %d series" % (p.trend, nseries))
if p.circles != npoints:
    errs.append("%d points drawn for %d in the JSON" % (p.circles, npoints))
if p.steps != 1:
    errs.append("%d step lines drawn, expected 1" % p.steps)
if p.polylines < 2:
    errs.append("the series' lines are not drawn")
for w in ("Overview", "Machines", "parse <&>", "noise of one run", "Last run"):
    if w not in text:
        errs.append("no %r on the page" % w)
if errs:
    sys.stderr.write("\n".join(errs) + "\n")
    sys.exit(1)
PYEOF

case_ "headless Chromium: screenshot"
SHOT="$OUTDIR/history-site-screenshot-$(basename "$KAGARI").png"
rm -f "$SHOT"
chrome --screenshot="$SHOT" --window-size=1100,1600 --hide-scrollbars "file://$SITE" >/dev/null 2>"$T/shot.err"
if [ -s "$SHOT" ] && [ "$(head -c 8 "$SHOT" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
	echo "t_history_site: screenshot written to $SHOT"
else
	fail "no PNG screenshot at $SHOT: $(grep -v dbus "$T/shot.err" | tail -3)"
fi

finish
