#!/bin/bash
# Differential checks of kagari bench against the real hyperfine (issue
# 24): both run the same command lines (several commands, -n, -L twice,
# -P), and their exports must agree in what a script reads: the results
# in the same order, named the same, with the same parameters; the same
# fields with the same JSON types; the same CSV header and the same
# Markdown layout. Timings are never compared (two runs of anything
# differ); only structure and types. Needs Debian's hyperfine (1.15);
# scripts/deps.sh installs it for `make check`.
. "$(dirname "$0")/lib.sh"
command -v hyperfine >/dev/null 2>&1 ||
	skip_test "hyperfine is not installed (scripts/deps.sh check installs it)" hyperfine

# same NAME ARGS...: run hyperfine and kagari bench with the same ARGS,
# each writing the three exports to $T/NAME.{hf,kg}.{json,csv,md}.
same() {
	local name=$1
	shift
	hyperfine --style none "$@" --export-json "$T/$name.hf.json" \
		--export-csv "$T/$name.hf.csv" --export-markdown "$T/$name.hf.md" \
		>"$T/hf.out" 2>"$T/hf.err" || fail "hyperfine $*: $(cat "$T/hf.err")"
	run_k bench --style none "$@" --export-json "$T/$name.kg.json" \
		--export-csv "$T/$name.kg.csv" --export-markdown "$T/$name.kg.md"
	expect_rc 0
}

# compare NAME: the two tools' exports agree in structure and types.
compare() {
	"$PY" - "$T/$1" <<'PYEOF' || fail "kagari's exports differ from hyperfine's for: $CASE"
import csv, json, sys
p = sys.argv[1]
hf = json.load(open(p + ".hf.json"))
kg = json.load(open(p + ".kg.json"))
assert list(kg) == list(hf) == ["results"], (list(kg), list(hf))
H, K = hf["results"], kg["results"]
# the same commands, in the same order, with the same parameters
assert [x["command"] for x in K] == [x["command"] for x in H], ([x["command"] for x in K], [x["command"] for x in H])
assert [x.get("parameters") for x in K] == [x.get("parameters") for x in H], ([x.get("parameters") for x in K], [x.get("parameters") for x in H])
def kind(v):
    if v is None: return "null"
    if isinstance(v, bool): return "bool"
    if isinstance(v, (int, float)): return "number"
    if isinstance(v, str): return "string"
    if isinstance(v, list): return "list of " + ",".join(sorted({kind(x) for x in v}))
    if isinstance(v, dict): return "object of " + ",".join(sorted({kind(x) for x in v.values()}))
    return type(v).__name__
# newer hyperfine versions add memory_usage_byte; kagari writes it too
extra = {"memory_usage_byte"}
for h, k in zip(H, K):
    assert set(h) <= set(k) and set(k) - set(h) <= extra, (sorted(h), sorted(k))
    for f in h:
        assert kind(h[f]) == kind(k[f]), (h["command"], f, kind(h[f]), kind(k[f]))
    assert len(k["times"]) == len(k["exit_codes"]) == len(h["times"])
# CSV: the same header, the same first column
hc = list(csv.reader(open(p + ".hf.csv")))
kc = list(csv.reader(open(p + ".kg.csv")))
assert kc[0] == hc[0], (kc[0], hc[0])
assert [r[0] for r in kc[1:]] == [r[0] for r in hc[1:]], ([r[0] for r in kc], [r[0] for r in hc])
for r in kc[1:]:
    for v in r[1:8]:
        float(v)
# Markdown: the same header and alignment row, the same commands
hm = open(p + ".hf.md").read().splitlines()
km = open(p + ".kg.md").read().splitlines()
assert km[:2] == hm[:2], (km[:2], hm[:2])
cell = lambda line: line.split(" | ")[0]
assert [cell(l) for l in km[2:]] == [cell(l) for l in hm[2:]], (km, hm)
assert sum(l.endswith("| 1.00 |") for l in km[2:]) == 1, km
PYEOF
}

case_ "several commands: one result each, named as typed"
same many --runs 3 'sleep 0.01' 'sleep 0.02' 'sleep 0.03'
compare many
json_check "$T/many.kg.json" '[x["command"] for x in r["results"]] == ["sleep 0.01", "sleep 0.02", "sleep 0.03"]'

case_ "-n names the commands"
same names --runs 3 -n first -n second 'sleep 0.01' 'sleep 0.02'
compare names

case_ "-L twice: hyperfine's order of combinations and its parameters"
same lists --runs 2 -N -L n 1,2 -L m 1,3 'echo {n} {m}' 'printf {m}'
compare lists
json_check "$T/lists.kg.json" 'len(r["results"]) == 8 and r["results"][2]["parameters"] == {"m": "1", "n": "2"}'

case_ "-P scans with -D, -N without a shell"
same scan --runs 2 -N -P ms 1 5 -D 2 'sleep 0.00{ms}'
compare scan
same scanf --runs 2 -N -P x 0 1 -D 0.5 'echo {x}'
compare scanf

case_ "-i: the real exit codes, as hyperfine records them"
same fails --runs 2 -i 'sleep 0.002; exit 3' 'sleep 0.002'
compare fails
"$PY" - "$T/fails" <<'PYEOF' || fail "exit codes differ from hyperfine's"
import json, sys
h = json.load(open(sys.argv[1] + ".hf.json"))["results"]
k = json.load(open(sys.argv[1] + ".kg.json"))["results"]
assert [x["exit_codes"] for x in k] == [x["exit_codes"] for x in h] == [[3, 3], [0, 0]], ([x["exit_codes"] for x in k], [x["exit_codes"] for x in h])
PYEOF
finish
