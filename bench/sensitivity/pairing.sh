#!/bin/bash
# bench/sensitivity/pairing: the founding article's experiment on this
# machine, fixed design, pairing x tolerance grid (the sequential design's
# measurement is bench/sensitivity.sh). How often does `kagari compare` call
# a known slowdown a regression, and how often does it call an unchanged
# program one?
#
#   bash bench/sensitivity/pairing.sh [BUILD-DIR]  (default: the repository's build/)
#   REPS=3 bash bench/sensitivity/pairing.sh       (a quicker, rougher pass)
#
# Workload: the demo's sort.c (examples/demo), with its array size made a -D
# (SIZE, default here 7000 instead of 20,000) so one run takes ~40 ms. The
# number of rounds stays 100: SLOWDOWN=N adds exactly N whole rounds, so +2%
# is exactly 2% more work (fewer base rounds would round 5% down to 4%).
# It lives in a git repository made in a temporary folder: the base commit
# has slowdown.txt = 0, the head (the working tree, uncommitted) has N.
#
# For every slowdown N in SLOWDOWNS and every cell pairing x max_percent
# (rounds|independent x 10|3), REPS compares, each `runs: 20` (ten rounds of
# two, warm-up 1) with `--seed SEED+rep`. The repetitions are the outer loop,
# so every cell's repetitions are spread over the whole experiment and a
# slow spell of the machine cannot land on one cell only. Then the same for
# HOG_SLOWDOWNS with a CPU hog (a C busy loop, one per HOG_PROCS) running in
# the background for the duration of that phase.
#
# Holm: kagari corrects across every gated comparison of the run. Here only
# latency is compared: the suites set `metrics: {cpu: false, memory: false,
# counters: false, allocations: false}`, so latency is the only metric
# measured and the Holm family has one member (p_adjusted = p_value).
#
# Output (stdout): per phase a verdict table (rows = slowdown, columns =
# pairing x max_percent; "9/10 reg" then the other verdicts' counts), a
# table of median measured change and median noise floor per cell, and a
# check against the targets. Then bench/analysis (the engine's own cost).
# Progress, one line per compare with an ETA, goes to stderr. Every JSON
# report and a TSV of all verdicts are kept in OUT (printed at the end).
#
# Environment: REPS (10), SLOWDOWNS ("0 2 5 10 20"), HOG_SLOWDOWNS ("0 5";
# empty skips the hog phase), HOG_PROCS (1), SIZE (7000), RUNS (20),
# SEED (1), OUT (a new /tmp/kagari-sensitivity-XXXXXX), ANALYSIS (1; 0 skips
# bench/analysis), CC (cc), CELLS (comma-separated "PAIRING T" cells;
# default "rounds 10,rounds 3,independent 10,independent 3"), METRIC
# (latency; cpu_total gates CPU time instead: cpu on, latency gate: false,
# so the Holm family is again one comparison).
#
# A second opinion on a finished run (independent re-derivation of every
# verdict from the raw samples, noise per repetition, why slowdowns were
# missed, both pairings on the same measurements):
#   /usr/bin/python3 bench/sensitivity/reanalyse.py OUT [METRIC]
#
# REPORT=1 OUT=DIR bash bench/sensitivity/pairing.sh prints the tables of a finished
# (or interrupted) run again without measuring.
#
# Targets: zero false regressions in every A/A cell; +5% found in >= 9/10 at
# max_percent 3 with pairing: rounds; paired no worse than independent in
# any cell (fewer false regressions at 0%, no fewer detections above T).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/.." && pwd)
. "$here/sensitivity/common.sh"
build=${1:-$root/build}
reps=${REPS:-10}
slowdowns=${SLOWDOWNS:-0 2 5 10 20}
hog_slowdowns=${HOG_SLOWDOWNS-0 5}
hog_procs=${HOG_PROCS:-1}
size=${SIZE:-7000}
runs=${RUNS:-20}
seed0=${SEED:-1}
cc=${CC:-cc}
kagari=$(cd "$build" 2>/dev/null && pwd)/kagari || kagari=
if [ ! -x "$kagari" ]; then
	echo "sensitivity: no kagari binary in '$build' (build it: ninja -C $build)" >&2
	exit 3
fi
command -v jq >/dev/null || { echo "sensitivity: jq is needed (apt-get install -y jq)" >&2; exit 3; }
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/kagari-sensitivity-XXXXXX")}
mkdir -p "$out/json"
out=$(cd "$out" && pwd)
tsv=$out/verdicts.tsv
sens_workspace

metric=${METRIC:-latency}
case $metric in
latency) metrics="{cpu: false, memory: false, counters: false, allocations: false}"
	gates="" ;;
cpu_total) metrics="{cpu: true, memory: false, counters: false, allocations: false}"
	gates="latency: {gate: false}, " ;;
*) echo "sensitivity: METRIC must be latency or cpu_total" >&2; exit 3 ;;
esac
IFS=, read -r -a cells <<< "${CELLS:-rounds 10,rounds 3,independent 10,independent 3}"

if [ "${REPORT:-0}" = 0 ]; then
# ---- the repository ---------------------------------------------------------

repo=$work/repo
# The demo's sort.c takes SIZE as a macro (-DSIZE=...).
sens_repo "$repo" "$size" "$cc"
for cell in "${cells[@]}"; do
	set -- $cell
	cat > "$repo/$1-$2.yaml" <<YAML
version: "1"
name: sensitivity-$1-$2
build:
  command: "$cc -O2 -DSIZE=$size -DSLOWDOWN=\$(cat slowdown.txt) -o \${artifact} sort.c"
  shell: true
defaults:
  warmup: 1
  runs: $runs
  metrics: $metrics
  regression: {pairing: $1, ${gates}$metric: {max_percent: $2}}
benchmarks:
  - name: sort
    commands:
      sort:
        command: ["\${artifact}"]
YAML
done
sens_commit "$repo"
sens_tools "$repo"

# ---- measuring --------------------------------------------------------------

printf 'phase\tslowdown\tpairing\tmax_percent\trep\tseed\tverdict\tchange\tci_low\tci_high\tp\tnoise_floor\tdropped\tseconds\treason\n' > "$tsv"

n_quiet=$(( reps * $(echo $slowdowns | wc -w) * ${#cells[@]} ))
n_hog=$(( reps * $(echo $hog_slowdowns | wc -w) * ${#cells[@]} ))
total=$(( n_quiet + n_hog ))
done_n=0
start=$(date +%s)

one_compare() { # phase slowdown pairing T rep
	local phase=$1 sd=$2 pairing=$3 T=$4 rep=$5 seed rc=0 t0 t1 json line
	seed=$(( seed0 + rep - 1 ))
	json=$out/json/$phase-s$sd-$pairing-T$T-r$rep.json
	echo "$sd" > "$repo/slowdown.txt"
	t0=$(date +%s%N)
	(cd "$repo" && "$kagari" compare --against HEAD --quiet --no-color \
		--seed "$seed" --format json --output "$json" "$pairing-$T.yaml" \
		2>"$json.stderr") || rc=$?
	t1=$(date +%s%N)
	if [ "$rc" -gt 1 ] || [ ! -s "$json" ]; then
		line="error	nan	nan	nan	nan	nan	0	exit $rc: $(tail -n 1 "$json.stderr")"
	else
		line=$(jq -r '.suites[0].benchmarks[0].commands[0].comparisons[$m]
			| [.verdict, .change_percent, .ci_low_percent, .ci_high_percent,
			   .p_value, .noise_floor_percent, (.dropped_rounds // [] | length),
			   .reason] | map(if . == null then "nan" else tostring end) | @tsv' --arg m "$metric" "$json")
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s.%03d\t%s\n' "$phase" "$sd" "$pairing" "$T" \
		"$rep" "$seed" "$(echo "$line" | cut -f1-7)" "$(( (t1 - t0) / 1000000000 ))" \
		"$(( (t1 - t0) / 1000000 % 1000 ))" "$(echo "$line" | cut -f8-)" >> "$tsv"
	done_n=$(( done_n + 1 ))
	local el=$(( $(date +%s) - start ))
	local eta=$(( el * (total - done_n) / done_n ))
	printf '[%d/%d] %-5s %-4s %-11s T=%-2s rep %2d seed %-3d %-12s %+6.2f%% F=%5.2f%%  %4.1fs  elapsed %s, eta %s\n' \
		"$done_n" "$total" "$phase" "+$sd%" "$pairing" "$T" "$rep" "$seed" \
		"$(echo "$line" | cut -f1)" "$(echo "$line" | cut -f2 | sed 's/nan/0/')" \
		"$(echo "$line" | cut -f6 | sed 's/nan/0/')" \
		"$(( (t1 - t0) / 1000000 ))e-3" "$(fmt_s "$el")" "$(fmt_s "$eta")" >&2
}

run_phase() { # phase "slowdowns"
	local phase=$1 sds=$2 rep sd cell
	for rep in $(seq "$reps"); do
		for sd in $sds; do
			for cell in "${cells[@]}"; do
				set -- $cell
				one_compare "$phase" "$sd" "$1" "$2" "$rep"
			done
		done
	done
}

echo "sensitivity: $total compares (~$(( run_ms * (2 * runs + 4) * total / 1000 / 60 + 1 )) min at ${run_ms} ms per run); results in $out" >&2
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
run_phase quiet "$slowdowns"
load_mid=$(cut -d' ' -f1-3 /proc/loadavg)
if [ -n "$hog_slowdowns" ]; then
	start_hog "$hog_procs"
	run_phase hog "$hog_slowdowns"
	stop_hog
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
echo 0 > "$repo/slowdown.txt"
elapsed=$(( $(date +%s) - start ))
echo "$metric" > "$out/metric"
cat > "$out/header.txt" <<EOF
kagari sensitivity: $(uname -m), $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
workload: demo sort.c, SIZE=$size (one run ~${run_ms} ms), runs: $runs (rounds of 2, warm-up 1), gated metric $metric only, $reps compares per cell
load average: before $load_before, after the quiet phase $load_mid, at the end $load_after
runtime: $(fmt_s "$elapsed") for $total compares
EOF
fi

# ---- tables -----------------------------------------------------------------

if [ ! -s "$tsv" ]; then
	echo "sensitivity: no results in '$tsv'" >&2
	exit 4
fi
cat "$out/header.txt" 2>/dev/null || echo "kagari sensitivity: re-tabulated from $out"
if [ -s "$out/metric" ]; then metric=$(cat "$out/metric"); fi

tables() { # phase title
	local phase=$1
	echo
	echo "== $2: verdicts of the $metric comparison (reg = regression, imp = improved, inc = inconclusive, wn = within_noise) =="
	awk -F'\t' -v phase="$phase" -v cols_list="$cols_list" '
	NR > 1 && $1 == phase {
		col = $3 " T=" $4; k = $2 SUBSEP col
		n[k]++; v[k, $7]++; sd[$2] = 1; cols[col] = 1
	}
	END {
		nc = split(cols_list, c, "|")
		split("pass improved inconclusive within_noise error", other, " ")
		split("pass imp inc wn err", abbr, " ")
		printf "%-9s", "slowdown"
		for (i = 1; i <= nc; i++) printf " | %-26s", c[i]
		printf "\n"
		ns = 0; for (s in sd) list[++ns] = s + 0
		for (i = 1; i <= ns; i++) for (j = i + 1; j <= ns; j++)
			if (list[j] < list[i]) { t = list[i]; list[i] = list[j]; list[j] = t }
		for (i = 1; i <= ns; i++) {
			printf "%-9s", "+" list[i] "%"
			for (j = 1; j <= nc; j++) {
				k = list[i] SUBSEP c[j]
				cell = sprintf("%d/%d reg", v[k, "regression"], n[k])
				for (o = 1; o <= 5; o++)
					if (v[k, other[o]]) cell = cell sprintf(" %d %s", v[k, other[o]], abbr[o])
				printf " | %-26s", cell
			}
			printf "\n"
		}
	}' "$tsv"
	echo
	echo "== $2: median measured change / median noise floor F (percent) =="
	awk -F'\t' -v phase="$phase" -v cols_list="$cols_list" '
	function med(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		if (!n) return "nan"
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	NR > 1 && $1 == phase && $8 != "nan" {
		k = $2 SUBSEP $3 " T=" $4
		ch[k] = ch[k] " " $8; fl[k] = fl[k] " " $12; sd[$2] = 1
	}
	END {
		nc = split(cols_list, c, "|")
		printf "%-9s", "slowdown"
		for (i = 1; i <= nc; i++) printf " | %-18s", c[i]
		printf "\n"
		ns = 0; for (s in sd) list[++ns] = s + 0
		for (i = 1; i <= ns; i++) for (j = i + 1; j <= ns; j++)
			if (list[j] < list[i]) { t = list[i]; list[i] = list[j]; list[j] = t }
		for (i = 1; i <= ns; i++) {
			printf "%-9s", "+" list[i] "%"
			for (j = 1; j <= nc; j++) {
				k = list[i] SUBSEP c[j]
				printf " | %+6.2f / %5.2f     ", med(ch[k]), med(fl[k])
			}
			printf "\n"
		}
	}' "$tsv"
}

cols_list=$(awk -F'\t' 'NR > 1 && !seen[$3 " T=" $4]++ { printf "%s%s", sep, $3 " T=" $4; sep = "|" }' "$tsv")
tables quiet "shared machine (no extra load)"
if grep -q '^hog	' "$tsv"; then
	tables hog "with CPU hog(s) running"
fi

echo
echo "== targets =="
awk -F'\t' -v reps="$reps" '
NR > 1 {
	k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4
	n[k]++; reg[k] += $7 == "regression"; ph[$1] = 1; sds[$2] = 1
	cell[$3 SUBSEP $4] = 1
}
END {
	ok = 1
	for (p in ph) for (pt in cell) {
		split(pt, q, SUBSEP); k = p SUBSEP 0 SUBSEP q[1] SUBSEP q[2]
		if (!(k in n)) continue
		if (reg[k]) { printf "MISS  A/A false regressions: %s %s T=%s: %d/%d\n", p, q[1], q[2], reg[k], n[k]; ok = 0 }
	}
	if (ok) print "ok    zero false regressions in every A/A cell"
	for (p in ph) {
		k = p SUBSEP 5 SUBSEP "rounds" SUBSEP 3
		if (!(k in n)) continue
		need = int((9 * n[k] + 9) / 10)
		printf "%s  +5%% at T=3, pairing rounds (%s): %d/%d regression (target >= %d)\n",
			(reg[k] >= need ? "ok  " : "MISS"), p, reg[k], n[k], need
	}
	worse = 0
	for (k in n) {
		split(k, q, SUBSEP)
		if (q[3] != "rounds") continue
		ki = q[1] SUBSEP q[2] SUBSEP "independent" SUBSEP q[4]
		if (!(ki in n)) continue
		if (q[2] == 0 && reg[k] > reg[ki]) {
			printf "MISS  paired worse than independent: %s +0%% T=%s: %d vs %d false regressions\n", q[1], q[4], reg[k], reg[ki]; worse = 1
		}
		if (q[2] > 0 && reg[k] < reg[ki]) {
			printf "MISS  paired worse than independent: %s +%s%% T=%s: %d vs %d regressions\n", q[1], q[2], q[4], reg[k], reg[ki]; worse = 1
		}
	}
	if (!worse) print "ok    paired no worse than independent in any cell"
}' "$tsv"

echo
echo "raw results: $tsv and $out/json/"

# ---- the engine's own cost ---------------------------------------------------

if [ "${ANALYSIS:-1}" != 0 ]; then
	echo
	bash "$here/analysis.sh"
fi
