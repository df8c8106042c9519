#!/bin/bash
# bench/sensitivity: the founding article's experiment, for the sequential
# design (issue 16). How often does `kagari compare` find a known slowdown,
# how often does it cry wolf on an unchanged program, and how many runs and
# how much time does it take — `runs: auto` (sequential rounds) beside
# `runs: 20` (the fixed design), quiet and under a CPU hog.
#
#   bash bench/sensitivity.sh [BUILD-DIR]      (default: the repository's build/)
#
# Full measurement (both designs, both conditions, every cell, 10 compares
# each = 200 compares); run it twice, an hour apart, the second time with
# PREVIOUS set so that the targets count both sessions:
#
#   OUT=/tmp/sens-1 bash bench/sensitivity.sh
#   OUT=/tmp/sens-2 PREVIOUS=/tmp/sens-1 bash bench/sensitivity.sh
#
# Duration, estimated from tiny runs on this 2-CPU VM (load average 3.5-6
# from other jobs): a `runs: auto` A/A compare that ran to the cap (100 runs
# per side) took 8.5 s at SIZE=3000 (~29 ms a run); under the two-loop hog
# at SIZE=2000, `runs: auto` to the cap 19.7 s and `runs: 20` 4.0 s, builds
# included. At SIZE=7000 (~40-50 ms a run quiet, about twice that under the
# hog): quiet ~100 compares x 3-12 s = 10-15 min, hog ~100 compares x 5-25 s
# = 20-30 min, so about 30-45 min per session.
#
# A partial run: CELLS="aa,5at3" DESIGNS="auto" CONDITIONS="quiet" REPS=2.
#
# Workload: the demo's sort.c (examples/demo) with -DSIZE (SIZE, default
# 7000: ~40 ms a run) and -DSLOWDOWN=N: exactly N% more work. It lives in a
# git repository made in a temporary folder: the base commit has
# slowdown.txt = 0, the head (the working tree) has N; kagari builds both.
#
# Cells (CELLS, comma-separated; default all five): aa = A/A at T=2,
# 3at2 = +3% at T=2, 5at3 = +5% at T=3, 10at3 = +10% at T=3, 20at10 = +20% at
# T=10 (any NatT works). T is the gated metric's max_percent. By default
# latency is the only gated metric and cpu_total is measured and compared
# but does not gate (what the issue recommends for shared runners to
# report), so a latency left unresolved under load can name it in its
# reason; GATE=cpu_total swaps the two.
# Designs (DESIGNS: "auto,20"): `runs: auto` (max_runs MAX_RUNS, default
# 200 = 200 single-run pairs) and `runs: 20`. Conditions (CONDITIONS: "quiet,hog"):
# hog = HOG_PROCS (default: nproc) C busy loops started before and stopped
# after that condition's compares.
# Per condition, the repetitions are the outer loop and cells x designs the
# inner one, so a slow spell of the machine spreads over all cells.
#
# Output (stdout): per condition and design a table of verdict counts
# (regression/improved/pass/inconclusive/within_noise), mean runs per side
# and mean wall time per compare (kagari's own time, builds included); the
# machine's per-round noise during the session (how quiet "quiet" was) and
# the hypervisor's steal during the compares (environment.steal_percent); then
# a line per target of issue 16. Progress (one line per compare, with an
# ETA) goes to stderr. JSON reports and verdicts.tsv are kept in OUT.
# REPORT=1 OUT=DIR prints the tables of a finished run again.
#
# Environment: REPS (10), CELLS, DESIGNS, CONDITIONS, SIZE (7000), SEED (1),
# MAX_RUNS (200, the default), HOG_PROCS (nproc), CC (cc), OUT (new /tmp folder),
# PREVIOUS (an earlier session's OUT: its compares count in the targets),
# GATE (latency; cpu_total swaps the roles: cpu_total gated at T, latency
# reported — the suite docs/suite.md recommends for shared runners, whose
# CPU time leaves out the time the hypervisor or other processes took).
#
# The fixed design's pairing x tolerance grid (the previous experiment) is
# bench/sensitivity/pairing.sh.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
. "$here/sensitivity/common.sh"
build=${1:-$root/build}
reps=${REPS:-10}
size=${SIZE:-7000}
seed0=${SEED:-1}
max_runs=${MAX_RUNS:-200}
hog_procs=${HOG_PROCS:-$(nproc)}
cc=${CC:-cc}
gate=${GATE:-latency}
case $gate in
latency) other=cpu_total ;;
cpu_total) other=latency ;;
*) echo "sensitivity: GATE must be latency or cpu_total" >&2; exit 3 ;;
esac
IFS=, read -r -a cells <<< "${CELLS:-aa,3at2,5at3,10at3,20at10}"
IFS=, read -r -a designs <<< "${DESIGNS:-auto,20}"
IFS=, read -r -a conditions <<< "${CONDITIONS:-quiet,hog}"
kagari=$(cd "$build" 2>/dev/null && pwd)/kagari || kagari=
command -v jq >/dev/null || { echo "sensitivity: jq is needed" >&2; exit 3; }
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/kagari-sensitivity-XXXXXX")}
mkdir -p "$out/json"
out=$(cd "$out" && pwd)
tsv=$out/verdicts.tsv

# cell NAME -> "SLOWDOWN T"
cell_params() {
	case $1 in
	aa) echo "0 2" ;;
	*at*) echo "${1%%at*} ${1#*at}" ;;
	*) echo "sensitivity: bad cell '$1' (aa or NatT, e.g. 5at3)" >&2; exit 3 ;;
	esac
}
for c in "${cells[@]}"; do cell_params "$c" >/dev/null; done
for d in "${designs[@]}"; do
	case $d in auto | [0-9]*) ;; *) echo "sensitivity: bad design '$d' (auto or a run count)" >&2; exit 3 ;; esac
done
for c in "${conditions[@]}"; do
	case $c in quiet | hog) ;; *) echo "sensitivity: bad condition '$c' (quiet, hog)" >&2; exit 3 ;; esac
done

if [ "${REPORT:-0}" = 0 ]; then
if [ ! -x "$kagari" ]; then
	echo "sensitivity: no kagari binary in '$build' (build it: make)" >&2
	exit 3
fi
sens_workspace

# ---- the repository ---------------------------------------------------------

repo=$work/repo
sens_repo "$repo" "$size" "$cc"
ts=$(for c in "${cells[@]}"; do set -- $(cell_params "$c"); echo "$2"; done | sort -un)
for T in $ts; do
	for d in "${designs[@]}"; do
		if [ "$d" = auto ]; then runs="runs: auto
  max_runs: $max_runs"; else runs="runs: $d"; fi
		cat > "$repo/T$T-$d.yaml" <<YAML
version: "1"
name: sensitivity-T$T-$d
build:
  command: "$cc -O2 -DSIZE=$size -DSLOWDOWN=\$(cat slowdown.txt) -o \${artifact} sort.c"
  shell: true
defaults:
  warmup: 1
  $runs
  metrics: {cpu: true, memory: false, counters: false, allocations: false}
  regression: {$gate: {max_percent: $T}}
benchmarks:
  - name: sort
    commands:
      sort:
        command: ["\${artifact}"]
YAML
	done
done
sens_commit "$repo"
sens_tools "$repo"

# ---- measuring --------------------------------------------------------------

[ -s "$tsv" ] || printf 'condition\tdesign\tcell\tslowdown\tT\trep\tseed\tverdict\tchange\trounds\truns_per_side\tseconds\tother_verdict\tnames_resolving\treason\tsteal_percent\n' > "$tsv"
total=$(( reps * ${#cells[@]} * ${#designs[@]} * ${#conditions[@]} ))
done_n=0
start=$(date +%s)

one_compare() { # condition design cell rep
	local cond=$1 d=$2 cell=$3 rep=$4 sd T seed rc=0 t0 t1 json line
	set -- $(cell_params "$cell"); sd=$1; T=$2
	seed=$(( seed0 + rep - 1 ))
	json=$out/json/$cond-$d-$cell-r$rep.json
	echo "$sd" > "$repo/slowdown.txt"
	t0=$(date +%s%N)
	(cd "$repo" && "$kagari" compare --against HEAD --quiet --no-color \
		--seed "$seed" --format json --output "$json" "T$T-$d.yaml" \
		2>"$json.stderr") || rc=$?
	t1=$(date +%s%N)
	if [ "$rc" -gt 1 ] || [ ! -s "$json" ]; then
		line="error	nan	nan	0	nan	-	exit $rc: $(tail -n 1 "$json.stderr")"
	else
		# names_resolving: when the gated metric (latency unless GATE
		# says otherwise; "the other" is cpu_total, or latency when
		# cpu_total gates) cannot resolve T (undecided, with
		# its noise floor or interval wider than T) and the other can (its
		# interval wholly above T, below -T or within +-T, its floor below
		# T), does the gated metric's reason name it? (1/0; "-" when the
		# question does not arise)
		line=$(jq -r --arg g "$gate" --arg o "$other" '.suites[0].benchmarks[0].commands[0]
			| .comparisons[$g] as $l | .comparisons[$o] as $c | $l.max_percent as $t
			| (($l.verdict == "inconclusive" or $l.verdict == "within_noise")
			   and (($l.noise_floor_percent // 0) > $t
			        or ($l.ci_high_percent - $l.ci_low_percent) > $t)) as $open
			| ($c != null and $c.ci_low_percent != null and ($c.noise_floor_percent // 0) < $t
			   and ($c.ci_low_percent > $t or $c.ci_high_percent < -$t
			        or ($c.ci_low_percent > -$t and $c.ci_high_percent < $t))) as $cres
			| [$l.verdict, $l.change_percent, .rounds, .head.count,
			   ($c.verdict // "nan"),
			   (if $open and $cres then (if ($l.reason | contains($o)) then 1 else 0 end) else "-" end),
			   (($l.reason // "") | gsub("[\t\n]"; " "))]
			| map(if . == null then "nan" else tostring end) | @tsv' "$json")
	fi
	local secs steal=nan
	[ -s "$json" ] && steal=$(jq -r '.environment.steal_percent // "nan"' "$json" 2>/dev/null || echo nan)
	secs=$(printf '%d.%03d' $(( (t1 - t0) / 1000000000 )) $(( (t1 - t0) / 1000000 % 1000 )))
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$cond" "$d" "$cell" "$sd" "$T" "$rep" "$seed" \
		"$(echo "$line" | cut -f1-4)" "$secs" "$(echo "$line" | cut -f5-)" "$steal" >> "$tsv"
	done_n=$(( done_n + 1 ))
	local el=$(( $(date +%s) - start ))
	printf '[%d/%d] %-5s runs:%-4s %-6s rep %2d  %-12s %+6.2f%%  %3s runs/side  %6ss  elapsed %s, eta %s\n' \
		"$done_n" "$total" "$cond" "$d" "$cell" "$rep" "$(echo "$line" | cut -f1)" \
		"$(echo "$line" | cut -f2 | sed 's/nan/0/')" "$(echo "$line" | cut -f4)" "$secs" \
		"$(fmt_s "$el")" "$(fmt_s $(( el * (total - done_n) / done_n )))" >&2
}

echo "sensitivity: $total compares (one run ~${run_ms} ms); results in $out" >&2
loads=""
for cond in "${conditions[@]}"; do
	if [ "$cond" = hog ]; then start_hog "$hog_procs"; fi
	for rep in $(seq "$reps"); do
		for cell in "${cells[@]}"; do
			for d in "${designs[@]}"; do
				one_compare "$cond" "$d" "$cell" "$rep"
			done
		done
	done
	stop_hog
	loads="$loads $cond: $(cut -d' ' -f1-3 /proc/loadavg);"
done
echo 0 > "$repo/slowdown.txt"
elapsed=$(( $(date +%s) - start ))
cat > "$out/header.txt" <<EOF
kagari sensitivity (sequential design): $(uname -m), $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
started $(date -d "@$start" '+%Y-%m-%d %H:%M'); workload demo sort.c SIZE=$size (one run ~${run_ms} ms), warm-up 1, $gate gated at T, $other reported; hog: $hog_procs busy loops
load average after each condition:$loads
runtime: $(fmt_s "$elapsed") for $total compares
EOF
fi

# ---- tables -----------------------------------------------------------------

[ -s "$tsv" ] || { echo "sensitivity: no results in '$tsv'" >&2; exit 4; }
cat "$out/header.txt" 2>/dev/null || echo "kagari sensitivity: re-tabulated from $out"

awk -F'\t' '
NR > 1 {
	k = $1 SUBSEP $2
	if (!(k in seenk)) { seenk[k] = 1; keys[++nk] = k }
	c = $3
	if (!((k, c) in seenc)) { seenc[k, c] = 1; cl[k, ++ncl[k]] = c }
	n[k, c]++; v[k, c, $8]++; runs[k, c] += $11; secs[k, c] += $12
}
END {
	split("regression improved pass inconclusive within_noise error", vs, " ")
	for (i = 1; i <= nk; i++) {
		split(keys[i], q, SUBSEP)
		printf "\n== %s, runs: %s ==\n", q[1], q[2]
		printf "%-7s %3s | %4s %4s %4s %4s %4s %4s | %9s | %8s\n", "cell", "n", "reg", "imp", "pass", "inc", "wn", "err", "runs/side", "wall s"
		for (j = 1; j <= ncl[keys[i]]; j++) {
			c = cl[keys[i], j]; k = keys[i]
			printf "%-7s %3d |", c, n[k, c]
			for (o = 1; o <= 6; o++) printf " %4d", v[k, c, vs[o]]
			printf " | %9.1f | %8.1f\n", runs[k, c] / n[k, c], secs[k, c] / n[k, c]
		}
	}
}' "$tsv"

# How quiet was "quiet"? Per compare, the spread of the per-round gated-metric
# log-ratios ln(head mean / base mean) around their median (MAD x 1.4826,
# in %), and the share of rounds more than 10% off that median; then per
# condition the median and range over its compares. The effect shifts ln r
# but not its spread, so every cell counts.
echo
gate=$(sed -n 's/.*, \([a-z_]*\) gated at T.*/\1/p' "$out/header.txt" 2>/dev/null || true)
gate=${gate:-${GATE:-latency}}
echo "== per-round noise of $gate (spread of ln r within a compare) =="
for f in "$out"/json/*.json; do
	[ -s "$f" ] || continue
	c=$(basename "$f"); c=${c%%-*}
	jq -r --arg c "$c" --arg g "$gate" '.suites[0].benchmarks[0].commands[0]
		| (.base.metrics[$g].samples // []) as $bs | (.head.metrics[$g].samples // []) as $hs
		| ($bs | group_by(.round) | map({key: (.[0].round | tostring), value: (map(.value) | add / length)}) | from_entries) as $b
		| ($hs | group_by(.round) | map({key: (.[0].round | tostring), value: (map(.value) | add / length)}) | from_entries) as $h
		| [$b | keys[] | select($h[.] != null and $b[.] > 0) | ($h[.] / $b[.]) | log] | sort
		| select(length >= 5)
		| length as $n | .[($n / 2 | floor)] as $m
		| (map(. - $m | fabs) | sort) as $dev
		| [$c, $dev[($n / 2 | floor)] * 1.4826 * 100, ($dev | map(select(. > 0.1)) | length) / $n * 100] | @tsv' "$f"
done | sort -k1,1 -k2,2n | awk -F'\t' '
{ c = $1; if (!(c in n)) order[++nc] = c; n[c]++; mad[c, n[c]] = $2; off[c] += $3 }
END {
	for (i = 1; i <= nc; i++) {
		c = order[i]
		printf "%-6s %3d compares: MAD median %.1f%% (%.1f%% to %.1f%%); rounds more than 10%% off: %.1f%%\n", c, n[c], mad[c, int((n[c] + 1) / 2)], mad[c, 1], mad[c, n[c]], off[c] / n[c]
	}
}'
# The hypervisor's steal during each compare (environment.steal_percent,
# kagari 57c1601 and later): the machine's share of the noise no design can
# remove from wall time.
awk -F'\t' 'NR > 1 && $16 != "" && $16 != "nan" { print $1 "\t" $16 }' "$tsv" | sort -k1,1 -k2,2n | awk -F'\t' '
{ c = $1; if (!(c in n)) order[++nc] = c; n[c]++; v[c, n[c]] = $2 }
END {
	for (i = 1; i <= nc; i++) {
		c = order[i]
		printf "%-6s %3d compares: hypervisor steal median %.1f%% (%.1f%% to %.1f%%)\n", c, n[c], v[c, int((n[c] + 1) / 2)], v[c, 1], v[c, n[c]]
	}
}'

echo
echo "== targets (issue 16) =="
prev_tsv=
if [ -n "${PREVIOUS:-}" ]; then
	prev_tsv=$PREVIOUS/verdicts.tsv
	[ -s "$prev_tsv" ] || { echo "sensitivity: PREVIOUS has no verdicts.tsv" >&2; exit 4; }
	echo "(counting this session and $PREVIOUS)"
fi
awk -F'\t' '
FNR > 1 {
	k = $1 SUBSEP $2 SUBSEP $3
	n[k]++; v[k, $8]++; runs[k] += $11
	if ($14 != "-") { open[$1 SUBSEP $2]++; named[$1 SUBSEP $2] += $14 }
	if ($8 == "regression" && $4 == 0) falsereg[$1 SUBSEP $2]++
	if ($4 == 0) aa[$1 SUBSEP $2]++
	have[$1 SUBSEP $2] = 1
}
function line(ok, text) { printf "%s  %s\n", ok ? "ok  " : "MISS", text }
function found(cond, d, cell, need_share,   k, f, t) {
	k = cond SUBSEP d SUBSEP cell
	if (!(k in n)) return
	f = v[k, "regression"]; t = n[k]
	line(f >= need_share * t, sprintf("%s runs:%s %s found %d/%d (target >= %d/%d across two sessions)", cond, d, cell, f, t, 19, 20))
}
END {
	for (cd in have) {
		split(cd, q, SUBSEP)
		if (aa[cd]) line(!falsereg[cd], sprintf("%s runs:%s A/A: %d false regressions in %d", q[1], q[2], falsereg[cd], aa[cd]))
	}
	found("quiet", "auto", "3at2", 0.95)
	found("quiet", "auto", "5at3", 0.95)
	k = "quiet" SUBSEP "auto" SUBSEP "20at10"
	if (k in n) line(runs[k] / n[k] <= 16, sprintf("quiet runs:auto +20%% T=10 decided in %.1f runs per side on average (target <= 16); %d/%d regression", runs[k] / n[k], v[k, "regression"], n[k]))
	k = "quiet" SUBSEP "auto" SUBSEP "aa"
	if (k in n) line(runs[k] / n[k] <= 24 && v[k, "pass"] == n[k], sprintf("quiet runs:auto A/A pass %d/%d, %.1f runs per side on average (target: pass, <= 24)", v[k, "pass"], n[k], runs[k] / n[k]))
	for (cd in have) {
		split(cd, q, SUBSEP)
		if (q[1] != "hog") continue
		line(open[cd] == named[cd], sprintf("hog runs:%s: the gated metric unresolved while the other resolved in %d compares; the reason names it in %d", q[2], open[cd] + 0, named[cd] + 0))
	}
}' $prev_tsv "$tsv" | sort -k2

echo
echo "raw results: $tsv and $out/json/"
