#!/usr/bin/env python3
"""Two builds of bench_core in turn, one benchmark, the ratio pair by pair.

On a VM whose speed drifts by tens of per cent from minute to minute, two
builds timed a few minutes apart say nothing; timed in turn, A B A B ...,
each pair's ratio A / B is taken in the same minute. Prints each pair's
times (ms, bench_core's own real time, so start-up and the first touch of
memory are left out) and the median, smallest and largest ratio.

Usage: bench/ab_core.py A/bin/bench_core B/bin/bench_core FILTER [--pairs 8] [--min-time 1]
OMP_NUM_THREADS applies to both (default here: 1). Run it both ways round
(A B, then B A): on a noisy VM the order alone has moved the median by
several per cent, and a build against itself shows how noisy the minute is.
"""

import argparse
import os
import statistics
import subprocess


def timed(binary, benchmark, min_time, env):
    out = subprocess.run([binary, f"--benchmark_filter={benchmark}", f"--benchmark_min_time={min_time}",
                          "--benchmark_format=csv"], capture_output=True, text=True, env=env, check=True).stdout
    rows = [line for line in out.splitlines() if line.startswith('"')]
    if len(rows) != 1:
        raise SystemExit(f"ab_core: the filter must pick exactly one benchmark (got {len(rows)})")
    fields = rows[0].split(",")
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[fields[4]]
    return float(fields[2]) * scale


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("filter")
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--min-time", type=float, default=1.0,
                        help="seconds a run; long enough that the first iteration (page faults) is not the estimate")
    args = parser.parse_args()
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    ratios = []
    for _ in range(args.pairs):
        a = timed(args.a, args.filter, args.min_time, env)
        b = timed(args.b, args.filter, args.min_time, env)
        ratios.append(a / b)
        print(f"A {a:8.2f} ms   B {b:8.2f} ms   A/B {a / b:.3f}", flush=True)
    print(f"A/B median {statistics.median(ratios):.3f} (smallest {min(ratios):.3f}, largest {max(ratios):.3f}), "
          f"{args.pairs} pairs, OMP_NUM_THREADS={env['OMP_NUM_THREADS']}")


if __name__ == "__main__":
    main()
