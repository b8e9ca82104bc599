#!/usr/bin/python3
"""Reference gradients of the attention chain from PyTorch autograd (float64).

Writes tests/grad/reference-*.json: for each case the scenario (in the
scenario file's format), the loss, its value and the gradients the C++
backward (core/backward.h) must reproduce to 1e-9:
    {"scenario": {...}, "loss": "attend:J" | "target", "target": [[...]],
     "loss_value": L, "grad": {"Q": [[...]], ...}, "heads": [{"scores", "weights"}]}
An independent forward: written here from the formulas, not from the C++.
Run at development time (torch 1.13): /usr/bin/python3 scripts/grad-reference.py [NAME...]
(names given: only those cases are written; the random draws are the same either way).
"""

import json
import math
import os
import random
import sys

import torch

torch.set_default_dtype(torch.float64)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "grad")


def sinusoidal(n, w):
    pe = torch.zeros(n, w)
    for c in range(w):
        f = 10000.0 ** (-2.0 * (c // 2) / w)
        for p in range(n):
            pe[p, c] = math.sin(p * f) if c % 2 == 0 else math.cos(p * f)
    return pe


def rope(x, n):
    d = x.shape[1]
    out = []
    for i in range(d // 2):
        theta = torch.tensor([p * 10000.0 ** (-2.0 * i / d) for p in range(n)])
        c, s = torch.cos(theta), torch.sin(theta)
        a, b = x[:, 2 * i], x[:, 2 * i + 1]
        out += [a * c - b * s, a * s + b * c]
    return torch.stack(out, dim=1)


def blocked_matrix(sc, nq, nk):
    m = sc.get("mask", {})
    b = [[False] * nk for _ in range(nq)]
    for i in range(nq):
        for j in range(nk):
            b[i][j] = (m.get("causal", False) and j > i) or (m.get("key_padding") or [False] * nk)[j] \
                or (m.get("blocked") or [[False] * nk] * nq)[i][j]
    return torch.tensor(b)


def similarity(kind, q, k):
    if kind == "dot":
        return q @ k.T
    if kind == "cosine":
        return (q / q.norm(dim=1, keepdim=True)) @ (k / k.norm(dim=1, keepdim=True)).T
    return -((q[:, None, :] - k[None, :, :]) ** 2).sum(dim=2)


def forward(sc, params):
    inp = sc["inputs"]
    h = sc["heads"]
    enc = sc["positional_encoding"]
    if inp["mode"] == "direct":
        Q, K, V = params["Q"], params["K"], params["V"]
        if enc == "sinusoidal":
            Q = Q + sinusoidal(Q.shape[0], Q.shape[1])
            K = K + sinusoidal(K.shape[0], K.shape[1])
            V = V + sinusoidal(V.shape[0], V.shape[1])
    else:
        X = params["X"]
        S = params.get("source", X)
        if enc == "sinusoidal":
            X = X + sinusoidal(X.shape[0], X.shape[1])
            S = S + sinusoidal(S.shape[0], S.shape[1])
        Q, K, V = X @ params["Wq"], S @ params["Wk"], S @ params["Wv"]
    nq, nk = Q.shape[0], K.shape[0]
    dk, dv = Q.shape[1] // h, V.shape[1] // h
    c = {"sqrt_dk": math.sqrt(dk), "none": 1.0, "dk": float(dk)}[sc["scale"]]
    divisor = c * sc["temperature"]
    blocked = blocked_matrix(sc, nq, nk)
    heads, outs = [], []
    for i in range(h):
        q, k, v = Q[:, i * dk:(i + 1) * dk], K[:, i * dk:(i + 1) * dk], V[:, i * dv:(i + 1) * dv]
        if enc == "rope":
            q, k = rope(q, nq), rope(k, nk)
        scores = similarity(sc["similarity"], q, k)
        scores.retain_grad()
        x = scores / divisor
        if sc["mask_stage"] == "before_softmax":
            x = x.masked_fill(blocked, -math.inf)
        if sc.get("softmax", "standard") == "plus_one":
            # softmax_1 = e^x / (1 + sum e^x): the ordinary softmax with a sink column of score 0, dropped after.
            w = torch.softmax(torch.cat([x, torch.zeros(nq, 1)], dim=1), dim=1)[:, :nk]
        else:
            w = torch.softmax(x, dim=1)
        if sc["mask_stage"] != "before_softmax":
            w = w * (~blocked)
        w.retain_grad()
        heads.append((scores, w))
        outs.append(w @ v)
    concat = torch.cat(outs, dim=1)
    Y = concat @ params["Wo"] if "Wo" in params else concat
    return Y, heads, blocked


def tolist(t):
    return [[float(v) for v in row] for row in t.detach()]


ONLY = sys.argv[1:]  # names to write; none: every case


def run(name, sc, loss, target=None):
    if ONLY and name not in ONLY:
        return
    inp = sc["inputs"]
    params = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in inp.items() if k != "mode"}
    Y, heads, blocked = forward(sc, params)
    if loss.startswith("attend:"):
        j = int(loss.split(":")[1]) - 1
        total = 0
        for _, w in heads:
            for i in range(Y.shape[0]):
                if not blocked[i, j]:
                    total = total + torch.log(w[i, j])
        L = -total / (len(heads) * Y.shape[0])
    else:
        L = 0.5 * ((Y - torch.tensor(target)) ** 2).sum()
    L.backward()
    out = {"scenario": sc, "loss": loss, "loss_value": float(L),
           "grad": {k: tolist(p.grad if p.grad is not None else torch.zeros_like(p)) for k, p in params.items()},
           "heads": [{"head": i + 1, "scores": tolist(s.grad if s.grad is not None else torch.zeros_like(s)),
                      "weights": tolist(w.grad if w.grad is not None else torch.zeros_like(w))}
                     for i, (s, w) in enumerate(heads)]}
    if target is not None:
        out["target"] = target
    with open(os.path.join(OUT, "reference-%s.json" % name), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


def rand(rng, r, c):
    return [[round(rng.uniform(-1, 1), 6) for _ in range(c)] for _ in range(r)]


def scenario(mode, inputs, **settings):
    sc = {"format": "attention-lab/scenario", "version": 1, "title": "gradient reference",
          "inputs": dict(mode=mode, **inputs), "heads": 1, "similarity": "dot", "scale": "sqrt_dk",
          "temperature": 1, "mask": {"causal": False}, "mask_stage": "before_softmax",
          "positional_encoding": "none", "seed": 7}
    sc.update(settings)
    return sc


def main():
    rng = random.Random(2024)
    # Seed 000's worked example.
    run("seed000", scenario("direct", {"Q": [[2, 0]], "K": [[2, 0], [0, 2], [1, 1]],
                                       "V": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}), "attend:1")
    # Projected, two heads, cosine, W_O, sinusoidal, causal mask after the softmax.
    run("projected-cosine-after",
        scenario("projected", {"X": rand(rng, 4, 3), "Wq": rand(rng, 3, 4), "Wk": rand(rng, 3, 4),
                               "Wv": rand(rng, 3, 6), "Wo": rand(rng, 6, 2)},
                 heads=2, similarity="cosine", temperature=0.7, mask={"causal": True},
                 mask_stage="after_softmax", positional_encoding="sinusoidal"),
        "target", rand(rng, 4, 2))
    # Direct, -distance, ÷d_k, RoPE, key padding before the softmax.
    run("direct-distance-rope",
        scenario("direct", {"Q": rand(rng, 3, 4), "K": rand(rng, 5, 4), "V": rand(rng, 5, 3)},
                 similarity="neg_sq_distance", scale="dk", temperature=0.5,
                 mask={"causal": False, "key_padding": [False, True, False, False, True]},
                 positional_encoding="rope"),
        "attend:3")
    # Cross-attention, three heads, no scaling, RoPE, hand-blocked cells, mask after.
    blocked = [[rng.random() < 0.3 and j != i for j in range(4)] for i in range(3)]
    run("cross-rope-blocked",
        scenario("projected", {"X": rand(rng, 3, 4), "source": rand(rng, 4, 4), "Wq": rand(rng, 4, 6),
                               "Wk": rand(rng, 4, 6), "Wv": rand(rng, 4, 3)},
                 heads=3, scale="none", temperature=1.3,
                 mask={"causal": False, "blocked": blocked}, mask_stage="after_softmax",
                 positional_encoding="rope"),
        "target", rand(rng, 3, 3))
    # Direct, dot, sinusoidal, causal before the softmax, two heads, attend.
    run("direct-dot-causal",
        scenario("direct", {"Q": rand(rng, 4, 4), "K": rand(rng, 4, 4), "V": rand(rng, 4, 2)},
                 heads=2, temperature=2.0, mask={"causal": True}, positional_encoding="sinusoidal"),
        "attend:1")
    # softmax_1 (plus_one): projected, two heads, causal before the softmax, target loss.
    run("plus-one-causal",
        scenario("projected", {"X": rand(rng, 4, 3), "Wq": rand(rng, 3, 4), "Wk": rand(rng, 3, 4),
                               "Wv": rand(rng, 3, 4), "Wo": rand(rng, 4, 2)},
                 heads=2, temperature=0.6, mask={"causal": True}, softmax="plus_one"),
        "target", rand(rng, 4, 2))
    # softmax_1, direct, key padding after the softmax, attend loss.
    run("plus-one-after-attend",
        scenario("direct", {"Q": rand(rng, 3, 2), "K": rand(rng, 4, 2), "V": rand(rng, 4, 3)},
                 mask={"causal": False, "key_padding": [False, False, True, False]},
                 mask_stage="after_softmax", softmax="plus_one"),
        "attend:2")


if __name__ == "__main__":
    main()
