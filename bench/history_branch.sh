#!/bin/bash
# bench/history_branch: the history branch at scale (docs/history.md). A
# history of RUNS runs (default 10,000: 2,000 commits, 3 machines, each a
# copy of one real `kagari run` of a suite of 2 benchmarks x 2 commands at
# 10 runs, with its samples, medians, commit, machine, time and origin
# changed) is pushed to a bare repository on this machine, then pulled
# into an empty history, pulled again with nothing new, and pulled after
# one new run was pushed. Prints a table of times and sizes: bytes per run
# file, the branch's packed size after `git gc`, and what gzip would save.
#
#   bash bench/history_branch.sh [BUILD-DIR] [RUNS] [MEMORY-RUNS]
#
# Targets (issue 32): pull into an empty history < 10 s, an incremental
# pull of one new run < 1 s. Nothing in the tree changes.
#
# Then the memory of a push (issue 40): histories of 1, 4, 16 and 31 runs
# of 8 MiB each (MEMORY-RUNS, default "1 4 16 31"; a report that large,
# its samples a string of one digit pattern per run) pushed to a bare
# repository, each push's peak RSS from /usr/bin/time (the largest of
# kagari and the git processes it started; git set to stream large blobs,
# core.bigFileThreshold=1m, so that what grows would be kagari's). RUNS 0
# skips the first part.
set -eu
build=$(cd "${1:-build}" && pwd)
nruns=${2:-10000}
memruns=${3:-1 4 16 31}
kagari=$build/kagari
helper=$build/kagari-helper
[ -x "$helper" ] || cmake --build "$build" --target kagari-helper >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/kagari-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE KAGARI_MACHINE_ID
g() { git -c user.name=b -c user.email=b@b -c init.defaultBranch=main "$@"; }
now() { echo "${EPOCHREALTIME/,/.}"; }
# timed NAME CMD...: CMD's wall time in $NAME, its CPU time (user + system,
# children included) in ${NAME}_cpu: the machine may be shared.
timed() {
	local name=$1 t0 t1
	shift
	t0=$(now)
	/usr/bin/time -f "%U %S" -o "$work/cpu" "$@"
	t1=$(now)
	printf -v "$name" '%s' "$(secs "$t0" "$t1")"
	printf -v "${name}_cpu" '%s' "$(awk '{printf "%.3f", $1 + $2}' "$work/cpu")"
}
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

g init -q --bare "$work/remote.git"
g init -q "$work/src"
cd "$work/src"
cat > kagari.yaml <<YAML
version: "1"
name: bench
defaults: {warmup: 0, runs: 10, metrics: {allocations: true}}
benchmarks:
  - name: parse
    commands:
      small: {command: ["$helper", "mallocs", "100"]}
      large: {command: ["$helper", "mallocs", "1000"]}
  - name: render
    commands:
      fast: {command: ["$helper", "sleep", "1"]}
      slow: {command: ["$helper", "sleep", "2"]}
YAML
g add -A && g commit -qm bench && g remote add origin "$work/remote.git"
"$kagari" run --quiet >/dev/null
cp .kagari/history.sqlite "$work/one-run.sqlite"

# One real run, copied to nruns runs over 2,000 commits and 3 machines.
python3 - "$work/src/.kagari/history.sqlite" "$nruns" <<'PYEOF'
import json, random, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = int(sys.argv[2])
rnd = random.Random(32)
cols = [r[1] for r in db.execute("PRAGMA table_info(runs)")]
run = dict(zip(cols, db.execute("SELECT * FROM runs").fetchone()))
res_cols = [r[1] for r in db.execute("PRAGMA table_info(results)")]
results = [dict(zip(res_cols, r)) for r in db.execute("SELECT * FROM results WHERE run = ?", (run["id"],))]
report = json.loads(run["report"])
db.execute("DELETE FROM results"); db.execute("DELETE FROM runs"); db.execute("DELETE FROM machines")
machines = []
for m in range(3):
    fp = "%016x" % rnd.getrandbits(64)
    cur = db.execute("INSERT INTO machines(fingerprint, machine_id, cpu_model, cores, arch) VALUES (?,?,?,?,?)",
                     (fp, "%016x" % rnd.getrandbits(64), "CPU %d" % m, 4, "x86_64"))
    machines.append((cur.lastrowid, fp))
shas = ["%040x" % rnd.getrandbits(160) for _ in range(2000)]
def jitter(v, f):
    return v if v is None else type(v)(v * f)
for i in range(n):
    mid, fp = machines[i % 3]
    sha = shas[i * 2000 // n]
    t = "2026-%02d-%02dT%02d:%02d:%02d.000Z" % (1 + i * 12 // n, 1 + i % 28, i % 24, i % 60, (i * 7) % 60)
    origin = "%s%s%sT%s%s%sZ-%s-%s-%012x" % (t[0:4], t[5:7], t[8:10], t[11:13], t[14:16], t[17:19], sha[:12], fp, rnd.getrandbits(48))
    f = 1 + rnd.uniform(-0.05, 0.05)
    for s in report.get("suites", []):
        for b in s.get("benchmarks", []):
            for c in b.get("commands", []):
                for side in ("head", "base"):
                    for m in ((c.get(side) or {}).get("metrics") or {}).values():
                        if m.get("samples"):
                            for x in m["samples"]:
                                if isinstance(x.get("value"), (int, float)):
                                    x["value"] = type(x["value"])(x["value"] * (1 + rnd.uniform(-0.05, 0.05)))
    r = dict(run, id=None, time=t, head_sha=sha, machine=mid, origin=origin, seed=rnd.getrandbits(63),
             report=json.dumps(report, separators=(",", ":")))
    cur = db.execute("INSERT INTO runs(%s) VALUES (%s)" % (",".join(cols), ",".join("?" * len(cols))), [r[c] for c in cols])
    for x in results:
        y = dict(x, run=cur.lastrowid)
        for k in ("median", "mean", "min", "max", "p95"):
            y[k] = jitter(y[k], f)
        db.execute("INSERT INTO results(%s) VALUES (%s)" % (",".join(res_cols), ",".join("?" * len(res_cols))), [y[c] for c in res_cols])
db.commit()
PYEOF

scale() {
	timed push "$kagari" history push >/dev/null
	g clone -q "$work/remote.git" "$work/dst" 2>/dev/null
	cp kagari.yaml "$work/dst/"
	cd "$work/dst"
	timed pull_empty "$kagari" history pull >"$work/pull1"
	timed pull_none "$kagari" history pull >"$work/pull2"
	(cd "$work/src" && "$kagari" run --quiet >/dev/null && "$kagari" history push >/dev/null)
	timed pull_one "$kagari" history pull >"$work/pull3"
	grep -q "$nruns imported" "$work/pull1" || { echo "pull 1: $(cat "$work/pull1")" >&2; exit 1; }
	grep -q " 0 imported" "$work/pull2" || { echo "pull 2: $(cat "$work/pull2")" >&2; exit 1; }
	grep -q " 1 imported" "$work/pull3" || { echo "pull 3: $(cat "$work/pull3")" >&2; exit 1; }

	cd "$work"
	files=$(git --git-dir=remote.git ls-tree -r -l kagari-history -- runs/ | awk '{n++; s += $4} END {printf "%d %d", n, s}')
	set -- $files
	nfiles=$1 raw=$2
	gz=$(git --git-dir=remote.git ls-tree -r --name-only kagari-history -- runs/ | head -200 |
		while read -r p; do git --git-dir=remote.git cat-file blob "kagari-history:$p" | gzip -9 | wc -c; done |
		awk '{s += $1; n++} END {printf "%d", s / n}')
	git --git-dir=remote.git gc -q --prune=now
	packed=$(du -sb remote.git/objects | awk '{print $1}')
	echo "== bench/history_branch: $nruns runs (2,000 commits, 3 machines), remote a bare repository on this machine =="
	echo "   $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); wall time, then CPU time (user + system, git included)"
	printf '%-44s %12s %10s\n' "step" "wall" "cpu"
	printf '%-44s %10s s %8s s\n' "push of every run (one fast-import, one push)" "$push" "$push_cpu"
	printf '%-44s %10s s %8s s   (target < 10 s)\n' "pull into an empty history" "$pull_empty" "$pull_empty_cpu"
	printf '%-44s %10s s %8s s\n' "pull with nothing new" "$pull_none" "$pull_none_cpu"
	printf '%-44s %10s s %8s s   (target < 1 s)\n' "pull of one new run" "$pull_one" "$pull_one_cpu"
	printf '%-44s %10d B\n' "run file, mean size" "$((raw / nfiles))"
	printf '%-44s %10d B\n' "run file gzip -9'd, mean of 200" "$gz"
	printf '%-44s %10d B   (%d B a run)\n' "branch packed after git gc" "$packed" "$((packed / nfiles))"
}
[ "$nruns" = 0 ] || scale

# The memory of a push: N runs of 8 MiB.
printf '[core]\n\tbigFileThreshold = 1m\n[pack]\n\twindow = 0\n' > "$work/gitconfig"
cd "$work/src"
echo
echo "== bench/history_branch: peak memory of a push of runs of 8 MiB (/usr/bin/time, max RSS) =="
printf '%-8s %14s %16s %10s\n' "runs" "stream" "peak RSS" "wall"
for n in $memruns; do
	rm -rf "$work/mem.git" "$work/mem" && g init -q --bare "$work/mem.git"
	mkdir -p "$work/mem/.kagari" && cp kagari.yaml "$work/mem/" && (cd "$work/mem" && g init -q .)
	cp "$work/one-run.sqlite" "$work/mem/.kagari/history.sqlite"
	python3 - "$work/mem/.kagari/history.sqlite" "$n" <<'PYEOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = int(sys.argv[2])
cols = [r[1] for r in db.execute("PRAGMA table_info(runs)")]
run = dict(zip(cols, db.execute("SELECT * FROM runs ORDER BY id LIMIT 1").fetchone()))
origin = run["origin"] or "20261206T000000Z-000000000000-0000000000000000-000000000000"
db.execute("DELETE FROM results"); db.execute("DELETE FROM runs")
for i in range(n):
    pad = ("%04d" % i) * ((8 << 20) // 4)
    run.update(id=None, origin=origin[:-12] + "%012x" % (i + 1), report='{"pad":"%s"}' % pad)
    db.execute("INSERT INTO runs(%s) VALUES (%s)" % (",".join(cols), ",".join("?" * len(cols))), [run[c] for c in cols])
db.commit()
PYEOF
	t0=$(now)
	(cd "$work/mem" && GIT_CONFIG_GLOBAL="$work/gitconfig" /usr/bin/time -f %M -o "$work/rss" \
		"$kagari" history push --remote "$work/mem.git" >"$work/mem.out")
	t1=$(now)
	grep -q "$n run" "$work/mem.out" || { echo "push of $n: $(cat "$work/mem.out")" >&2; exit 1; }
	printf '%-8s %10d MiB %12d MiB %8s s\n' "$n" "$((n * 8))" "$(($(tail -1 "$work/rss") / 1024))" "$(secs "$t0" "$t1")"
done
