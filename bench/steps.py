#!/usr/bin/python3
"""bench/steps: kagari's step detector against E-divisive means.

Builds synthetic histories from the recorded A/A traces of bench/traces
(every difference between their runs is noise), plants steps in them, and
scores two detectors on the same series:

- kagari: bench/steps.c, history/steps.h as `kagari history` calls it;
- E-divisive means (Matteson & James 2014, alpha = 1) as Apache Otava
  (formerly Hunter) runs it: the split that maximises the divergence
  statistic Q, accepted when a two-sample t-test of the two sides gives
  p < 0.001 (Otava's default; Otava replaced the paper's permutation test
  with the t-test), splitting again until no split is accepted.

A series has N commits (50, 200, 1000), each one value (k = 1) or the
median of a few runs (k = 3 or 5): k consecutive runs from a random place
of a trace, so each commit is a session of its own in one of the states
the machine was in, and its runs share that state. Steps are 1, 2, 3, 5, 7 or 10 times the noise of a
point (1.4826 MAD of the trace's points of k runs; up: times 1 + s times
the relative noise, down: divided by it), up or down, at least
8 commits apart, and in every fourth series two of them 3 to 5 commits
apart. A/A series have none. Prints per detector: precision, recall and F1
(a step found within MARGIN commits of a planted one counts), false steps
per 1,000 A/A commits, and the share of planted steps of 5x the noise or
more found at their very commit; then recall by step size; then, per
detector and trace, what became of each step of 5x the noise or more:
at its commit, one or two commits off where the trace's own noise makes
the found split at least as likely as the planted one (the data place it
there) or not, one of two steps 3 to 5 commits apart, or missed.

    /usr/bin/python3 bench/steps.py DRIVER [SERIES_PER_CELL] [SEED]

Needs numpy (Debian python3-numpy). bench/steps.sh builds the driver and
runs this.
"""
import math
import os
import random
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = ["sort-174ms-a.tsv", "sort-6ms-a.tsv", "sort-86ms-b.tsv", "sort-86ms-c.tsv"]
LENGTHS = [50, 200, 1000]
RUNS = [1, 3, 5]
SIZES = [1, 2, 3, 5, 7, 10]
MARGIN = 2
MIN_SIZE = 2
MAX_P = 0.001


def load_trace(name):
    vals = []
    with open(os.path.join(HERE, "traces", name)) as f:
        head = f.readline().split("\t")
        col = head.index("wall_ns")
        for line in f:
            vals.append(float(line.split("\t")[col]))
    return vals


def point_noise(trace, k):
    """1.4826 MAD of the medians of consecutive k runs: a point's noise."""
    pts = [float(np.median(trace[i:i + k])) for i in range(0, len(trace) - k + 1, k)]
    m = float(np.median(pts))
    return 1.4826 * float(np.median(np.abs(np.array(pts) - m))), m


def factors(n, steps, noise, level):
    """Each commit's factor: the product of the steps up to it."""
    factor = [1.0] * n
    f = 1.0
    at = dict(steps)
    for i in range(n):
        if i in at:
            # up: x (1 + s r); down: the inverse, so that every value
            # stays positive and a step down undoes a step up
            g = 1 + abs(at[i]) * noise / level
            f *= g if at[i] > 0 else 1 / g
        factor[i] = f
    return factor


def make_series(rng, trace, n, k, steps, noise, level):
    """n commits of k runs from trace, each run after a step scaled by that
    step's factor. Each commit is a session of its own: k consecutive runs
    from a random place in the trace (a history measures its commits days
    apart, each in the machine's state of that moment; the runs of one
    commit share it)."""
    factor = factors(n, steps, noise, level)
    runs = []
    for i in range(n):
        start = rng.randrange(len(trace) - k + 1)
        runs.append([trace[start + j] * factor[i] for j in range(k)])
    return runs


def plant(rng, n, two_close):
    """Step positions and signed sizes (in units of the point noise)."""
    count = 1 if n <= 50 else (2 if n <= 200 else 4)
    pos = []
    tries = 0
    while len(pos) < count and tries < 1000:
        tries += 1
        p = rng.randrange(8, n - 8)
        if all(abs(p - q) >= 16 for q in pos):
            pos.append(p)
    out = [(p, rng.choice(SIZES) * rng.choice([1, -1])) for p in pos]
    if two_close and pos:
        p = pos[0] + rng.randint(3, 5)
        if p < n - 3 and all(abs(p - q) >= 8 for q in pos[1:]):
            out.append((p, rng.choice(SIZES) * rng.choice([1, -1])))
    return sorted(out)


# ---- E-divisive means, after Matteson & James (2014) and Otava ----------

def q_stat(x):
    """Q(tau) for every split of x (alpha = 1), from the prefix sums of the
    distance matrix: the scaled divergence between x[:tau] and x[tau:]."""
    m = len(x)
    d = np.abs(x[:, None] - x[None, :])
    s = d.cumsum(0).cumsum(1)
    tau = np.arange(MIN_SIZE, m - MIN_SIZE + 1)
    total = s[m - 1, m - 1]
    left = s[tau - 1, tau - 1]                 # both orders of pairs in x[:tau]
    cross = s[tau - 1, m - 1] - left           # x[:tau] by x[tau:]
    right = total - 2 * cross - left          # both orders in x[tau:]
    a = tau.astype(float)
    b = (m - tau).astype(float)
    within_l = left / (a * (a - 1))            # mean over pairs (each counted twice)
    within_r = right / (b * (b - 1))
    between = 2 * cross / (a * b)
    q = a * b / m * (between - within_l - within_r)
    return tau, q


def betacf(a, b, x):
    """The continued fraction of the regularised incomplete beta (Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((a + m2 - 1) * (a + m2)),
                    -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))):
            d = 1 + num * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-14:
            break
    return h


def t_pvalue(t, df):
    """Two-sided p of Student's t with df degrees of freedom."""
    if not math.isfinite(t):
        return 0.0
    x = df / (df + t * t)
    a, b = df / 2, 0.5
    lb = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lb + a * math.log(x) + b * math.log(1 - x))
    if x < (a + 1) / (a + b + 2):
        ib = front * betacf(a, b, x) / a
    else:
        ib = 1 - front * betacf(b, a, 1 - x) / b
    return min(1.0, max(0.0, ib))


def welch_p(x, y):
    vx, vy = x.var(ddof=1), y.var(ddof=1)
    se2 = vx / len(x) + vy / len(y)
    if se2 <= 0:
        return 0.0 if x.mean() != y.mean() else 1.0
    t = (x.mean() - y.mean()) / math.sqrt(se2)
    df = se2 * se2 / ((vx / len(x)) ** 2 / (len(x) - 1) + (vy / len(y)) ** 2 / (len(y) - 1))
    return t_pvalue(t, df)


def edivisive(x):
    """The change points of x: hierarchical E-divisive, each new split the
    best Q over the current segments, accepted while the t-test of its two
    sides says p < MAX_P."""
    x = np.asarray(x, dtype=float)
    cps = []
    segs = [(0, len(x))]
    cand = {}
    while True:
        best = None
        for (lo, hi) in segs:
            if hi - lo < 2 * MIN_SIZE:
                continue
            if (lo, hi) not in cand:
                tau, q = q_stat(x[lo:hi])
                i = int(np.argmax(q))
                cand[(lo, hi)] = (lo + int(tau[i]), float(q[i]))
            at, q = cand[(lo, hi)]
            if best is None or q > best[2]:
                best = (lo, hi, q, at)
        if best is None:
            break
        lo, hi, _, at = best
        if welch_p(x[lo:at], x[at:hi]) >= MAX_P:
            break
        cps.append(at)
        segs.remove((lo, hi))
        segs += [(lo, at), (at, hi)]
    return sorted(cps)


# ---- scoring ------------------------------------------------------------

class TraceNoise:
    """The density of a trace's points of k runs (the logarithm of the
    median of k consecutive runs, from every place, as make_series() takes
    them): a Gaussian kernel density, Silverman's bandwidth."""

    def __init__(self, trace, k):
        t = np.asarray(trace, dtype=float)
        self.pts = np.sort(np.log([float(np.median(t[i:i + k])) for i in range(len(t) - k + 1)]))
        iqr = float(np.subtract(*np.percentile(self.pts, [75, 25])))
        self.h = 0.9 * min(float(np.std(self.pts)), iqr / 1.34) * len(self.pts) ** -0.2

    def logpdf(self, v):
        u = (v - self.pts) / self.h
        return math.log(float(np.mean(np.exp(-0.5 * u * u))) / self.h + 1e-300)


def likelier_there(noise, runs, truth, t, g, point_noise_level):
    """Is the split at g (found) at least as likely as the planted one at
    t, under the trace's own noise and the planted levels? Only the points
    between the two are on different levels in the two splits."""
    lf = np.log(factors(len(runs), truth, *point_noise_level))
    lo_level, hi_level = lf[t - 1], lf[t]
    d = 0.0
    for i in range(min(t, g), max(t, g)):
        y = math.log(float(np.median(runs[i])))
        other = hi_level if lf[i] == lo_level else lo_level
        d += noise.logpdf(y - lf[i]) - noise.logpdf(y - other)
    return d <= 0


def misses_by_cause(traces, cases, detectors):
    """Each planted step of 5x the noise or more, by what became of it:
    found at its commit; found one or two commits off, a step apart from
    others, where the points say it is (likelier_there()) or not; one of
    two steps 3 to 5 commits apart, not at its commit; or missed."""
    noise = {}
    cols = ("at their commit", "1-2 off, likelier there", "1-2 off, likelier at its commit",
            "of two 3-5 apart", "missed")
    print("5x+ steps by what became of them (\"likelier there\": the points between the found "
          "and the planted commit are at least as likely on the found split, under the trace's "
          "own noise and the planted levels):")
    print("| detector | trace | 5x+ steps | " + " | ".join(cols) + " |")
    print("|---|---|---:|" + "---:|" * len(cols))
    for name, found in detectors:
        total = [0] * (len(cols) + 1)
        for tname in traces:
            row = [0] * (len(cols) + 1)
            for (runs, truth, aa, n, tn, k), f in zip(cases, found):
                if aa or tn != tname:
                    continue
                for t, size in truth:
                    if abs(size) < 5:
                        continue
                    row[0] += 1
                    near = [x for x in f if abs(x - t) <= MARGIN]
                    pair = any(0 < abs(u - t) <= 5 for u, _ in truth)
                    if t in f:
                        row[1] += 1
                    elif pair:
                        row[4] += 1
                    elif not near:
                        row[5] += 1
                    else:
                        if (tn, k) not in noise:
                            noise[(tn, k)] = (TraceNoise(traces[tn], k), point_noise(traces[tn], k))
                        tn_noise, nl = noise[(tn, k)]
                        g = min(near, key=lambda x: abs(x - t))
                        row[2 if likelier_there(tn_noise, runs, truth, t, g, nl) else 3] += 1
            print("| %s | %s | %s |" % (name, tname, " | ".join(str(v) for v in row)))
            total = [a + b for a, b in zip(total, row)]
        print("| %s | all | %s |" % (name, " | ".join(str(v) for v in total)))

def match(found, truth):
    """Planted steps matched by a found one within MARGIN (each once)."""
    used = set()
    hit = 0
    for t in truth:
        best = None
        for i, f in enumerate(found):
            if i not in used and abs(f - t) <= MARGIN and (best is None or abs(f - t) < abs(found[best] - t)):
                best = i
        if best is not None:
            used.add(best)
            hit += 1
    return hit


def main():
    driver = sys.argv[1]
    per_cell = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 41)
    traces = {t: load_trace(t) for t in TRACES}
    cases = []  # (runs, truth, is_aa, n, trace, k)
    for tname, trace in traces.items():
        for k in RUNS:
            noise, level = point_noise(trace, k)
            for n in LENGTHS:
                for s in range(per_cell):
                    truth = plant(rng, n, s % 4 == 3)
                    cases.append((make_series(rng, trace, n, k, truth, noise, level), truth, False, n, tname, k))
                    cases.append((make_series(rng, trace, n, k, [], noise, level), [], True, n, tname, k))
    feed = []
    for runs, _, _, n, _, _ in cases:
        feed.append(" ".join([str(n)] + [" ".join([str(len(r))] + ["%.1f" % v for v in r]) for r in runs]))
    feed.append("0")
    res = subprocess.run([driver], input="\n".join(feed) + "\n", capture_output=True, text=True, check=True)
    kag = [[int(v) for v in line.split()] for line in res.stdout.split("\n")[:len(cases)]]
    edv = [edivisive([float(np.median(r)) for r in runs]) for runs, _, _, _, _, _ in cases]
    print("series: %d with steps, %d A/A; %d commits; traces %s; runs per commit %s; margin %d commits"
          % (sum(1 for c in cases if not c[2]), sum(1 for c in cases if c[2]),
             sum(c[3] for c in cases), ", ".join(TRACES), RUNS, MARGIN))
    print("| detector | precision | recall | F1 | false steps / 1,000 A/A commits | 5x+ steps found at their commit |")
    print("|---|---:|---:|---:|---:|---:|")
    by_size = {}
    for name, found in (("kagari", kag), ("E-divisive (t-test, p < 0.001)", edv)):
        tp = fp_n = planted = 0
        aa_found = aa_commits = 0
        big = big_exact = 0
        for (runs, truth, aa, n, _, _), f in zip(cases, found):
            if aa:
                aa_found += len(f)
                aa_commits += n
                continue
            pos = [t for t, _ in truth]
            h = match(f, pos)
            tp += h
            fp_n += len(f) - h
            planted += len(pos)
            for t, size in truth:
                key = (name, abs(size))
                got = any(abs(x - t) <= MARGIN for x in f)
                by_size[key] = (by_size.get(key, (0, 0))[0] + got, by_size.get(key, (0, 0))[1] + 1)
                if abs(size) >= 5:
                    big += 1
                    big_exact += t in f
        prec = tp / (tp + fp_n) if tp + fp_n else 0
        rec = tp / planted if planted else 0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0
        print("| %s | %.3f | %.3f | %.3f | %.2f | %d of %d (%.0f%%) |"
              % (name, prec, rec, f1, aa_found * 1000 / aa_commits, big_exact, big, 100 * big_exact / big))
    print()
    print("recall by step size (in units of a point's noise):")
    print("| detector | " + " | ".join("%dx" % s for s in SIZES) + " |")
    print("|---|" + "---:|" * len(SIZES))
    for name in ("kagari", "E-divisive (t-test, p < 0.001)"):
        cells = []
        for s in SIZES:
            got, tot = by_size.get((name, s), (0, 0))
            cells.append("%.2f" % (got / tot) if tot else "-")
        print("| %s | %s |" % (name, " | ".join(cells)))
    print()
    misses_by_cause(traces, cases, (("kagari", kag), ("E-divisive", edv)))


if __name__ == "__main__":
    main()
