#!/usr/bin/env python3
"""The multi-head forward in NumPy and PyTorch beside ours, in one run.

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

The peers run on the strongest BLAS this machine has: Debian's NumPy and
PyTorch call libblas.so.3, which the alternatives point at OpenBLAS once
libopenblas0-pthread is installed, and at the slow reference BLAS before.
Each child names the BLAS library it has mapped (read from /proc/self/maps
after a product), the table says which, and no ratio is reported against the
reference BLAS: the script stops and says what to install.
PyTorch (Debian's python3-torch) does the same forward in float64, with
torch.set_num_threads; it is left out, and said so, where it is missing.

--baseline OTHER_BENCH_CORE times another build's forward (an older commit)
in the same run, interleaved with ours and NumPy's, so that a loaded
machine slows all of them alike: compare the ratios, not the times.

Usage: bench/compare_numpy.py [--bench-core build/bin/bench_core] [--repetitions 5]
                              [--baseline OTHER/bin/bench_core]
Needs Debian's python3-numpy and libopenblas0-pthread (python3-torch for the
PyTorch column). NumPy runs twice: as plainly written (fresh arrays every
call) and tuned (buffers allocated once, operations in place); the ratios
are against the faster of the two. Prints a table and the ratios ours /
NumPy and ours / PyTorch (below 1: ours is faster). About 3 minutes; 4 with --baseline.
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
n, h, d, reps, tuned = (int(a) for a in sys.argv[1:6])
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

# The strongest NumPy we know for the same work: every stage in a buffer
# allocated once (no fresh 8 MB arrays, no page faults per call), the
# operations in place, each head's q, k, v made contiguous for the BLAS.
scores_b, scaled_b, weights_b = (np.empty((h, n, n)) for _ in range(3))
out_b, rowmax, rowsum = np.empty((n, d)), np.empty((n, 1)), np.empty((n, 1))
c = 1.0 / np.sqrt(dk)

def forward_tuned():
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    for i in range(h):
        q, k, v = (np.ascontiguousarray(M[:, i*dk:(i+1)*dk]) for M in (Q, K, V))
        np.matmul(q, k.T, out=scores_b[i])
        np.multiply(scores_b[i], c, out=scaled_b[i])
        np.max(scaled_b[i], axis=1, keepdims=True, out=rowmax)
        np.subtract(scaled_b[i], rowmax, out=weights_b[i])
        np.exp(weights_b[i], out=weights_b[i])
        np.sum(weights_b[i], axis=1, keepdims=True, out=rowsum)
        np.divide(weights_b[i], rowsum, out=weights_b[i])
        np.matmul(weights_b[i], v, out=out_b[:, i*dk:(i+1)*dk])
    return out_b

if not np.allclose(forward_tuned(), forward()[0], rtol=1e-12, atol=1e-12):
    sys.exit("the tuned NumPy forward differs from the plain one")
if tuned:
    forward = forward_tuned

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
print(blas_library())
"""

# Which BLAS the child has mapped, after it has multiplied: the first
# library in /proc/self/maps whose name says BLAS.
BLAS_PROBE = r"""
def blas_library():
    names = []
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            base = path.rsplit("/", 1)[-1]
            if ("blas" in base or "mkl" in base or "blis" in base) and path not in names:
                names.append(path)
    return ";".join(names) or "?"
"""

TORCH_CHILD = r"""
import sys, time
import torch
n, h, d, reps, threads = (int(a) for a in sys.argv[1:6])
torch.set_num_threads(threads)
g = torch.Generator().manual_seed(n * 100 + h)
X = torch.randn(n, d, generator=g, dtype=torch.float64)
Wq, Wk, Wv = (torch.randn(d, d, generator=g, dtype=torch.float64) / d ** 0.5 for _ in range(3))
dk = d // h

def forward():
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    stages = []
    outs = []
    for i in range(h):
        q, k, v = Q[:, i*dk:(i+1)*dk], K[:, i*dk:(i+1)*dk], V[:, i*dk:(i+1)*dk]
        scores = q @ k.T
        scaled = scores / dk ** 0.5
        e = torch.exp(scaled - scaled.max(dim=1, keepdim=True).values)
        weights = e / e.sum(dim=1, keepdim=True)
        out = weights @ v
        stages.append((scores, scaled, weights, out))
        outs.append(out)
    return torch.cat(outs, dim=1), stages

with torch.no_grad():
    forward()
    best = float("inf")
    for _ in range(reps):
        calls = max(1, int(0.2 / max(best, 1e-5))) if best < float("inf") else 1
        t0 = time.perf_counter()
        for _ in range(calls):
            forward()
        best = min(best, (time.perf_counter() - t0) / calls)
print(best)
print(blas_library())
"""


def thread_env(threads):
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
        env[var] = str(threads)
    return env


def child_seconds(script, args, threads):
    """(seconds, the BLAS library the child mapped)."""
    out = subprocess.run([sys.executable, "-c", BLAS_PROBE + script] + [str(a) for a in args],
                         env=thread_env(threads), check=True, capture_output=True, text=True)
    lines = out.stdout.strip().splitlines()
    return float(lines[0]), lines[1] if len(lines) > 1 else "?"


def numpy_seconds(n, threads, reps, tuned=0):
    return child_seconds(CHILD, [n, HEADS, D_MODEL, reps, tuned], threads)


def torch_seconds(n, threads, reps):
    return child_seconds(TORCH_CHILD, [n, HEADS, D_MODEL, reps, threads], threads)


def blas_name(path):
    """OpenBLAS, MKL, BLIS, or the reference BLAS, from the library's path."""
    low = path.lower()
    for key, name in (("openblas", "OpenBLAS"), ("mkl", "MKL"), ("blis", "BLIS"), ("atlas", "ATLAS")):
        if key in low:
            return name
    if "/blas/" in low or low.endswith("/libblas.so.3"):
        return "reference BLAS"
    return "unknown BLAS"


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
    have_torch = subprocess.run([sys.executable, "-c", "import torch"], capture_output=True).returncode == 0
    # The peers' BLAS, found once before anything is timed.
    _, numpy_blas = numpy_seconds(SIZES[0], 1, 1)
    if blas_name(numpy_blas) == "reference BLAS":
        sys.exit("compare_numpy: NumPy runs on the reference BLAS (%s), a peer too weak to compare with; "
                 "install libopenblas0-pthread (sudo apt-get install libopenblas0-pthread) and run again"
                 % numpy_blas)
    torch_blas = torch_seconds(SIZES[0], 1, 1)[1] if have_torch else ""
    try:
        load = open("/proc/loadavg").read().split()[:3]
    except OSError:
        load = ["?"]
    print("compare_numpy: NumPy %s on %s (%s); PyTorch %s; d_model %d, h %d, minimum of %d; load average %s"
          % (version, blas_name(numpy_blas), numpy_blas,
             ("float64 on %s (%s)" % (blas_name(torch_blas), torch_blas)) if have_torch else "not installed (python3-torch)",
             D_MODEL, HEADS, args.repetitions, " ".join(load)))
    base_head = " baseline | baseline / NumPy | baseline, derived | baseline derived / NumPy |" if args.baseline else ""
    torch_head = " PyTorch | ours / PyTorch |" if have_torch else ""
    print("| n | threads | NumPy, plain | NumPy, buffers reused |%s%s ours | ours / NumPy | ours, scaled derived | derived / NumPy |" % (torch_head, base_head))
    print("|--:|--:|--:|--:|%s%s--:|--:|--:|--:|" % ("--:|--:|" if have_torch else "", "--:|--:|--:|--:|" if args.baseline else ""))

    def ratio(mine, theirs):
        return "%.2f×" % (mine / theirs) if mine and theirs else "?"

    for threads in THREADS:
        # Interleaved: baseline, ours, the peers a size at a time, ours derived.
        base = ours_seconds(args.baseline, threads, args.repetitions) if args.baseline else {}
        ours = ours_seconds(args.bench_core, threads, args.repetitions)
        plain = {n: numpy_seconds(n, threads, args.repetitions)[0] for n in SIZES}
        tuned = {n: numpy_seconds(n, threads, args.repetitions, 1)[0] for n in SIZES}
        # The ratios are against the faster NumPy of the two.
        theirs = {n: min(plain[n], tuned[n]) for n in SIZES}
        torch_times = {n: torch_seconds(n, threads, args.repetitions)[0] for n in SIZES} if have_torch else {}
        derived = ours_seconds(args.bench_core, threads, args.repetitions, "derived")
        base_derived = ours_seconds(args.baseline, threads, args.repetitions, "derived") if args.baseline else {}
        for n in SIZES:
            cells = [str(n), str(threads), fmt(plain[n]), fmt(tuned[n])]
            if have_torch:
                cells += [fmt(torch_times[n]), ratio(ours.get(n), torch_times[n])]
            if args.baseline:
                b = base.get(n)
                bd = base_derived.get(n)
                cells += [fmt(b) if b else "?", ratio(b, theirs[n]), fmt(bd) if bd else "?", ratio(bd, theirs[n])]
            cells += [fmt(ours[n]) if ours.get(n) else "?", ratio(ours.get(n), theirs[n]),
                      fmt(derived[n]) if derived.get(n) else "?", ratio(derived.get(n), theirs[n])]
            print("| " + " | ".join(cells) + " |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
