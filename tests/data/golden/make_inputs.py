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


for name, rep in (("compare", compare_report()), ("run", run_report())):
    with open(os.path.join(HERE, name + ".json"), "w") as f:
        json.dump(rep, f, indent=2, ensure_ascii=False)
        f.write("\n")
