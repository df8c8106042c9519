# bench/sensitivity/common.sh: what bench/sensitivity.sh and
# bench/sensitivity/pairing.sh share, sourced by both (not run on its own).
#
#   sens_workspace         a temporary folder $work, removed on exit with
#                          any hog still running; INT/TERM exit 130
#   sens_repo REPO SIZE CC the demo's sort.c in REPO with slowdown.txt = 0
#                          (the caller writes its suites), then after them
#   sens_commit REPO       the base commit
#   sens_tools REPO        $work/hog (a C busy loop) and run_ms, one run of
#                          the workload at SIZE in milliseconds
#   start_hog N / stop_hog N busy loops in the background / stop them
#   fmt_s SECONDS          "12m05s"

sens_workspace() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/kagari-sensitivity-repo-XXXXXX")
	hog_pids=()
	trap 'stop_hog; rm -rf "$work"' EXIT
	trap 'exit 130' INT TERM
}

start_hog() {
	for _ in $(seq "$1"); do
		"$work/hog" &
		hog_pids+=($!)
	done
}

stop_hog() {
	for p in "${hog_pids[@]+"${hog_pids[@]}"}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	hog_pids=()
}

sens_repo() { # REPO SIZE CC
	mkdir -p "$1"
	cp "$root/examples/demo/sort.c" "$1/sort.c"
	if ! grep -q '^#ifndef SIZE' "$1/sort.c"; then
		echo "sensitivity: examples/demo/sort.c no longer takes -DSIZE; update bench/sensitivity" >&2
		exit 1
	fi
	echo 0 > "$1/slowdown.txt"
	sens_size=$2
	sens_cc=$3
}

sens_commit() { # REPO
	(
		cd "$1"
		git init -q
		git add -A
		git -c user.name=sensitivity -c user.email=sensitivity@localhost \
			commit -q -m "base: slowdown 0"
	)
}

sens_tools() {
	"$sens_cc" -O2 -o "$work/hog" -x c - <<'C'
int main(void) { volatile unsigned long x = 0; for (;;) x++; }
C
	"$sens_cc" -O2 -DSIZE="$sens_size" -DSLOWDOWN=0 -o "$work/probe" "$1/sort.c"
	local t0 t1
	t0=$(date +%s%N); "$work/probe" >/dev/null; t1=$(date +%s%N)
	run_ms=$(( (t1 - t0) / 1000000 ))
}

fmt_s() { printf '%dm%02ds' $(( $1 / 60 )) $(( $1 % 60 )); }
