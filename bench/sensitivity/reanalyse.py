#!/usr/bin/python3
"""bench/sensitivity/reanalyse.py: a second opinion on bench/sensitivity/pairing.sh (the fixed design's pairing grid).

    /usr/bin/python3 bench/sensitivity/reanalyse.py OUT-DIR [METRIC]

METRIC is the gated metric the run compared (latency, or cpu_total for a run
with METRIC=cpu_total).

Reads OUT-DIR/verdicts.tsv and the JSON reports next to it and, from the raw
latency samples of every compare:

1. re-derives the verdict with an independent implementation of
   docs/statistics.md (stall filter as analyze/compare.h documents it,
   per-round ratios or independent medians, percentile bootstrap, exact
   sign-flip / Mann-Whitney test, within-round A/A control, the rules in
   order) and counts agreement with kagari; the bootstrap draws differ, so
   only cases near a boundary may disagree;
2. measures the noise: the per-run noise sigma within a round (robust SD of
   ln(base run 2 / base run 1) / sqrt 2), the per-round ratio noise, and the
   noise floor F, per phase, and per repetition (the repetitions run one
   after another, so this shows how the machine's load changed over time)
   beside the detections of slowdowns above max_percent in it;
3. says, for every detectable slowdown that was not called a regression,
   which rule stopped it (within_noise = below F; inconclusive = P or p);
4. analyses every compare's samples both ways, pairing: rounds and
   pairing: independent at its max_percent, so the two pairings are compared
   on the same measurements (the run itself measures each cell separately,
   at different moments of a machine whose load changes).

Needs numpy and scipy (Debian's /usr/bin/python3).
"""
import glob
import json
import math
import os
import sys
from collections import Counter, defaultdict

import numpy as np
from scipy import stats

B = 2000
CONF = 0.95


def load(path, metric):
    d = json.load(open(path))
    c = d["suites"][0]["benchmarks"][0]["commands"][0]
    out = {}
    for side in ("base", "head"):
        rounds = defaultdict(list)
        for s in sorted(c[side]["metrics"][metric]["samples"],
                        key=lambda s: (s["round"], s["run"])):
            rounds[s["round"]].append(float(s["value"]))
        out[side] = rounds
    out["cmp"] = c["comparisons"][metric]
    return out


def spread(x):
    return (max(x) - min(x)) / np.mean(x) if len(x) >= 2 else 0.0


def stall_keep(b, h):
    keys = sorted(set(b) | set(h))
    s = [spread(b[k]) for k in keys if len(b[k]) >= 2] + \
        [spread(h[k]) for k in keys if len(h[k]) >= 2]
    med = np.median(s)
    mad = np.median(np.abs(np.array(s) - med))
    thr = max(med + 6 * max(mad, 0.001), 0.05)
    cand = sorted([k for k in keys if max(spread(b[k]), spread(h[k])) > thr],
                  key=lambda k: (-max(spread(b[k]), spread(h[k])), k))
    drop = set(cand[: len(keys) // 2])
    return [k for k in keys if k not in drop]


def boot_median(rng, x):
    x = np.asarray(x)
    idx = rng.integers(0, len(x), size=(B, len(x)))
    return np.median(x[idx], axis=1)


def signflip_p(d):
    n = len(d)
    obs = d.sum()
    a = np.abs(d)
    signs = ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1) * 2 - 1
    sums = signs @ a
    return np.mean(sums >= obs - 1e-9 * a.sum())


def verdict(data, pairing, T, seed=1):
    rng = np.random.default_rng(seed)
    b, h = data["base"], data["head"]
    keep = stall_keep(b, h)
    if pairing == "rounds":
        r = np.array([np.mean(h[k]) / np.mean(b[k]) for k in keep])
        change = (np.median(r) - 1) * 100
        boot = (boot_median(rng, r) - 1) * 100
        lr = np.log(r)
        p_reg_test = signflip_p(lr - math.log1p(T / 100))
        p_imp_test = signflip_p(math.log1p(-T / 100) - lr)
        q1, q3 = np.percentile(r, [25, 75])
        rcv = (q3 - q1) / 1.349 / np.median(r)
        c = np.array([b[k][1] / b[k][0] for k in keep if len(b[k]) >= 2])
        cboot = (boot_median(rng, c) - 1) * 100
    else:
        kb = np.concatenate([b[k] for k in keep])
        kh = np.concatenate([h[k] for k in keep])
        change = (np.median(kh) / np.median(kb) - 1) * 100
        boot = (boot_median(rng, kh) / boot_median(rng, kb) - 1) * 100
        up, down = math.log1p(T / 100), math.log1p(-T / 100)
        p_reg_test = stats.mannwhitneyu(np.log(kh) - up, np.log(kb),
                                        alternative="greater").pvalue
        p_imp_test = stats.mannwhitneyu(np.log(kh) - down, np.log(kb),
                                        alternative="less").pvalue
        rcv = max((np.subtract(*np.percentile(x, [75, 25]))) / 1.349 /
                  np.median(x) for x in (kb, kh))
        x = np.array([b[k][0] for k in keep if len(b[k]) >= 2])
        y = np.array([b[k][1] for k in keep if len(b[k]) >= 2])
        cboot = (boot_median(rng, y) / boot_median(rng, x) - 1) * 100
    lo_c, hi_c = np.percentile(cboot, [2.5, 97.5])
    F = max(abs(lo_c), abs(hi_c))
    P_reg, P_imp = np.mean(boot > T), np.mean(boot < -T)
    p = p_reg_test if change >= 0 else p_imp_test
    if rcv > 0.5:
        return "inconclusive", change, F, p, P_reg
    reg = change > T and P_reg >= CONF and p < 1 - CONF
    imp = -change > T and P_imp >= CONF and p < 1 - CONF
    if reg or imp:
        if (reg and change > F) or (imp and -change > F):
            return ("regression" if reg else "improved"), change, F, p, P_reg
        return "within_noise", change, F, p, P_reg
    if 1 - P_reg >= CONF:
        return "pass", change, F, p, P_reg
    return "inconclusive", change, F, p, P_reg


def main():
    out = sys.argv[1]
    metric = sys.argv[2] if len(sys.argv) > 2 else "latency"
    same = defaultdict(Counter)
    per_rep = defaultdict(lambda: defaultdict(list))
    rows = []
    with open(os.path.join(out, "verdicts.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            rows.append(dict(zip(head, line.rstrip("\n").split("\t"))))
    agree = Counter()
    noise = defaultdict(lambda: defaultdict(list))
    stopped = defaultdict(Counter)
    disagreements = []
    for row in rows:
        path = os.path.join(out, "json", "%s-s%s-%s-T%s-r%s.json" % (
            row["phase"], row["slowdown"], row["pairing"], row["max_percent"],
            row["rep"]))
        if row["verdict"] == "error" or not os.path.exists(path):
            continue
        data = load(path, metric)
        T = float(row["max_percent"])
        v, change, F, p, P = verdict(data, row["pairing"], T)
        for pairing in ("rounds", "independent"):
            w = v if pairing == row["pairing"] else \
                verdict(data, pairing, T)[0]
            same[(row["phase"], float(row["slowdown"]), T)][
                (pairing, w)] += 1
        agree[v == row["verdict"]] += 1
        if v != row["verdict"]:
            disagreements.append((row, v, change, F, p, P))
        b, h = data["base"], data["head"]
        lc = [math.log(b[k][1] / b[k][0]) for k in b if len(b[k]) >= 2]
        mad = np.median(np.abs(lc - np.median(lc))) * 1.4826
        ph = row["phase"]
        noise[ph]["sigma"].append(mad / math.sqrt(2) * 100)
        per_rep[(ph, int(row["rep"]))]["sigma"].append(mad / math.sqrt(2) * 100)
        if float(row["slowdown"]) > T:
            per_rep[(ph, int(row["rep"]))]["above"].append(
                row["verdict"] == "regression")
        noise[ph]["F " + row["pairing"]].append(float(row["noise_floor"]))
        lr = [math.log(np.mean(h[k]) / np.mean(b[k])) for k in b if k in h]
        noise[ph]["ratio sd"].append(
            np.median(np.abs(lr - np.median(lr))) * 1.4826 * 100)
        sd = float(row["slowdown"])
        if sd > T and row["verdict"] != "regression":
            stopped[(ph, row["slowdown"], row["pairing"], row["max_percent"])][
                row["verdict"] + ": " + short_reason(row["reason"])] += 1

    n = sum(agree.values())
    print("re-derived verdicts agree with kagari: %d/%d" % (agree[True], n))
    for row, v, change, F, p, P in disagreements:
        print("  differs: %s +%s%% %s T=%s rep %s: kagari %s, here %s "
              "(change %+.2f%%, F %.2f%%, p %.3g, P_reg %.3f)" % (
                  row["phase"], row["slowdown"], row["pairing"],
                  row["max_percent"], row["rep"], row["verdict"], v, change,
                  F, p, P))
    print()
    print("noise per phase (medians over compares; percent):")
    for ph, d in noise.items():
        print("  %-6s per-run sigma within a round %.2f, per-round ratio "
              "sd %.2f, F rounds %.2f, F independent %.2f" % (
                  ph, np.median(d["sigma"]), np.median(d["ratio sd"]),
                  np.median(d["F rounds"] or [math.nan]),
                  np.median(d["F independent"] or [math.nan])))
    print()
    print("per repetition, in time order (median sigma; slowdowns above "
          "max_percent called a regression):")
    for key in sorted(per_rep):
        d = per_rep[key]
        print("  %-6s rep %2d  sigma %5.2f%%  %d/%d" % (
            key + (np.median(d["sigma"]), sum(d["above"]), len(d["above"]))))
    print()
    print("slowdowns above max_percent that were not called a regression:")
    for key in sorted(stopped, key=lambda k: (k[0], float(k[1]), k[2], k[3])):
        for why, cnt in stopped[key].most_common():
            print("  %-5s +%s%% %-11s T=%-2s %2d x %s" % (key + (cnt, why)))
    print()
    print("the same measurements analysed both ways (regressions / compares):")
    print("  %-6s %-9s %-4s  %-12s %-12s" % ("phase", "slowdown", "T",
                                             "rounds", "independent"))
    for key in sorted(same):
        c = same[key]
        n = sum(v for (pr, _), v in c.items() if pr == "rounds")
        print("  %-6s +%-8g %-4g  %-12s %-12s" % (
            key[0], key[1], key[2],
            "%d/%d" % (c[("rounds", "regression")], n),
            "%d/%d" % (c[("independent", "regression")], n)))


def short_reason(reason):
    if "noise floor" in reason:
        return "not above the noise floor"
    if "but P=" in reason:
        return "bootstrap P below 0.95"
    if "is not below" in reason:
        return "exact-test p not below 0.05"
    if "dispersion" in reason:
        return "dispersion above max_cv"
    return reason[:60]


if __name__ == "__main__":
    main()
