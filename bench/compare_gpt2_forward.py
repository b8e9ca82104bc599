#!/usr/bin/env python3
"""A GPT-2 forward of 32 tokens: ours (bench_model, the model mode's whole
forward on Enter, every head's stages kept) beside PyTorch's in float32 on
one thread, the same weights and the same ids, interleaved in one run.

    bench/compare_gpt2_forward.py --model DIR [--rounds 3] [--repeat 5]
    bench/compare_gpt2_forward.py --model DIR --key [--rounds 3]

--key compares a key typed at the end of the 32-token sentence instead:
ours is bench_model's live typing (the incremental forward's median per
key, every head's stages kept; the view's redraw not counted), PyTorch's
is one and two new positions through every layer against a KV cache of
the positions before, and the last position's logits.

DIR is a GPT-2 folder (bench_model --write-random DIR --layers 12
--positions 1024 --vocab 50257 --dtype F32 writes one of GPT-2 small's
shapes). PyTorch is Debian's python3-torch; the script says which BLAS it
and we use, and the load average. Development time only (not in CI).
"""
import argparse
import json
import os
import re
import statistics
import struct
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(HERE, "..", "build", "bin")
TEXT = ("say cat red box . say cat red box . the cat sat on the mat . the dog "
        "sat on the box . the girl sees the king . she is happy . he is sad .")


def load(folder):
    with open(os.path.join(folder, "model.safetensors"), "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    types = {"F32": np.float32, "F16": np.float16, "F64": np.float64}
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        a = np.frombuffer(data, dtype=types[info["dtype"]], count=(e - b) // np.dtype(types[info["dtype"]]).itemsize,
                          offset=b).reshape(info["shape"])
        out[name.removeprefix("transformer.")] = torch.from_numpy(a.astype(np.float32))
    with open(os.path.join(folder, "config.json")) as f:
        return out, json.load(f)


def run(W, cfg, ids, start=0, cache=None, keep=None):
    """Positions start..n-1 of ids through every layer, given cache[l] =
    (k, v) of the positions before `start` in layer l (H x start x dh);
    keep, a list, gets each layer's (k, v) of all n positions. The last
    position's logits."""
    d, H, L = cfg["n_embd"], cfg["n_head"], cfg["n_layer"]
    eps = cfg.get("layer_norm_epsilon", 1e-5)
    n, dh = len(ids), d // H
    m = n - start
    x = W["wte.weight"][ids[start:]] + W["wpe.weight"][start:n]
    mask = torch.full((m, n), float("-inf")).triu(start + 1)
    for l in range(L):
        p = f"h.{l}."
        h = F.layer_norm(x, (d,), W[p + "ln_1.weight"], W[p + "ln_1.bias"], eps)
        qkv = h @ W[p + "attn.c_attn.weight"] + W[p + "attn.c_attn.bias"]
        q, k, v = (t.reshape(m, H, dh).transpose(0, 1) for t in qkv.split(d, dim=1))
        if start:
            k = torch.cat([cache[l][0], k], dim=1)
            v = torch.cat([cache[l][1], v], dim=1)
        if keep is not None:
            keep.append((k, v))
        w = torch.softmax(q @ k.transpose(1, 2) / dh ** 0.5 + mask, dim=-1)
        o = (w @ v).transpose(0, 1).reshape(m, d)
        x = x + o @ W[p + "attn.c_proj.weight"] + W[p + "attn.c_proj.bias"]
        h = F.layer_norm(x, (d,), W[p + "ln_2.weight"], W[p + "ln_2.bias"], eps)
        g = F.gelu(h @ W[p + "mlp.c_fc.weight"] + W[p + "mlp.c_fc.bias"], approximate="tanh")
        x = x + g @ W[p + "mlp.c_proj.weight"] + W[p + "mlp.c_proj.bias"]
    final = F.layer_norm(x, (d,), W["ln_f.weight"], W["ln_f.bias"], eps)
    return final[-1] @ W["wte.weight"].T


def forward(W, cfg, ids):
    return run(W, cfg, ids)


def kv_cache(W, cfg, ids, upto):
    """Each layer's keys and values of positions 0..upto-1."""
    cache = []
    run(W, cfg, ids[:upto], keep=cache)
    return cache


def key_forward(W, cfg, ids, cache, start):
    return run(W, cfg, ids, start, cache)


def ours_key(folder):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    r = subprocess.run([os.path.join(BUILD, "bench_model"), "--model", folder, "--tokens", "32", "--repeat", "1"],
                       capture_output=True, text=True, env=env, check=True)
    row = [line for line in r.stdout.splitlines() if line.startswith("this build")][-1]
    # this build  32  K | total m / p95 | forward m / p95 | views | paint
    cells = [c.strip() for c in row.split("|")]
    return float(cells[2].split("/")[0]), float(cells[1].split("/")[0]), float(cells[1].split("/")[1])


def ours(folder, repeat):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    r = subprocess.run([os.path.join(BUILD, "bench_model"), "--model", folder, "--enter", "--repeat", str(repeat)],
                       capture_output=True, text=True, env=env, check=True)
    row = [line for line in r.stdout.splitlines() if line.startswith("per Enter")][-1]
    # per Enter  32  R | total m / p95 | forward m / p95 | ...
    cells = [c.strip() for c in row.split("|")]
    return float(cells[2].split("/")[0]), int(row.split()[2])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--key", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(1)
    W, cfg = load(a.model)
    trace = subprocess.run([os.path.join(BUILD, "attention-lab-cli"), "model", "trace", "--model", a.model, "--text", TEXT],
                           capture_output=True, text=True, check=True).stdout
    ids = [int(m) for m in re.findall(r"^\s+\d+\s+id\s+(\d+)", trace, re.M)][:32]
    # The library the products run on, as mapped in this process (Debian's
    # torch is built against the generic libblas.so.3, which the alternatives
    # system points at OpenBLAS or the reference BLAS).
    torch.ones(8, 8) @ torch.ones(8, 8)
    with open("/proc/self/maps") as maps:
        blas = sorted({line.split()[-1] for line in maps if "blas" in line.split()[-1].lower()})
    print(f"model {a.model}: {cfg['n_layer']} layers, n_embd {cfg['n_embd']}, vocab {cfg['vocab_size']}; {len(ids)} tokens")
    print(f"PyTorch {torch.__version__} float32, 1 thread, BLAS {';'.join(blas) or 'unknown'}; "
          f"load average {os.getloadavg()[0]:.2f}")
    idt = torch.tensor(ids)
    if a.key:
        n = len(ids)
        caches = {m: kv_cache(W, cfg, idt, n - m) for m in (1, 2)}
        for r in range(a.rounds):
            med = {}
            for m in (1, 2):
                key_forward(W, cfg, idt, caches[m], n - m)  # warm
                times = []
                for _ in range(20):
                    t0 = time.perf_counter()
                    key_forward(W, cfg, idt, caches[m], n - m)
                    times.append((time.perf_counter() - t0) * 1e3)
                med[m] = statistics.median(times)
            fwd, total, p95 = ours_key(a.model)
            print(f"round {r + 1}: PyTorch a key, 1 new position {med[1]:.1f} ms, 2 positions {med[2]:.1f} ms; "
                  f"ours: forward {fwd:.1f} ms a key (median), whole key with the views {total:.1f} ms (p95 {p95:.1f}); "
                  f"ours' forward / PyTorch's 1-2 positions {fwd / med[1]:.2f}-{fwd / med[2]:.2f}")
        return 0
    forward(W, cfg, idt)  # warm
    for r in range(a.rounds):
        times = []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            forward(W, cfg, idt)
            times.append((time.perf_counter() - t0) * 1e3)
        torch_ms = statistics.median(times)
        ours_ms, tokens = ours(a.model, a.repeat)
        print(f"round {r + 1}: PyTorch {torch_ms:.1f} ms, ours {ours_ms:.1f} ms ({tokens} tokens): "
              f"ours / PyTorch {ours_ms / torch_ms:.2f}")


if __name__ == "__main__":
    sys.exit(main())
