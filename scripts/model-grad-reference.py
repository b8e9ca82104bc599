#!/usr/bin/python3
"""Writes tests/train/grad_reference.json: a tiny random GPT-2 (the forward
of core/model: pre-LN blocks, causal attention, GELU tanh, tied logits), a
batch with next-token targets (-1: not counted), the mean cross-entropy and
its gradient for every parameter tensor, from PyTorch autograd in float64.
The C++ test (tests/train/test_train.cpp) holds the core's backward to it.

Development time only: /usr/bin/python3 scripts/model-grad-reference.py
(Debian's python3-torch). Two cases: with the MLP and divisor sqrt(d_h), and
attention only with divisor 1.
"""

import json
import math
import os

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "train", "grad_reference.json")


def layer_norm(x, g, b, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * g + b


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def forward(p, cfg, ids, targets, divisor, mlp):
    B, T = ids.shape
    d, H = cfg["n_embd"], cfg["n_head"]
    dh = d // H
    x = p["wte.weight"][ids] + p["wpe.weight"][:T]
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    for l in range(cfg["n_layer"]):
        q = lambda n: p[f"h.{l}.{n}"]
        a = layer_norm(x, q("ln_1.weight"), q("ln_1.bias"), cfg["eps"])
        qkv = a @ q("attn.c_attn.weight") + q("attn.c_attn.bias")
        Q, K, V = qkv.split(d, dim=-1)
        heads = lambda m: m.view(B, T, H, dh).transpose(1, 2)
        s = heads(Q) @ heads(K).transpose(-1, -2) / divisor
        w = torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1)
        o = (w @ heads(V)).transpose(1, 2).reshape(B, T, d)
        x = x + o @ q("attn.c_proj.weight") + q("attn.c_proj.bias")
        if mlp:
            h = layer_norm(x, q("ln_2.weight"), q("ln_2.bias"), cfg["eps"]) @ q("mlp.c_fc.weight") + q("mlp.c_fc.bias")
            x = x + gelu_tanh(h) @ q("mlp.c_proj.weight") + q("mlp.c_proj.bias")
    f = layer_norm(x, p["ln_f.weight"], p["ln_f.bias"], cfg["eps"])
    logits = f @ p.get("lm_head.weight", p["wte.weight"]).T  # untied: the logits' own matrix
    return torch.nn.functional.cross_entropy(logits.reshape(B * T, -1), targets.reshape(-1), ignore_index=-1)


def case(seed, mlp, divisor_of, tied=True):
    g = torch.Generator().manual_seed(seed)
    cfg = dict(n_layer=2, n_head=2, n_embd=8, n_positions=6, vocab_size=7, n_inner=12, eps=1e-5,
               tie_word_embeddings=tied)
    d, I, V, P = cfg["n_embd"], cfg["n_inner"], cfg["vocab_size"], cfg["n_positions"]
    shapes = {"wte.weight": (V, d), "wpe.weight": (P, d)}
    for l in range(cfg["n_layer"]):
        shapes.update({f"h.{l}.ln_1.weight": (d,), f"h.{l}.ln_1.bias": (d,), f"h.{l}.attn.c_attn.weight": (d, 3 * d),
                       f"h.{l}.attn.c_attn.bias": (3 * d,), f"h.{l}.attn.c_proj.weight": (d, d),
                       f"h.{l}.attn.c_proj.bias": (d,), f"h.{l}.ln_2.weight": (d,), f"h.{l}.ln_2.bias": (d,),
                       f"h.{l}.mlp.c_fc.weight": (d, I), f"h.{l}.mlp.c_fc.bias": (I,),
                       f"h.{l}.mlp.c_proj.weight": (I, d), f"h.{l}.mlp.c_proj.bias": (d,)})
    shapes.update({"ln_f.weight": (d,), "ln_f.bias": (d,)})
    if not tied:
        shapes["lm_head.weight"] = (V, d)
    p = {}
    for n, s in shapes.items():
        t = torch.randn(*s, generator=g, dtype=torch.float64) * (0.5 if len(s) == 2 else 0.2)
        if n.endswith("ln_1.weight") or n.endswith("ln_2.weight") or n == "ln_f.weight":
            t = t + 1.0
        p[n] = t.requires_grad_(True)
    B, T = 2, 5
    ids = torch.randint(0, V, (B, T), generator=g)
    targets = torch.randint(0, V, (B, T), generator=g)
    targets[0, 1] = -1
    targets[1, 4] = -1
    divisor = divisor_of(d // cfg["n_head"])
    loss = forward(p, cfg, ids, targets, divisor, mlp)
    loss.backward()
    return dict(config=cfg, mlp=mlp, divisor=divisor, batch=B, length=T, ids=ids.reshape(-1).tolist(),
                targets=targets.reshape(-1).tolist(), loss=loss.item(),
                weights={n: t.detach().reshape(-1).tolist() for n, t in p.items()},
                shapes={n: list(s) for n, s in shapes.items()},
                gradients={n: (t.grad.reshape(-1).tolist() if t.grad is not None else [0.0] * t.numel())
                           for n, t in p.items()})


def main():
    cases = [case(1, True, math.sqrt), case(2, False, lambda dh: 1.0), case(3, False, math.sqrt, tied=False)]
    with open(OUT, "w") as f:
        json.dump({"generator": "scripts/model-grad-reference.py (PyTorch %s, float64)" % torch.__version__,
                   "cases": cases}, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
