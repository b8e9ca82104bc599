#!/usr/bin/env python3
"""The multi-head forward in NumPy beside ours, in one run.

The same computation at n = 64, 256 and 1024 tokens, d_model = 64, h = 8
heads (d_k = d_v = 8), dot similarity, sqrt(d_k) scaling, no mask, no
encoding, on one thread and on two: Q = X Wq, K = X Wk, V = X Wv; per head
scores = Q_h K_h^T, scaled = scores / sqrt(d_k), weights = the row softmax
(shifted by the row maximum), out_h = weights V_h; the concatenation. Every
stage is kept, as our Trace keeps it for the views (NumPy keeps no row
statistics; ours computes them as well).

Ours is timed by bench_core (bench/bench_core.cpp: BM_Forward/projected,
attn::compute with every stage stored, validation included; and
BM_Forward/derived, the same without storing the scaled stage, which the
views then derive from the scores), run with --benchmark_filter and read
from its JSON output; NumPy in a child process started with the thread
count set in the environment before NumPy loads its BLAS. All report the
minimum over repetitions, wall-clock.

--baseline OTHER_BENCH_CORE times another build's forward (an older commit)
in the same run, interleaved with ours and NumPy's, so that a loaded
machine slows all of them alike: compare the ratios, not the times.

Usage: bench/compare_numpy.py [--bench-core build/bin/bench_core] [--repetitions 5]
                              [--baseline OTHER/bin/bench_core]
Needs Debian's python3-numpy. Prints a table and the ratios ours / NumPy
(below 1: ours is faster). About 2 minutes; 3 with --baseline.
"""

import argparse
import json
import os
import subprocess
import sys
import time

SIZES = (64, 256, 1024)
THREADS = (1, 2)
HEADS = 8
D_MODEL = 64

CHILD = r"""
import sys, time
import numpy as np
n, h, d, reps = (int(a) for a in sys.argv[1:5])
rng = np.random.default_rng(n * 100 + h)
X = rng.standard_normal((n, d))
Wq, Wk, Wv = (rng.standard_normal((d, d)) / np.sqrt(d) for _ in range(3))
dk = d // h

def forward():
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    stages = []
    outs = []
    for i in range(h):
        q, k, v = Q[:, i*dk:(i+1)*dk], K[:, i*dk:(i+1)*dk], V[:, i*dk:(i+1)*dk]
        scores = q @ k.T
        scaled = scores / np.sqrt(dk)
        e = np.exp(scaled - scaled.max(axis=1, keepdims=True))
        weights = e / e.sum(axis=1, keepdims=True)
        out = weights @ v
        stages.append((scores, scaled, weights, out))
        outs.append(out)
    return np.concatenate(outs, axis=1), stages

forward()  # warm: BLAS threads, pages
best = float("inf")
for _ in range(reps):
    # as many calls as fill about 0.2 s, timed together
    calls = max(1, int(0.2 / max(best, 1e-5))) if best < float("inf") else 1
    t0 = time.perf_counter()
    for _ in range(calls):
        forward()
    best = min(best, (time.perf_counter() - t0) / calls)
print(best)
"""


def thread_env(threads):
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
        env[var] = str(threads)
    return env


def numpy_seconds(n, threads, reps):
    out = subprocess.run([sys.executable, "-c", CHILD, str(n), str(HEADS), str(D_MODEL), str(reps)],
                         env=thread_env(threads), check=True, capture_output=True, text=True)
    return float(out.stdout.strip())


def ours_seconds(bench_core, threads, reps, variant="projected"):
    """{n: seconds} for BM_Forward/<variant> at h = 8, the minimum of reps."""
    pattern = "BM_Forward/%s/n:(%s)/h:%d/" % (variant, "|".join(str(n) for n in SIZES), HEADS)
    out = subprocess.run([bench_core, "--benchmark_filter=" + pattern, "--benchmark_format=json",
                          "--benchmark_repetitions=%d" % reps, "--benchmark_report_aggregates_only=true"],
                         env=thread_env(threads), check=True, capture_output=True, text=True)
    report = json.loads(out.stdout)
    result = {}
    for b in report["benchmarks"]:
        if b.get("aggregate_name") != "min":
            continue
        n = int(b["run_name"].split("/n:")[1].split("/")[0])
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        result[n] = b["real_time"] * scale
    return result


def fmt(seconds):
    return "%.3g ms" % (seconds * 1e3) if seconds >= 1e-3 else "%.3g µs" % (seconds * 1e6)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench-core", default=os.path.join(here, "..", "build", "bin", "bench_core"))
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--baseline", help="another build's bench_core, timed beside ours")
    args = parser.parse_args()
    for path in [args.bench_core] + ([args.baseline] if args.baseline else []):
        if not os.access(path, os.X_OK):
            sys.exit("compare_numpy: %s: no bench_core there (build the bench_core target, or pass --bench-core)"
                     % path)
    try:
        import numpy
        version = numpy.__version__
    except ImportError:
        sys.exit("compare_numpy: NumPy is not installed (apt install python3-numpy)")
    try:
        load = open("/proc/loadavg").read().split()[:3]
    except OSError:
        load = ["?"]
    print("compare_numpy: NumPy %s, d_model %d, h %d, minimum of %d; load average %s"
          % (version, D_MODEL, HEADS, args.repetitions, " ".join(load)))
    base_head = " baseline | baseline / NumPy |" if args.baseline else ""
    print("| n | threads | NumPy |%s ours | ours / NumPy | ours, scaled derived | derived / NumPy |" % base_head)
    print("|--:|--:|--:|%s--:|--:|--:|--:|" % ("--:|--:|" if args.baseline else ""))

    def ratio(mine, theirs):
        return "%.2f×" % (mine / theirs) if mine else "?"

    for threads in THREADS:
        # Interleaved: baseline, ours, NumPy a size at a time, ours derived.
        base = ours_seconds(args.baseline, threads, args.repetitions) if args.baseline else {}
        ours = ours_seconds(args.bench_core, threads, args.repetitions)
        theirs = {n: numpy_seconds(n, threads, args.repetitions) for n in SIZES}
        derived = ours_seconds(args.bench_core, threads, args.repetitions, "derived")
        for n in SIZES:
            cells = [str(n), str(threads), fmt(theirs[n])]
            if args.baseline:
                b = base.get(n)
                cells += [fmt(b) if b else "?", ratio(b, theirs[n])]
            cells += [fmt(ours[n]) if ours.get(n) else "?", ratio(ours.get(n), theirs[n]),
                      fmt(derived[n]) if derived.get(n) else "?", ratio(derived.get(n), theirs[n])]
            print("| " + " | ".join(cells) + " |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
