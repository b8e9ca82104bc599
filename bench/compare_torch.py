#!/usr/bin/python3
"""A training step of the built-in model's shape, ours against PyTorch's.

The step: 3 layers × 4 heads, d_model 128, n_inner 512, vocabulary 601,
a batch of 32 sequences of 64 tokens; the forward (pre-LN blocks, causal
attention, GELU tanh, tied logits), the mean cross-entropy, the backward and
one AdamW update. Ours is build/bin/bench_train step (double precision, the
core's own backward); PyTorch (Debian's python3-torch) does the same step in
float64 and float32. One thread and two, each measurement the median of
--steps steps after one warm-up step, the runs interleaved (ours, torch f64,
torch f32, then again) so that a busy machine weighs on all alike.

    /usr/bin/python3 bench/compare_torch.py [--build build] [--steps 5] [--rounds 2] [--coretype SkylakeX|none]
    /usr/bin/python3 bench/compare_torch.py --one ours|float64|float32 [--threads N] [--steps K]

Both sides run with the same OPENBLAS_CORETYPE (default SkylakeX), so that
they multiply with the same OpenBLAS kernels.

Prints a table and the ratios ours / torch; docs/performance.md quotes it.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time


def torch_step_times(threads, dtype_name, steps):
    """Runs in a child process so that the thread count is set before torch starts."""
    code = r'''
import math, sys, time, json, torch
threads, dtype_name, steps = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
torch.set_num_threads(threads)
dtype = torch.float64 if dtype_name == "float64" else torch.float32
L, H, d, I, V, T, B = 3, 4, 128, 512, 601, 64, 32
g = torch.Generator().manual_seed(1)
def p(*shape, sd=0.02):
    return (torch.randn(*shape, generator=g, dtype=dtype) * sd).requires_grad_(True)
wte, wpe = p(V, d, sd=0.5), p(T, d, sd=0.5)
layers = [dict(g1=torch.ones(d, dtype=dtype, requires_grad=True), b1=torch.zeros(d, dtype=dtype, requires_grad=True),
               wa=p(d, 3 * d, sd=d ** -0.5), ba=torch.zeros(3 * d, dtype=dtype, requires_grad=True),
               wp=p(d, d, sd=d ** -0.5), bp=torch.zeros(d, dtype=dtype, requires_grad=True),
               g2=torch.ones(d, dtype=dtype, requires_grad=True), b2=torch.zeros(d, dtype=dtype, requires_grad=True),
               wf=p(d, I, sd=d ** -0.5), bf=torch.zeros(I, dtype=dtype, requires_grad=True),
               wm=p(I, d, sd=I ** -0.5), bm=torch.zeros(d, dtype=dtype, requires_grad=True)) for _ in range(L)]
gf, bf_ = torch.ones(d, dtype=dtype, requires_grad=True), torch.zeros(d, dtype=dtype, requires_grad=True)
params = [wte, wpe, gf, bf_] + [t for l in layers for t in l.values()]
opt = torch.optim.AdamW(params, lr=1e-4, weight_decay=0.01)
ids = torch.randint(0, V, (B, T), generator=g)
targets = torch.randint(0, V, (B, T), generator=g)
mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
dh = d // H
c = math.sqrt(2 / math.pi)
def ln(x, w, b):
    return torch.nn.functional.layer_norm(x, (d,), w, b, 1e-5)
def step():
    x = wte[ids] + wpe
    for l in layers:
        qkv = ln(x, l["g1"], l["b1"]) @ l["wa"] + l["ba"]
        q, k, v = (t.view(B, T, H, dh).transpose(1, 2) for t in qkv.split(d, -1))
        w = torch.softmax((q @ k.transpose(-1, -2) / math.sqrt(dh)).masked_fill(mask, float("-inf")), -1)
        x = x + (w @ v).transpose(1, 2).reshape(B, T, d) @ l["wp"] + l["bp"]
        h = ln(x, l["g2"], l["b2"]) @ l["wf"] + l["bf"]
        x = x + torch.nn.functional.gelu(h, approximate="tanh") @ l["wm"] + l["bm"]
    logits = ln(x, gf, bf_) @ wte.T
    loss = torch.nn.functional.cross_entropy(logits.view(B * T, V), targets.view(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
times, cpu = [], []
for i in range(steps + 1):
    t0, c0 = time.perf_counter(), time.process_time()
    step()
    if i:
        times.append(1000 * (time.perf_counter() - t0))
        cpu.append(1000 * (time.process_time() - c0))
times.sort()
cpu.sort()
blas = "openblas" if any("openblas" in line for line in open("/proc/self/maps")) else "other"
try:  # the kernels OpenBLAS picked (torch reaches it through libblas.so.3)
    import ctypes
    lib = ctypes.CDLL("libblas.so.3")
    lib.openblas_get_corename.restype = ctypes.c_char_p
    blas += ", " + lib.openblas_get_corename().decode()
except (OSError, AttributeError):
    pass
print(json.dumps(dict(median_ms=times[len(times) // 2], min_ms=times[0], median_cpu_ms=cpu[len(cpu) // 2], blas=blas)))
'''
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    if CORETYPE:
        env["OPENBLAS_CORETYPE"] = CORETYPE
    out = subprocess.run([sys.executable, "-c", code, str(threads), dtype_name, str(steps)], env=env,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


CORETYPE = None  # OPENBLAS_CORETYPE for both sides (--coretype)


def ours(build, threads, steps):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    if CORETYPE:
        env["OPENBLAS_CORETYPE"] = CORETYPE
    out = subprocess.run([os.path.join(build, "bin", "bench_train"), "step", "--threads", str(threads),
                          "--steps", str(steps)], env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build"))
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--coretype", default="SkylakeX",
                    help="OPENBLAS_CORETYPE for both sides (OpenBLAS 0.3.21 takes this machine's Xeon for a Prescott "
                         "and picks SSE3 kernels; ours sets SkylakeX or Haswell itself when unset); 'none': leave "
                         "it unset (torch then gets the Prescott kernels, ours still its own choice)")
    ap.add_argument("--one", choices=["ours", "float64", "float32"],
                    help="time one side only and print its JSON (for farm-bench --vs)")
    ap.add_argument("--threads", type=int, default=1, help="with --one")
    args = ap.parse_args()
    global CORETYPE
    CORETYPE = None if args.coretype == "none" else args.coretype
    if args.one:
        res = ours(args.build, args.threads, args.steps) if args.one == "ours" else \
            torch_step_times(args.threads, args.one, args.steps)
        print(json.dumps(res))
        return
    import torch
    print("torch", torch.__version__, "| config:", " ".join(l.strip() for l in torch.__config__.show().splitlines()
                                                           if "BLAS" in l or "LAPACK" in l)[:200])
    results = {}
    for r in range(args.rounds):
        for threads in (1, 2):
            for name, run in (("ours (double)", lambda: ours(args.build, threads, args.steps)),
                              ("torch float64", lambda: torch_step_times(threads, "float64", args.steps)),
                              ("torch float32", lambda: torch_step_times(threads, "float32", args.steps))):
                res = run()
                results.setdefault((name, threads), []).append(res["median_ms"])
                results.setdefault((name, threads, "cpu"), []).append(res["median_cpu_ms"])
                extra = res.get("products") or res.get("blas")
                print(f"round {r + 1}, {threads} thread(s), {name}: {res['median_ms']:.1f} ms a step, "
                      f"{res['median_cpu_ms']:.1f} ms CPU ({extra})", flush=True)
    names = ("ours (double)", "torch float64", "torch float32")
    for kind, label in ((None, "wall"), ("cpu", "CPU (all the process's threads)")):
        print()
        print(f"{label}:")
        print("| threads | ours (double) | torch float64 | torch float32 | ours / f64 | ours / f32 |")
        print("|---|---|---|---|---|---|")
        for threads in (1, 2):
            key = (lambda n: (n, threads)) if kind is None else (lambda n: (n, threads, kind))
            o, f64, f32 = (statistics.median(results[key(n)]) for n in names)
            print(f"| {threads} | {o:.0f} ms | {f64:.0f} ms | {f32:.0f} ms | {o / f64:.2f}× | {o / f32:.2f}× |")


if __name__ == "__main__":
    main()
