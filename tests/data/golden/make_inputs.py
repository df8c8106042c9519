#!/usr/bin/python3
"""Write the fixed report JSON files of the golden-output tests
(tests/e2e/t_golden.sh, tests/unit/test_golden_annotations.c).

The inputs are made here, not measured, so that every value a writer
prints (samples, statistics, dates, versions, the machine) is fixed:
run `python3 tests/data/golden/make_inputs.py` after changing this file,
then regenerate the goldens (tests/data/golden/README). Each input is a
report as `kagari compare|run --format json` writes it (docs/contract.md
"The JSON report"), cut down to what the writers read.
"""
import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
MS = 1_000_000


def series(values, unit, rounds_of=1):
    vals = sorted(values)
    n = len(values)
    mean = sum(values) / n
    sd = statistics.stdev(values)
    q = lambda p: vals[min(n - 1, int(round(p * (n - 1))))]
    return {
        "unit": unit,
        "status": "ok",
        "stats": {
            "count": n, "min": vals[0], "median": statistics.median(values),
            "mean": round(mean, 3), "max": vals[-1], "stddev": round(sd, 3),
            "cv": round(sd / mean, 6), "robust_cv": round(sd / mean, 6),
            "p90": q(0.9), "p95": q(0.95), "p99": q(0.99),
        },
        "samples": [{"round": i // rounds_of + 1, "run": i + 1, "value": v}
                    for i, v in enumerate(values)],
    }


def unsupported(unit, reason):
    return {"unit": unit, "status": "unsupported", "reason": reason}


def spread(center, rel, n=8):
    # deterministic wobble around center, +-rel
    pattern = [0.0, 0.6, -0.4, 1.0, -0.9, 0.3, -0.2, 0.7, -0.6, 0.1]
    return [int(round(center * (1 + rel * pattern[i % len(pattern)])))
            for i in range(n)]


def cmp(base, head, change, lo, hi, verdict, reason, gate=True,
        max_percent=5, p_reg=0.5, accepted_by=None, decided=0):
    c = {
        "statistic": "median", "pairing": "rounds", "base": base,
        "head": head, "change_percent": change, "ci_low_percent": lo,
        "ci_high_percent": hi, "confidence": 0.95,
        "max_percent": max_percent, "p_value": 0.002, "p_adjusted": 0.004,
        "hl_shift_percent": change, "noise_floor_percent": 1.2,
        "p_regression": p_reg, "p_improvement": round(1 - p_reg, 3),
        "verdict": verdict, "reason": reason, "gate": gate,
    }
    if accepted_by:
        c["accepted_by"] = accepted_by
    if decided:
        c["decided_at_rounds"] = decided
    return c


def command(name, cmdline, result, head, base=None, comparisons=None,
            budgets=None, rounds=8):
    c = {"name": name, "command": cmdline, "result": result,
         "rounds": rounds, "head": {"count": 8, "metrics": head}}
    if base is not None:
        c["base"] = {"count": 8, "metrics": base}
    if comparisons:
        c["comparisons"] = comparisons
    if budgets:
        c["budgets"] = budgets
    return c


def bench(name, line, result, commands, tags=()):
    return {"name": name, "tags": list(tags), "result": result, "rounds": 8,
            "line": line, "commands": commands}


ENV = {"os": "Debian GNU/Linux 13", "kernel": "6.12.0-1-amd64",
       "arch": "x86_64", "cpu_model": "Example CPU @ 3.00GHz",
       "logical_cpus": 4, "ci": False, "counters_source": "perf",
       "steal_percent": 0.0}


def compare_report():
    lat = lambda ms, rel=0.02: series(spread(ms * MS, rel), "ns")
    thr = lambda v: series(spread(v, 0.03), "lines/s")
    rss = lambda kb: series([kb * 1024] * 8, "bytes")
    benches = [
        bench("parse", 8, "regression", [command(
            "parse", "./build/parse data/big.json", "regression",
            head={"latency": lat(23.6), "peak_rss": rss(10240)},
            base={"latency": lat(20.0), "peak_rss": rss(10240)},
            comparisons={
                "latency": cmp(20.0 * MS, 23.6 * MS, 18.0, 14.2, 21.9,
                               "regression",
                               "the whole interval is above the 5% tolerance",
                               p_reg=0.999),
                "peak_rss": cmp(10240 * 1024, 10240 * 1024, 0.0, -0.5, 0.5,
                                "pass", "within the 10% tolerance",
                                max_percent=10, p_reg=0.01),
            },
            budgets=[{"metric": "latency", "aggregation": "p95",
                      "operator": "<=", "limit": 20 * MS,
                      "limit_text": "<= 20ms", "actual": 24_100_000,
                      "status": "fail"}])]),
        bench("sort", 14, "improved", [command(
            "sort", "./build/sort --n 20000", "improved",
            head={"latency": lat(8.8)}, base={"latency": lat(10.0)},
            comparisons={"latency": cmp(
                10.0 * MS, 8.8 * MS, -12.0, -14.1, -9.8, "improved",
                "the whole interval is below -5%", p_reg=0.0,
                decided=6)})]),
        bench("render", 19, "accepted", [command(
            "render", "./build/render page.html", "accepted",
            head={"latency": lat(33.0)}, base={"latency": lat(30.0)},
            comparisons={"latency": cmp(
                30.0 * MS, 33.0 * MS, 10.0, 7.5, 12.4, "accepted",
                "accepted by a Kagari-Accept trailer (up to 15%)",
                p_reg=0.998,
                accepted_by="1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e")})]),
        bench("compress", 25, "inconclusive", [command(
            "gzip", "gzip -c data/log.txt", "inconclusive",
            head={"latency": lat(40.8, 0.08), "throughput": thr(4900),
                  "cycles": unsupported("count", "perf_event_open is not permitted")},
            base={"latency": lat(40.0, 0.08), "throughput": thr(5000),
                  "cycles": unsupported("count", "perf_event_open is not permitted")},
            comparisons={
                "latency": cmp(40.0 * MS, 40.8 * MS, 2.0, -3.1, 7.4,
                               "inconclusive",
                               "the interval straddles the 5% tolerance",
                               p_reg=0.31),
                "throughput": cmp(5000, 4900, -2.0, -6.8, 2.9, "inconclusive",
                                  "the interval straddles the -5% tolerance",
                                  gate=False, p_reg=0.28),
            },
            budgets=[{"metric": "throughput", "aggregation": "median",
                      "operator": ">=", "limit": 5000, "actual": 4900,
                      "status": "fail"}])]),
    ]
    return {
        "schema_version": "1", "tool": "kagari", "kagari_version": "0.0.0-golden",
        "mode": "compare", "seed": 42,
        "started_at": "2026-01-02T03:04:05.000Z",
        "finished_at": "2026-01-02T03:06:35.500Z",
        "environment": ENV,
        "git": {"head_sha": "1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e",
                "dirty": False, "base_ref": "main",
                "base_sha": "0acd445dea07b1c2d3e4f5061728394a5b6c7d8e"},
        "suites": [{"name": "demo", "file": "kagari.yaml",
                    "result": "regression", "benchmarks": benches}],
        "summary": {"benchmarks": 4, "commands": 4, "pass": 0, "improved": 1,
                    "inconclusive": 1, "accepted": 1, "regression": 1,
                    "over_budget": 2, "error": 0, "exit_code": 1},
        "exit_reason": "1 gated regression found",
        "shard": {"index": 1, "count": 1, "replicate": False,
                  "selection": "all", "benchmarks": 4,
                  "run_id": "golden-compare"},
    }


def run_report():
    lat = lambda ms: series(spread(ms * MS, 0.03), "ns")
    benches = [
        bench("startup", 6, "pass", [command(
            "hello", "./build/hello --version", "pass",
            head={"latency": lat(1.25),
                  "peak_rss": series([2_097_152] * 8, "bytes"),
                  "cycles": unsupported("count", "perf_event_open is not permitted")},
            budgets=[{"metric": "latency", "aggregation": "p95",
                      "operator": "<=", "limit": 5 * MS, "limit_text": "<= 5ms",
                      "actual": 1_300_000, "status": "pass"}])],
            tags=["smoke"]),
        bench("ingest", 12, "over_budget", [command(
            "load", "./build/load data/rows.csv", "over_budget",
            head={"latency": lat(310.0),
                  "throughput": series(spread(3200, 0.02), "rows/s")},
            budgets=[
                {"metric": "latency", "aggregation": "median",
                 "operator": "<=", "limit": 300 * MS,
                 "limit_text": "<= 300ms", "actual": 310 * MS,
                 "status": "fail"},
                {"metric": "throughput", "aggregation": "median",
                 "operator": ">=", "limit": 3000, "limit_text": ">= 3000",
                 "actual": 3200, "status": "pass"},
            ])]),
    ]
    return {
        "schema_version": "1", "tool": "kagari", "kagari_version": "0.0.0-golden",
        "mode": "run", "seed": 7,
        "started_at": "2026-01-02T04:00:00.000Z",
        "finished_at": "2026-01-02T04:00:12.250Z",
        "environment": ENV,
        "git": {"head_sha": "1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e",
                "dirty": True, "base_ref": None, "base_sha": None},
        "suites": [{"name": "smoke", "file": "kagari.yaml",
                    "result": "over_budget", "benchmarks": benches}],
        "summary": {"benchmarks": 2, "commands": 2, "pass": 1, "improved": 0,
                    "inconclusive": 0, "accepted": 0, "regression": 0,
                    "over_budget": 1, "error": 0, "exit_code": 1},
        "exit_reason": "1 budget exceeded",
        "shard": {"index": 1, "count": 1, "replicate": False,
                  "selection": "all", "benchmarks": 2,
                  "run_id": "golden-run"},
    }


def analysis(max_percent=5, metrics=("latency",)):
    # a command's analysis settings, as compare writes them and merge needs
    return {"pairing": "rounds", "correction": "holm", "resamples": 2000,
            "confidence": 0.95, "min_samples": 8, "max_cv": 0.5,
            "runs_per_round": 1, "sequential": False,
            "metrics": {m: {"statistic": "median", "max_percent": max_percent,
                            "min_difference": None, "gate": True,
                            "configured": True} for m in metrics}}


def merged_report():
    """`kagari merge s1.json s2.json` of a `compare --shard K/2 --tag core`
    matrix split by count: shard 1 measured lex and eval, shard 2 parse
    (with two commands); merge re-analysed them together (Holm over the
    four comparisons), keeps the first seed, the earliest start, the
    latest finish and the largest steal, and records itself as shard 1/1
    with a merge- run id."""
    lat = lambda ms, rel=0.02: series(spread(ms * MS, rel), "ns")
    def one(name, cmdline, result, base_ms, head_ms, change, lo, hi,
            verdict, reason, p_reg):
        c = command(name, cmdline, result,
                    head={"latency": lat(head_ms)}, base={"latency": lat(base_ms)},
                    comparisons={"latency": cmp(
                        base_ms * MS, head_ms * MS, change, lo, hi, verdict,
                        reason, p_reg=p_reg)})
        c["error"] = None
        c["stderr_tail"] = None
        c["analysis"] = analysis()
        return c
    benches = [
        bench("lex", 9, "pass", [one(
            "lex", "./build/lex src/big.c", "pass", 12.0, 12.1, 0.8, -1.1,
            2.6, "pass", "the whole interval is below the 5% tolerance",
            0.02)], tags=["core"]),
        bench("eval", 15, "regression", [one(
            "eval", "./build/eval prog.scm", "regression", 50.0, 56.5, 13.0,
            10.2, 15.9, "regression",
            "the whole interval is above the 5% tolerance", 0.999)],
            tags=["core"]),
        bench("parse", 21, "inconclusive", [
            one("parse-fast", "./build/parse --fast src/big.c", "pass",
                20.0, 19.9, -0.5, -2.0, 1.1, "pass",
                "the whole interval is below the 5% tolerance", 0.01),
            one("parse-full", "./build/parse src/big.c", "inconclusive",
                30.0, 31.2, 4.0, 1.3, 6.8, "inconclusive",
                "the interval straddles the 5% tolerance", 0.42),
        ], tags=["core", "slow"]),
    ]
    return {
        "schema_version": "1", "tool": "kagari", "kagari_version": "0.0.0-golden",
        "mode": "compare", "seed": 42,
        "started_at": "2026-01-02T05:00:00.125Z",
        "finished_at": "2026-01-02T05:02:10.750Z",
        "interrupted": False,
        "environment": dict(ENV, steal_percent=2.5),
        "git": {"head_sha": "1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e",
                "dirty": False, "base_ref": "main",
                "base_sha": "0acd445dea07b1c2d3e4f5061728394a5b6c7d8e"},
        "shard": {"index": 1, "count": 1, "replicate": False,
                  "selection": "--tag core", "benchmarks": 3,
                  "run_id": "merge-5be1d0c2a94e7f31", "split": "count",
                  "assignment": "9363efd82c6e75f3", "merged_from": 2},
        "warnings": ["parse/parse-full latency: the coefficient of variation "
                     "of the head is 0.031, above the noise floor"],
        "suites": [{"name": "demo", "file": "kagari.yaml",
                    "result": "regression", "suite_from": "base",
                    "benchmarks": benches}],
        "summary": {"benchmarks": 3, "commands": 4, "pass": 2, "improved": 0,
                    "inconclusive": 1, "accepted": 0, "regression": 1,
                    "over_budget": 0, "error": 0, "exit_code": 1},
        "exit_reason": "1 gated regression found",
    }


def profile_block(symbols, runs, stacks, verdicts):
    """commands[].profile as compare --profile writes it: the symbols
    (function, binary), the sampled runs with per-function [symbol, self,
    incl] counts, the folded stacks per side and the judged functions,
    whose self and inclusive times (means over a side's runs of the
    function's share of the run's samples times its CPU time) are computed
    here from the runs; the intervals, p and q values are fixed."""
    def mean_ms(i, side, col):
        vals = [r["cpu_ns"] * c[col] / r["samples"]
                for r in runs if r["side"] == side
                for c in r["counts"] if c[0] == i]
        n = sum(1 for r in runs if r["side"] == side)
        return round(sum(vals) / n / MS, 3)
    def total(i, side):
        return sum(c[1] for r in runs if r["side"] == side
                   for c in r["counts"] if c[0] == i)
    funcs = []
    for i, (verdict, lo, hi, p, q) in verdicts:
        sb, sh = mean_ms(i, "base", 1), mean_ms(i, "head", 1)
        funcs.append({
            "function": symbols[i][0], "binary": symbols[i][1],
            "self_base_ms": sb, "self_head_ms": sh,
            "change_ms": round(sh - sb, 3), "ci_low_ms": lo,
            "ci_high_ms": hi, "q_value": q, "verdict": verdict,
            "p_value": p, "incl_base_ms": mean_ms(i, "base", 2),
            "incl_head_ms": mean_ms(i, "head", 2),
            "samples_base": total(i, "base"),
            "samples_head": total(i, "head")})
    side_total = lambda sd: sum(r["samples"] for r in runs if r["side"] == sd)
    return {
        "event": "cpu-clock", "frequency": 20000,
        "runs": {"base": 4, "head": 4},
        "samples": {"base": side_total("base"), "head": side_total("head")},
        "lost": {"base": 0, "head": 3}, "throttled": {"base": 0, "head": 1},
        "pairs": 4, "confidence": 0.95, "functions": funcs,
        "symbols": symbols, "sampled_runs": runs, "stacks": stacks,
    }


def profile_report():
    """compare --profile: the command `tree` carries a sampled profile in
    which leaf_b grew, leaf_a stayed the same, hash shrank and a libc
    function had too few samples to test; the command `tree-error` a
    profile that could not be taken (its error)."""
    symbols = [["main", "tree"], ["leaf_a", "tree"], ["leaf_b", "tree"],
               ["hash", "tree"], ["memcpy", "libc.so.6"],
               ["[unknown in libc.so.6]", "libc.so.6"]]
    # per side and round: samples of leaf_a, leaf_b, hash, memcpy
    shares = {"base": [(150, 148, 100, 1), (149, 150, 101, 0),
                       (151, 147, 99, 1), (150, 149, 100, 0)],
              "head": [(150, 165, 90, 2), (148, 166, 91, 1),
                       (151, 164, 89, 2), (149, 166, 90, 1)]}
    runs = []
    for rnd in range(1, 5):
        # ABBA: the side that goes first alternates
        for side in (("base", "head") if rnd % 2 else ("head", "base")):
            a, b, h, m = shares[side][rnd - 1]
            main_self = 2
            n = a + b + h + m + main_self
            runs.append({"side": side, "round": rnd,
                         "cpu_ns": n * 50_000, "samples": n,
                         "counts": [[0, main_self, n], [1, a, a], [2, b, b],
                                    [3, h, h + m], [4, m, m]]})
    sum_side = lambda side, k: sum(x[k] for x in shares[side])
    stacks = [["main", 8, 8],
              ["main;leaf_a", sum_side("base", 0), sum_side("head", 0)],
              ["main;leaf_b", sum_side("base", 1), sum_side("head", 1)],
              ["main;hash", sum_side("base", 2), sum_side("head", 2)],
              ["main;hash;memcpy", sum_side("base", 3), sum_side("head", 3)]]
    prof = profile_block(symbols, runs, stacks, [
        (2, ("grew", 0.701, 0.93, 0.0078125, 0.03125)),
        (1, ("same", -0.111, 0.09, 0.6875, 0.6875)),
        (3, ("shrank", -0.559, -0.44, 0.0078125, 0.03125)),
        (4, ("too_few_samples", None, None, None, None)),
    ])
    lat = lambda ms, rel=0.02: series(spread(ms * MS, rel), "ns")
    tree = command(
        "tree", "./build/tree -n 40", "regression",
        head={"latency": lat(21.3)}, base={"latency": lat(20.0)},
        comparisons={"latency": cmp(
            20.0 * MS, 21.3 * MS, 6.5, 5.3, 7.9, "regression",
            "the whole interval is above the 5% tolerance", p_reg=0.99)})
    tree["profile"] = prof
    err = command(
        "tree-error", "./build/tree -n 40 --threads 2", "pass",
        head={"latency": lat(11.0)}, base={"latency": lat(11.0)},
        comparisons={"latency": cmp(
            11.0 * MS, 11.0 * MS, 0.0, -1.9, 2.0, "pass",
            "the whole interval is below the 5% tolerance", p_reg=0.01)})
    err["profile"] = {"error": "perf_event_open: Permission denied "
                               "(perf_event_paranoid is 3)"}
    benches = [bench("tree", 7, "regression", [tree, err])]
    return {
        "schema_version": "1", "tool": "kagari", "kagari_version": "0.0.0-golden",
        "mode": "compare", "seed": 7,
        "started_at": "2026-01-02T06:00:00.000Z",
        "finished_at": "2026-01-02T06:00:41.000Z",
        "environment": ENV,
        "git": {"head_sha": "1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e",
                "dirty": False, "base_ref": "HEAD~1",
                "base_sha": "0acd445dea07b1c2d3e4f5061728394a5b6c7d8e"},
        "suites": [{"name": "prof", "file": "kagari.yaml",
                    "result": "regression", "benchmarks": benches}],
        "summary": {"benchmarks": 1, "commands": 2, "pass": 1, "improved": 0,
                    "inconclusive": 0, "accepted": 0, "regression": 1,
                    "over_budget": 0, "error": 0, "exit_code": 1},
        "exit_reason": "1 gated regression found",
        "shard": {"index": 1, "count": 1, "replicate": False,
                  "selection": "", "benchmarks": 1, "run_id": "golden-profile",
                  "split": "count", "assignment": "0123456789abcdef"},
    }


# Names and command lines that every format must escape: Markdown and
# table cells (| * _ ` #), HTML (<script> & " '), CSV (a comma, quotes, a
# leading = + - @ or tab: spreadsheet formulas), GitHub workflow commands (:: %
# newline; `:` and `,` in a property), non-ASCII and a 200-character
# name.
ODD = {
    "pipe": 'a|b <script>alert("x")</script> & \'q\' `tick` *star* _u_ #h, c',
    "formula": '=HYPERLINK("http://evil.example/","click")',
    "plus": "+1+2",
    "at": "@SUM(A1:A2)",
    "minus": "-2+3",
    "tab": "\t=1+1 after a tab",
    "gh": "::error file=x::boom %0A 100%",
    "newline": "first line\nsecond line\r\n::warning::injected",
    "jp": "日本語のベンチ é",
    "long": "long-" + "x" * 190 + "-tail",
}


def odd_report():
    lat = lambda ms, rel=0.02: series(spread(ms * MS, rel), "ns")
    def one(name, cmdline, result, base_ms, head_ms, change, lo, hi,
            verdict, reason, p_reg, budgets=None):
        return command(name, cmdline, result,
                       head={"latency": lat(head_ms)},
                       base={"latency": lat(base_ms)},
                       comparisons={"latency": cmp(
                           base_ms * MS, head_ms * MS, change, lo, hi,
                           verdict, reason, p_reg=p_reg)},
                       budgets=budgets)
    over = "the whole interval is above the 5% tolerance"
    under = "the whole interval is below the 5% tolerance"
    benches = [
        bench(ODD["pipe"], 5, "regression", [
            one(ODD["pipe"], "sh -c 'echo \"a|b\" && cat <in >out; x=`id`' "
                "# *not* _markdown_, done", "regression", 10.0, 12.0, 20.0,
                17.0, 23.0, "regression", over, 0.999,
                budgets=[{"metric": "latency", "aggregation": "p95",
                          "operator": "<=", "limit": 11 * MS,
                          "limit_text": "<= 11ms", "actual": 12_400_000,
                          "status": "fail"}])],
            tags=["<b>tag</b>", "a,b", "=1+1"]),
        bench(ODD["formula"], 9, "pass", [
            one(ODD["formula"], '=cmd|" /C calc"!A0', "pass", 5.0, 5.0,
                0.1, -1.0, 1.2, "pass", under, 0.01),
            one(ODD["plus"], "+echo plus", "pass", 5.0, 5.0, 0.0, -1.0,
                1.0, "pass", under, 0.01),
            one(ODD["at"], "@echo at", "pass", 5.0, 5.0, 0.0, -1.0,
                1.0, "pass", under, 0.01),
            one(ODD["minus"], "-echo minus", "pass", 5.0, 5.0, 0.0, -1.0,
                1.0, "pass", under, 0.01),
            one(ODD["tab"], "\techo tab", "pass", 5.0, 5.0, 0.0, -1.0,
                1.0, "pass", under, 0.01),
        ]),
        bench(ODD["gh"], 13, "regression", [
            one(ODD["gh"], "printf '::error::%s\\n' 100%", "regression",
                10.0, 11.5, 15.0, 12.0, 18.0, "regression", over, 0.999),
            one(ODD["newline"], "echo one\necho two", "regression",
                10.0, 11.5, 15.0, 12.0, 18.0, "regression", over, 0.999),
        ]),
        bench(ODD["jp"], 17, "improved", [
            one("café", "./bin/café --naïve 日本語.txt", "improved", 10.0,
                8.0, -20.0, -23.0, -17.0, "improved",
                "the whole interval is below -5%", 0.0)]),
        bench(ODD["long"], 21, "pass", [
            one(ODD["long"], "./build/" + ODD["long"] + " --flag", "pass",
                10.0, 10.0, 0.2, -1.0, 1.4, "pass", under, 0.02)]),
    ]
    return {
        "schema_version": "1", "tool": "kagari", "kagari_version": "0.0.0-golden",
        "mode": "compare", "seed": 9,
        "started_at": "2026-01-02T07:00:00.000Z",
        "finished_at": "2026-01-02T07:01:00.000Z",
        "environment": ENV,
        "git": {"head_sha": "1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e",
                "dirty": False, "base_ref": "feat/<b>&'x'",
                "base_sha": "0acd445dea07b1c2d3e4f5061728394a5b6c7d8e"},
        "suites": [{"name": "odd <suite> | & \"q\"",
                    "file": "suites/odd: \"names\", v2.yaml",
                    "result": "regression", "benchmarks": benches}],
        "summary": {"benchmarks": 5, "commands": 10, "pass": 6, "improved": 1,
                    "inconclusive": 0, "accepted": 0, "regression": 3,
                    "over_budget": 1, "error": 0, "exit_code": 1},
        "exit_reason": "3 gated regressions found",
        "shard": {"index": 1, "count": 1, "replicate": False,
                  "selection": "--filter 'a|b'", "benchmarks": 5,
                  "run_id": "golden-odd"},
    }


for name, rep in (("compare", compare_report()), ("run", run_report()),
                  ("merged", merged_report()), ("profile", profile_report()),
                  ("odd", odd_report())):
    with open(os.path.join(HERE, name + ".json"), "w") as f:
        json.dump(rep, f, indent=2, ensure_ascii=False)
        f.write("\n")
