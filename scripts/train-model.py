#!/usr/bin/python3
"""Trains the model Attention Lab ships: resources/models/tiny-bilingual.

Everything it learns from is made here: a small grammar of Chinese and
English sentences (subjects, verbs that agree with them, pronouns that refer
back to the subject, objects chosen by the subject, repeated spans to copy,
sentence pairs that translate each other), generated with a fixed seed. So
the text, the tokenizer and the weights are ours to ship.

Steps, all deterministic (seed 13):
  1. generate the training text;
  2. train a byte-level BPE tokenizer on it, exactly in GPT-2's form
     (bytes_to_unicode, GPT-2's pre-tokenisation, vocab.json + merges.txt);
  3. train a GPT-2-shaped model (pre-LN blocks, causal attention, GELU tanh,
     tied embedding) with PyTorch on the CPU, printing the loss;
  4. write config.json, model.safetensors (F32, written by hand),
     vocab.json, merges.txt and README.md;
  5. write reference outputs for a few sentences (tests/model/reference.json,
     computed in double precision from the stored F32 weights), a tiny file
     of F32/F16/BF16 values (tests/model/dtypes.safetensors), and the scores
     that name the heads (tests/model/heads.json, quoted in docs/model.md).

Where: the tree given by --out DIR (default: this repository), so the model
goes to DIR/resources/models/tiny-bilingual/ and the test files to
DIR/tests/model/; --out elsewhere leaves the committed files alone.

Needs, at development time only (nothing at build, test or run time does),
these Debian packages:
  python3-torch   PyTorch (CPU), the training
  python3-numpy   the arrays written to safetensors and the references
  python3-regex   GPT-2's pre-tokenisation pattern (\p{L}, \p{N}), to check
                  the hand matcher against (every run, --pretokenize-only too)
  sudo apt-get install python3-torch python3-numpy python3-regex
  nice -n 10 /usr/bin/python3 scripts/train-model.py [--steps N] [--threads T] [--out DIR]
"""

import argparse
import json
import math
import os
import random
import struct
import sys
import time
import unicodedata
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL_SUBDIR = os.path.join("resources", "models", "tiny-bilingual")
TEST_SUBDIR = os.path.join("tests", "model")
MODEL_DIR = os.path.join(ROOT, MODEL_SUBDIR)
TEST_DIR = os.path.join(ROOT, TEST_SUBDIR)


def build_parser():
    ap = argparse.ArgumentParser(
        description="Trains the built-in model (resources/models/tiny-bilingual) and writes its test files "
                    "(tests/model/). Needs the Debian packages python3-torch, python3-numpy and python3-regex.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=1800)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--plain", action="store_true",
                    help="the model shipped before 2026-12-05: the first grammar only, tied logits, one stage "
                         "(its induction head copies only inside the \"say\" frame; docs/model.md)")
    ap.add_argument("--stage1", type=int, default=900, help="steps on repeats alone before the grammar (not with --plain)")
    ap.add_argument("--repeat-rows", type=int, default=12, help="rows of each grammar batch still on repeats (not with --plain)")
    ap.add_argument("--pretokenize-only", action="store_true", help="only write tests/model/pretokenize.json")
    ap.add_argument("--out", metavar="DIR", default=ROOT,
                    help="the tree to write into: DIR/resources/models/tiny-bilingual and DIR/tests/model "
                         "(default: this repository, %(default)s)")
    return ap


if __name__ == "__main__":
    # Before the heavy imports: --help and a wrong option need no PyTorch.
    ARGS = build_parser().parse_args()

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
SEED = 13

CONFIG = dict(n_layer=3, n_head=4, n_embd=128, n_positions=64, layer_norm_epsilon=1e-5)

# ---------------------------------------------------------------------------
# 1. The text

EN_NOUNS = {  # word: (plural, pronoun singular)
    "boy": ("boys", "he"), "girl": ("girls", "she"), "man": ("men", "he"),
    "woman": ("women", "she"), "king": ("kings", "he"), "queen": ("queens", "she"),
    "cat": ("cats", "it"), "dog": ("dogs", "it"), "bird": ("birds", "it"),
}
EN_FOOD = {"cat": "fish", "dog": "bone", "bird": "seed", "boy": "apple", "girl": "cake",
           "man": "bread", "woman": "rice", "king": "meat", "queen": "soup"}
EN_VERBS = [("sees", "see"), ("likes", "like"), ("helps", "help"), ("finds", "find"),
            ("chases", "chase"), ("loves", "love")]
EN_THINGS = ["ball", "book", "box", "mat", "car", "tree", "hat", "cup"]
EN_ADJ = ["big", "small", "red", "old", "happy", "sad", "tired", "hungry"]
EN_PLACES = ["on the mat", "in the box", "near the tree", "by the cars", "under the hats", "with the dogs"]

ZH_NOUNS = {  # word: pronoun
    "小明": "他", "小红": "她", "爸爸": "他", "妈妈": "她", "哥哥": "他", "姐姐": "她",
    "猫": "它", "狗": "它", "鸟": "它",
}
ZH_FOOD = {"猫": "鱼", "狗": "骨头", "鸟": "米", "小明": "苹果", "小红": "蛋糕",
           "爸爸": "面包", "妈妈": "米饭", "哥哥": "肉", "姐姐": "汤"}
ZH_VERBS = ["看见", "喜欢", "帮助", "找到", "追", "爱", "打"]
ZH_THINGS = ["球", "书", "盒子", "车", "树", "帽子", "杯子", "垫子"]
ZH_ADJ = ["高兴", "难过", "累", "饿", "大", "小"]
ZH_PLACES = ["在 家", "在 树 下", "在 车 里", "在 学校"]

# A small dictionary for the sentence pairs.
EN2ZH = {"boy": "小明", "girl": "小红", "man": "爸爸", "woman": "妈妈", "cat": "猫", "dog": "狗",
         "bird": "鸟", "sees": "看见", "likes": "喜欢", "helps": "帮助", "finds": "找到",
         "chases": "追", "loves": "爱", "ball": "球", "book": "书", "box": "盒子", "car": "车",
         "tree": "树", "hat": "帽子", "cup": "杯子", "mat": "垫子"}

EN_WORDS = sorted(set(list(EN_NOUNS) + [p for p, _ in EN_NOUNS.values()] + EN_THINGS + EN_ADJ
                      + list(EN_FOOD.values())))
ZH_WORDS = sorted(set(list(ZH_NOUNS) + ZH_THINGS + ZH_ADJ + list(ZH_FOOD.values()) + ZH_VERBS))


def en_sentence(r):
    kind = r.random()
    noun = r.choice(list(EN_NOUNS))
    plural = r.random() < 0.35
    subj = EN_NOUNS[noun][0] if plural else noun
    pron = "they" if plural else EN_NOUNS[noun][1]
    adj = (r.choice(EN_ADJ) + " ") if r.random() < 0.3 else ""
    if kind < 0.30:  # agreement across a prepositional phrase: the verb depends on the subject
        v = r.choice(EN_VERBS)
        verb = v[1] if plural else v[0]
        place = (" " + r.choice(EN_PLACES)) if r.random() < 0.6 else ""
        return f"the {adj}{subj}{place} {verb} the {r.choice(EN_THINGS)} ."
    if kind < 0.55:  # a pronoun that refers back to the subject
        v = r.choice(EN_VERBS)
        verb = v[1] if plural else v[0]
        other = r.choice(list(EN_NOUNS))
        be = "are" if plural else "is"
        return f"the {adj}{subj} {verb} the {other} . {pron} {be} {r.choice(EN_ADJ)} ."
    if kind < 0.75:  # the object chosen by the subject
        verb = "eat" if plural else "eats"
        return f"the {adj}{subj} {verb} the {EN_FOOD[noun]} ."
    if kind < 0.88:
        return f"the {subj} sat on the {r.choice(EN_THINGS)} ."
    # pronoun after a clause
    be = "are" if plural else "is"
    return f"when the {subj} {'are' if plural else 'is'} {r.choice(EN_ADJ)} , {pron} {'eat' if plural else 'eats'} the {EN_FOOD[noun]} ."


def zh_sentence(r):
    kind = r.random()
    noun = r.choice(list(ZH_NOUNS))
    pron = ZH_NOUNS[noun]
    if kind < 0.25:
        subj = r.choice(["我", "你", noun])
        obj = r.choice(["我", "你", r.choice(list(ZH_NOUNS)), r.choice(ZH_THINGS)])
        place = (" " + r.choice(ZH_PLACES)) if r.random() < 0.4 else ""
        return f"{subj}{place} {r.choice(ZH_VERBS)} {obj} 。"
    if kind < 0.55:  # a pronoun that refers back to the subject
        other = r.choice(list(ZH_NOUNS))
        return f"{noun} {r.choice(ZH_VERBS)} 了 {other} ， {pron} 很 {r.choice(ZH_ADJ)} 。"
    if kind < 0.8:  # the object chosen by the subject
        place = (" " + r.choice(ZH_PLACES)) if r.random() < 0.4 else ""
        return f"{noun}{place} 吃 {ZH_FOOD[noun]} 。"
    return f"{noun} 很 {r.choice(ZH_ADJ)} ， 因为 {pron} 吃 了 {ZH_FOOD[noun]} 。"


def copy_sentence(r):
    """A span of random words, said twice: only copying predicts the second."""
    words = EN_WORDS if r.random() < 0.5 else ZH_WORDS
    span = " ".join(r.choice(words) for _ in range(r.randint(3, 7)))
    if words is EN_WORDS:
        return f"say {span} . say {span} ."
    return f"说 {span} 。 说 {span} 。"


def pair_sentence(r):
    noun = r.choice([n for n in EN_NOUNS if n in EN2ZH])
    verb = r.choice([v for v, _ in EN_VERBS])
    thing = r.choice(EN_THINGS)
    en = f"the {noun} {verb} the {thing} ."
    zh = f"{EN2ZH[noun]} {EN2ZH[verb]} {EN2ZH[thing]} 。"
    return f"{en} = {zh}" if r.random() < 0.5 else f"{zh} = {en}"


# The varied grammar (the default; --plain leaves it out): the subject is not always the second
# token (a time clause before it, one or two adjectives, a place after it),
# each subject has a thing it mostly acts on, so a verb must find its subject
# by the word, and spans are also repeated without the "say" frame and at a
# distance.
VARIED = True  # False: the first grammar (--plain)
EN_TIMES = ["yesterday ,", "today ,", "at night ,", "in the morning ,"]
ZH_TIMES = ["昨天 ，", "今天 ，", "晚上 ，"]
EN_FAV = {"boy": "ball", "girl": "book", "man": "car", "woman": "cup", "king": "hat", "queen": "box",
          "cat": "mat", "dog": "tree", "bird": "tree"}
ZH_FAV = {"小明": "球", "小红": "书", "爸爸": "车", "妈妈": "杯子", "哥哥": "帽子", "姐姐": "盒子",
          "猫": "垫子", "狗": "树", "鸟": "树"}


def en_varied(r):
    noun = r.choice(list(EN_NOUNS))
    plural = r.random() < 0.35
    subj = EN_NOUNS[noun][0] if plural else noun
    pron = "they" if plural else EN_NOUNS[noun][1]
    lead = (r.choice(EN_TIMES) + " ") if r.random() < 0.35 else ""
    k = r.random()
    adjs = [] if k < 0.3 else r.sample(EN_ADJ, 1 if k < 0.8 else 2)
    np_ = " ".join(["the"] + adjs + [subj]) + ((" " + r.choice(EN_PLACES)) if r.random() < 0.35 else "")
    kind = r.random()
    if kind < 0.4:  # the subject chooses the food
        return f"{lead}{np_} {'eat' if plural else 'eats'} the {EN_FOOD[noun]} ."
    v = r.choice(EN_VERBS)
    verb = v[1] if plural else v[0]
    obj = EN_FAV[noun] if r.random() < 0.7 else r.choice(EN_THINGS)
    if kind < 0.75:
        return f"{lead}{np_} {verb} the {obj} ."
    be = "are" if plural else "is"
    return f"{lead}{np_} {verb} the {obj} . {pron} {be} {r.choice(EN_ADJ)} ."


def zh_varied(r):
    noun = r.choice(list(ZH_NOUNS))
    lead = (r.choice(ZH_TIMES) + " ") if r.random() < 0.35 else ""
    adj = (r.choice(ZH_ADJ) + " 的 ") if r.random() < 0.5 else ""
    place = (" " + r.choice(ZH_PLACES)) if r.random() < 0.3 else ""
    kind = r.random()
    if kind < 0.45:
        return f"{lead}{adj}{noun}{place} 吃 {ZH_FOOD[noun]} 。"
    obj = ZH_FAV[noun] if r.random() < 0.7 else r.choice(ZH_THINGS)
    if kind < 0.8:
        return f"{lead}{adj}{noun}{place} {r.choice(ZH_VERBS)} {obj} 。"
    return f"{lead}{adj}{noun} {r.choice(ZH_VERBS)} 了 {obj} ， {ZH_NOUNS[noun]} 很 {r.choice(ZH_ADJ)} 。"


def copy_varied(r):
    """A span said twice: in the "say" frame, bare, or with a sentence between."""
    k = r.random()
    if k < 0.4:
        return copy_sentence(r)
    words = EN_WORDS if r.random() < 0.5 else ZH_WORDS
    span = " ".join(r.choice(words) for _ in range(r.randint(3, 7)))
    end = "." if words is EN_WORDS else "。"
    if k < 0.7:
        return f"{span} {end} {span} {end}"
    between = en_varied(r) if words is EN_WORDS else zh_varied(r)
    return f"{span} {end} {between} {span} {end}"


def sentence(r):
    if VARIED:
        return sentence_varied(r)
    x = r.random()
    if x < 0.33:
        return en_sentence(r)
    if x < 0.66:
        return zh_sentence(r)
    if x < 0.86:
        return copy_sentence(r)
    return pair_sentence(r)

def sentence_varied(r):
    x = r.random()
    if x < 0.2:
        return en_sentence(r)
    if x < 0.4:
        return zh_sentence(r)
    if x < 0.58:
        return en_varied(r)
    if x < 0.74:
        return zh_varied(r)
    if x < 0.9:
        return copy_varied(r)
    return pair_sentence(r)


def make_text(r, n):
    return "\n".join(sentence(r) for _ in range(n)) + "\n"


# ---------------------------------------------------------------------------
# 2. Byte-level BPE, as GPT-2's

def bytes_to_unicode():
    """GPT-2's map from the 256 bytes to printable characters."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs])), bs


def is_letter(c):
    return unicodedata.category(c).startswith("L")


def is_number(c):
    return unicodedata.category(c).startswith("N")


def is_space(c):
    return c.isspace()


def pretokenize(text):
    """GPT-2's pattern, by hand:
    's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == "'":
            c = next((c for c in ("s", "t", "re", "ve", "m", "ll", "d") if text.startswith(c, i + 1)), None)
            if c is not None:
                out.append(text[i:i + 1 + len(c)])
                i += 1 + len(c)
                continue
        j = i + 1 if (text[i] == " " and i + 1 < n) else i
        matched = False
        for cls in (is_letter, is_number, lambda ch: not (is_space(ch) or is_letter(ch) or is_number(ch))):
            if j < n and cls(text[j]):
                k = j
                while k < n and cls(text[k]):
                    k += 1
                out.append(text[i:k])
                i = k
                matched = True
                break
        if matched:
            continue
        # whitespace
        k = i
        while k < n and is_space(text[k]):
            k += 1
        if k < n and k - i >= 2:
            k -= 1  # \s+(?!\S): leave the last one to go with what follows
        out.append(text[i:k])
        i = k
    return out


def train_bpe(text, max_merges):
    b2u, order = bytes_to_unicode()
    words = Counter(pretokenize(text))
    seqs = {w: [b2u[b] for b in w.encode("utf-8")] for w in words}
    merges = []
    while len(merges) < max_merges:
        pairs = Counter()
        for w, c in words.items():
            s = seqs[w]
            for a, b in zip(s, s[1:]):
                pairs[(a, b)] += c
        if not pairs:
            break
        best = min(pairs.items(), key=lambda kv: (-kv[1], kv[0]))
        if best[1] < 20:
            break
        a, b = best[0]
        merges.append((a, b))
        for w in words:
            s = seqs[w]
            t, i = [], 0
            while i < len(s):
                if i + 1 < len(s) and s[i] == a and s[i + 1] == b:
                    t.append(a + b)
                    i += 2
                else:
                    t.append(s[i])
                    i += 1
            seqs[w] = t
    vocab = {}
    for b in order:
        vocab[b2u[b]] = len(vocab)
    for a, b in merges:
        vocab[a + b] = len(vocab)
    return vocab, merges


class Tokenizer:
    def __init__(self, vocab, merges):
        self.vocab = vocab
        self.inv = {i: t for t, i in vocab.items()}
        self.ranks = {m: i for i, m in enumerate(merges)}
        self.merges = merges
        self.b2u, _ = bytes_to_unicode()
        self.u2b = {u: b for b, u in self.b2u.items()}
        self.cache = {}

    def bpe(self, word):
        if word in self.cache:
            return self.cache[word]
        s = [self.b2u[b] for b in word.encode("utf-8")]
        while len(s) > 1:
            ranked = [(self.ranks.get((a, b), 1 << 30), i) for i, (a, b) in enumerate(zip(s, s[1:]))]
            r, _ = min(ranked)
            if r == 1 << 30:
                break
            a, b = self.merges[r]
            t, i = [], 0
            while i < len(s):
                if i + 1 < len(s) and s[i] == a and s[i + 1] == b:
                    t.append(a + b)
                    i += 2
                else:
                    t.append(s[i])
                    i += 1
            s = t
        self.cache[word] = s
        return s

    def encode(self, text):
        return [self.vocab[p] for w in pretokenize(text) for p in self.bpe(w)]

    def decode(self, ids):
        return bytes(self.u2b[c] for i in ids for c in self.inv[i]).decode("utf-8", errors="replace")

    def piece(self, i):
        return bytes(self.u2b[c] for c in self.inv[i]).decode("utf-8", errors="replace")


GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

PRETOKENIZE_CASES = [
    "Hello world", "I'm sure they'll say we've done it, don't you?", "a  b", "a\n\nb", "a\n\n b", "hello   ",
    "   hello", "abc123 def 456", "hi!! ... ?!", "'s 'S 'x", "我 打 你 。", "小明看见了小红，他很高兴。",
    "the cat sat on the mat .", "tab\tand\r\nnewline", "x\u00a0y", "emoji 🙂 and ½ and Ⅻ", "mixed中文text123",
    " ", "", "''s", "e\u0301t\u00e9", "The year 2024's end", "  \n  x",
]


def write_pretokenize_cases():
    """GPT-2's pattern through the regex module against the hand matcher,
    written for the C++ test (tests/model/pretokenize.json)."""
    import regex
    cases = []
    for text in PRETOKENIZE_CASES:
        expected = regex.findall(GPT2_PATTERN, text)
        assert pretokenize(text) == expected, (text, pretokenize(text), expected)
        cases.append({"text": text, "pieces": expected})
    os.makedirs(TEST_DIR, exist_ok=True)
    with open(os.path.join(TEST_DIR, "pretokenize.json"), "w", encoding="utf-8") as f:
        json.dump({"pattern": GPT2_PATTERN, "cases": cases}, f, ensure_ascii=False, indent=1)
        f.write("\n")


# ---------------------------------------------------------------------------
# 3. The model: GPT-2's layout (Conv1D weights are in_features by out_features)

class Block(nn.Module):
    def __init__(self, d, h, eps):
        super().__init__()
        self.h = h
        self.ln_1 = nn.LayerNorm(d, eps=eps)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d, eps=eps)
        self.c_fc = nn.Linear(d, 4 * d)
        self.mlp_proj = nn.Linear(4 * d, d)

    def forward(self, x, keep=None):
        n, t, d = x.shape
        hd = d // self.h
        q, k, v = self.c_attn(self.ln_1(x)).split(d, dim=2)
        q = q.view(n, t, self.h, hd).transpose(1, 2)
        k = k.view(n, t, self.h, hd).transpose(1, 2)
        v = v.view(n, t, self.h, hd).transpose(1, 2)
        s = q @ k.transpose(-1, -2) / math.sqrt(hd)
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        s = s.masked_fill(~mask, float("-inf"))
        w = F.softmax(s, dim=-1)
        o = w @ v
        if keep is not None:
            keep.append(w)
        x = x + self.c_proj(o.transpose(1, 2).reshape(n, t, d))
        x = x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))
        return x


class GPT(nn.Module):
    def __init__(self, vocab, cfg, untied=False):
        super().__init__()
        d = cfg["n_embd"]
        self.lm_head = nn.Parameter(torch.empty(vocab, d)) if untied else None
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(cfg["n_positions"], d)
        self.h = nn.ModuleList([Block(d, cfg["n_head"], cfg["layer_norm_epsilon"]) for _ in range(cfg["n_layer"])])
        self.ln_f = nn.LayerNorm(d, eps=cfg["layer_norm_epsilon"])
        for name, p in self.named_parameters():
            if name.endswith("bias"):
                nn.init.zeros_(p)
            elif "ln" in name:
                nn.init.ones_(p)
            else:
                std = 0.02 / math.sqrt(2 * cfg["n_layer"]) if name.endswith(("c_proj.weight", "mlp_proj.weight")) else 0.02
                nn.init.normal_(p, 0.0, std)

    def forward(self, idx, keep=None):
        t = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(t, device=idx.device))[None]
        for b in self.h:
            x = b(x, keep)
        return self.ln_f(x) @ (self.wte.weight if self.lm_head is None else self.lm_head).T


def gpt2_tensors(model):
    """The state in GPT-2's names and layout (Conv1D: in by out)."""
    out = {"wte.weight": model.wte.weight, "wpe.weight": model.wpe.weight}
    for i, b in enumerate(model.h):
        p = f"h.{i}."
        out[p + "ln_1.weight"] = b.ln_1.weight
        out[p + "ln_1.bias"] = b.ln_1.bias
        out[p + "attn.c_attn.weight"] = b.c_attn.weight.T
        out[p + "attn.c_attn.bias"] = b.c_attn.bias
        out[p + "attn.c_proj.weight"] = b.c_proj.weight.T
        out[p + "attn.c_proj.bias"] = b.c_proj.bias
        out[p + "ln_2.weight"] = b.ln_2.weight
        out[p + "ln_2.bias"] = b.ln_2.bias
        out[p + "mlp.c_fc.weight"] = b.c_fc.weight.T
        out[p + "mlp.c_fc.bias"] = b.c_fc.bias
        out[p + "mlp.c_proj.weight"] = b.mlp_proj.weight.T
        out[p + "mlp.c_proj.bias"] = b.mlp_proj.bias
    out["ln_f.weight"] = model.ln_f.weight
    out["ln_f.bias"] = model.ln_f.bias
    if model.lm_head is not None:
        out["lm_head.weight"] = model.lm_head
    return {k: v.detach().cpu().numpy() for k, v in out.items()}


# ---------------------------------------------------------------------------
# 4. safetensors, by hand

def write_safetensors(path, tensors, dtype="F32", metadata=None):
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name])
        if dtype == "F32":
            raw = a.astype("<f4").tobytes()
        elif dtype == "F16":
            raw = a.astype("<f2").tobytes()
        elif dtype == "BF16":
            bits = a.astype("<f4").view("<u4")
            # round to nearest even, as torch does
            bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype("<u2")
            raw = bits.tobytes()
        else:
            raise ValueError(dtype)
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    if metadata:
        header["__metadata__"] = metadata
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for raw in blobs:
            f.write(raw)


def load_f32_back(tensors):
    """The weights as the file holds them (F32), for the double-precision reference."""
    return {k: torch.from_numpy(v.astype(np.float32).astype(np.float64)) for k, v in tensors.items()}


def forward_f64(t, cfg, ids):
    """GPT-2's forward in double precision from the stored tensors, every head kept."""
    d, H = cfg["n_embd"], cfg["n_head"]
    hd = d // H
    eps = cfg["layer_norm_epsilon"]
    n = len(ids)
    x = t["wte.weight"][ids] + t["wpe.weight"][:n]
    layers = []

    def ln(x, p):
        return F.layer_norm(x, (d,), t[p + ".weight"], t[p + ".bias"], eps)

    for i in range(cfg["n_layer"]):
        p = f"h.{i}."
        qkv = ln(x, p + "ln_1") @ t[p + "attn.c_attn.weight"] + t[p + "attn.c_attn.bias"]
        q, k, v = qkv.split(d, dim=1)
        heads = []
        outs = []
        for h in range(H):
            qh, kh, vh = (m[:, h * hd:(h + 1) * hd] for m in (q, k, v))
            scores = qh @ kh.T
            scaled = scores / math.sqrt(hd)
            masked = scaled.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
            w = torch.softmax(masked, dim=-1)
            o = w @ vh
            heads.append(dict(weights=w, output=o, q=qh))
            outs.append(o)
        x = x + torch.cat(outs, 1) @ t[p + "attn.c_proj.weight"] + t[p + "attn.c_proj.bias"]
        m = ln(x, p + "ln_2") @ t[p + "mlp.c_fc.weight"] + t[p + "mlp.c_fc.bias"]
        x = x + F.gelu(m, approximate="tanh") @ t[p + "mlp.c_proj.weight"] + t[p + "mlp.c_proj.bias"]
        layers.append(heads)
    logits = ln(x, "ln_f") @ t["lm_head.weight" if "lm_head.weight" in t else "wte.weight"].T
    return layers, logits


# ---------------------------------------------------------------------------
# 5. Naming heads: scores computed from the weights

def head_scores(model, tok, r, cfg):
    """Mean attention weight, per layer and head, on the position each kind
    of head should look at, over freshly generated sentences."""
    L, H = cfg["n_layer"], cfg["n_head"]
    prev = np.zeros((L, H)); prev_n = 0
    induc = np.zeros((L, H)); induc_n = 0
    pron = np.zeros((L, H)); pron_n = 0
    verb = np.zeros((L, H)); verb_n = 0
    first = np.zeros((L, H)); first_n = 0

    def weights(ids):
        keep = []
        with torch.no_grad():
            model(torch.tensor([ids]), keep)
        return [w[0].numpy() for w in keep]  # per layer: H by n by n

    def pieces(ids):
        return [tok.piece(i) for i in ids]

    for _ in range(200):
        # previous token, first token, induction: a repeated span
        s = copy_sentence(r)
        ids = tok.encode(s)[:cfg["n_positions"]]
        W = weights(ids)
        n = len(ids)
        p = pieces(ids)
        # "say A B C . say A B C .": the span repeats with period P
        P = p.index(" say") if " say" in p else p.index(" 说")
        assert ids[1:P] == ids[P + 1:2 * P], p
        for l in range(L):
            for i in range(1, n):
                prev[l] += W[l][:, i, i - 1]
                first[l] += W[l][:, i, 0]
            for i in range(P + 1, 2 * P - 1):
                # the token after this one's earlier occurrence
                induc[l] += W[l][:, i, i - P + 1]
        prev_n += n - 1
        first_n += n - 1
        induc_n += P - 2

    for _ in range(200):
        # a pronoun that refers back to the subject
        noun = r.choice(list(EN_NOUNS))
        other = r.choice(list(EN_NOUNS))
        v = r.choice(EN_VERBS)[0]
        s = f"the {noun} {v} the {other} . {EN_NOUNS[noun][1]} is {r.choice(EN_ADJ)} ."
        ids = tok.encode(s)
        p = pieces(ids)
        i_pron = p.index(" " + EN_NOUNS[noun][1])
        i_noun = p.index(" " + noun)
        zn = r.choice(list(ZH_NOUNS))
        zs = f"{zn} {r.choice(ZH_VERBS)} 了 {r.choice(list(ZH_NOUNS))} ， {ZH_NOUNS[zn]} 很 {r.choice(ZH_ADJ)} 。"
        zids = tok.encode(zs)
        zp = pieces(zids)
        for ids_, src, dst in ((ids, i_pron, i_noun), (zids, zp.index(" " + ZH_NOUNS[zn]), 0)):
            W = weights(ids_)
            for l in range(L):
                pron[l] += W[l][:, src, dst]
            pron_n += 1
        # a verb after a prepositional phrase, to its subject
        plural = r.random() < 0.5
        subj = EN_NOUNS[noun][0] if plural else noun
        vv = r.choice(EN_VERBS)
        verbw = vv[1] if plural else vv[0]
        s = f"the {subj} {r.choice(EN_PLACES)} {verbw} the {r.choice(EN_THINGS)} ."
        ids = tok.encode(s)
        p = pieces(ids)
        W = weights(ids)
        for l in range(L):
            verb[l] += W[l][:, p.index(" " + verbw), p.index(" " + subj)]
        verb_n += 1
    return dict(previous_token=(prev / prev_n).tolist(), first_token=(first / first_n).tolist(),
                induction=(induc / induc_n).tolist(), pronoun_to_noun=(pron / pron_n).tolist(),
                verb_to_subject=(verb / verb_n).tolist())


# ---------------------------------------------------------------------------

def train_plain(model, data, cfg, args):
    T = cfg["n_positions"]
    vocab = range(cfg["vocab_size"])
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, betas=(0.9, 0.95), weight_decay=0.01)
    g = torch.Generator().manual_seed(SEED)
    warm = 100
    t0 = time.time()
    avg = None
    for step in range(1, args.steps + 1):
        if step <= warm:
            lr = 3e-3 * step / warm
        else:
            lr = 3e-4 + (3e-3 - 3e-4) * 0.5 * (1 + math.cos(math.pi * (step - warm) / (args.steps - warm)))
        for group in opt.param_groups:
            group["lr"] = lr
        ix = torch.randint(0, len(data) - T - 1, (args.batch,), generator=g)
        x = torch.stack([data[i:i + T] for i in ix])
        y = torch.stack([data[i + 1:i + T + 1] for i in ix])
        loss = F.cross_entropy(model(x).reshape(-1, len(vocab)), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        avg = loss.item() if avg is None else 0.98 * avg + 0.02 * loss.item()
        if step % 50 == 0 or step == 1:
            print(f"step {step:5d}  loss {loss.item():.4f}  (smoothed {avg:.4f})  lr {lr:.2e}  {time.time() - t0:.0f} s", flush=True)
    return avg


def lab_init(model, cfg):
    """The training lab's induction preset (docs/learning.md): q and k of about
    unit variance, embeddings N(0, 0.3^2), the residual writers larger, an
    lm_head of its own N(0, 1/d)."""
    d = cfg["n_embd"]
    nn.init.normal_(model.wte.weight, 0.0, 0.3)
    nn.init.normal_(model.wpe.weight, 0.0, 0.3)
    nn.init.normal_(model.lm_head, 0.0, 1 / math.sqrt(d))
    for b in model.h:
        nn.init.normal_(b.c_attn.weight, 0.0, 1 / math.sqrt(d))
        nn.init.normal_(b.c_proj.weight, 0.0, 1 / math.sqrt(d) / math.sqrt(2 * cfg["n_layer"]))
        nn.init.normal_(b.mlp_proj.weight, 0.0, 0.5 / math.sqrt(d) / math.sqrt(2 * cfg["n_layer"]))


def repeat_batch(g, rows, T, pool):
    """The training lab's induction task: random ids below `pool`, a span of 2
    to T/2 of them at a random start said again and again to the end; only the
    rows whose next token the earlier copy gives away are targets (-1 else)."""
    ids = torch.randint(0, pool, (rows, T), generator=g)
    targets = torch.full((rows, T), -1, dtype=torch.long)
    for b in range(rows):
        L = int(torch.randint(2, T // 2 + 1, (1,), generator=g))
        st = int(torch.randint(0, T - 2 * L + 1, (1,), generator=g))
        for t in range(st + L, T):
            ids[b, t] = ids[b, t - L]
        targets[b, st + L:T - 1] = ids[b, st + L + 1:T]
    return ids, targets


def probe_scores(model, V, seed, L=16, seqs=8):
    """The best induction and previous-token scores (headlabel.cpp's formulas)
    on random sequences said twice, as `model scores` draws them (but with
    numpy's generator)."""
    rs = np.random.RandomState(seed)
    ind, prev, u_ind, u_prev = 0, 0, 0, 0
    model.eval()
    for _ in range(seqs):
        a = rs.randint(0, V, L)
        ids = list(np.concatenate([a, a]))
        keep = []
        with torch.no_grad():
            model(torch.tensor([ids]), keep)
        W = np.stack([w[0].numpy() for w in keep])  # layers, heads, n, n
        n = len(ids)
        si, su, rows, sp, spu = 0, 0, 0, 0, 0
        for i in range(1, n):
            sp = sp + W[:, :, i, i - 1]
            spu += 1 / (i + 1)
            t = [p + 1 for p in range(i - 1) if ids[p] == ids[i]]
            if t:
                si = si + W[:, :, i, t].sum(-1)
                su += len(t) / (i + 1)
                rows += 1
        ind, u_ind = ind + si / rows / seqs, u_ind + su / rows / seqs
        prev, u_prev = prev + sp / (n - 1) / seqs, u_prev + spu / (n - 1) / seqs
    model.train()
    return ind, u_ind, prev, u_prev


def train_curriculum(model, data, cfg, args):
    """Stage 1: random-token repeats only, 32 positions, ids below 32 for 300
    steps, then widening to the whole vocabulary over 600 (lr 3e-3: at 1e-2
    no head formed at this width). Stage 2: the grammar, 64 positions, with
    args.repeat_rows rows of each batch still on repeats over every id."""
    V, T = cfg["vocab_size"], cfg["n_positions"]
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, betas=(0.9, 0.999), weight_decay=0.01)
    g = torch.Generator().manual_seed(SEED)
    t0 = time.time()
    avg = None

    def step_on(x, y, lr):
        for group in opt.param_groups:
            group["lr"] = lr
        loss = F.cross_entropy(model(x).reshape(-1, V), y.reshape(-1), ignore_index=-1)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss.item()

    def report(stage, step, loss, lr):
        ind, ui, prev, up = probe_scores(model, V, 1)
        print(f"stage {stage} step {step:5d}  loss {loss:.4f}  lr {lr:.2e}  {time.time() - t0:.0f} s  "
              f"probe: induction {ind.max():.3f} (uniform {ui:.3f}), previous {prev.max():.3f} (uniform {up:.3f})",
              flush=True)

    for step in range(1, args.stage1 + 1):
        pool = min(V, 32 + (V - 32) * max(0, step - 300) // 600)
        lr = 3e-3 * min(1.0, step / 20)
        x, y = repeat_batch(g, args.batch, 32, pool)
        loss = step_on(x, y, lr)
        if step % 100 == 0:
            report(1, step, loss, lr)
    warm = 100
    for step in range(1, args.steps + 1):
        if step <= warm:
            lr = 3e-3 * step / warm
        else:
            lr = 3e-4 + (3e-3 - 3e-4) * 0.5 * (1 + math.cos(math.pi * (step - warm) / (args.steps - warm)))
        rows = args.batch - args.repeat_rows
        ix = torch.randint(0, len(data) - T - 1, (rows,), generator=g)
        x = torch.stack([data[i:i + T] for i in ix])
        y = torch.stack([data[i + 1:i + T + 1] for i in ix])
        if args.repeat_rows:
            rx, ry = repeat_batch(g, args.repeat_rows, T, V)
            x, y = torch.cat([x, rx]), torch.cat([y, ry])
        loss = step_on(x, y, lr)
        avg = loss if avg is None else 0.98 * avg + 0.02 * loss
        if step % 100 == 0:
            report(2, step, avg, lr)
    return avg


def main(args):
    global MODEL_DIR, TEST_DIR
    MODEL_DIR = os.path.join(args.out, MODEL_SUBDIR)
    TEST_DIR = os.path.join(args.out, TEST_SUBDIR)
    write_pretokenize_cases()
    if args.pretokenize_only:
        return

    global VARIED
    VARIED = not args.plain
    torch.set_num_threads(args.threads)
    torch.manual_seed(SEED)
    r = random.Random(SEED)
    start = time.time()

    text = make_text(r, 60000)
    print(f"text: {len(text)} characters, {text.count(chr(10))} sentences", flush=True)
    vocab, merges = train_bpe(text, 1000)
    tok = Tokenizer(vocab, merges)
    print(f"tokenizer: {len(vocab)} tokens ({len(merges)} merges)", flush=True)
    for s in ("我 打 你 。", "the cat sat on the mat ."):
        print("  ", s, "->", [tok.piece(i) for i in tok.encode(s)], flush=True)
    data = torch.tensor(tok.encode(text), dtype=torch.long)
    print(f"tokens: {len(data)}", flush=True)
    assert tok.decode(tok.encode(text[:2000])) == text[:2000]

    cfg = dict(CONFIG, vocab_size=len(vocab))
    model = GPT(len(vocab), cfg, untied=not args.plain)
    if not args.plain:
        lab_init(model, cfg)
    nparams = sum(p.numel() for p in model.parameters())
    print(f"model: {cfg}, {nparams} parameters", flush=True)

    T = cfg["n_positions"]
    t0 = time.time()
    if not args.plain:
        avg = train_curriculum(model, data, cfg, args)
    else:
        avg = train_plain(model, data, cfg, args)
    train_seconds = time.time() - t0

    # Held-out loss on freshly generated text.
    model.eval()
    held = torch.tensor(tok.encode(make_text(random.Random(SEED + 1), 3000)), dtype=torch.long)
    with torch.no_grad():
        losses = []
        for i in range(0, len(held) - T - 1, T):
            x = held[i:i + T][None]
            y = held[i + 1:i + T + 1][None]
            losses.append(F.cross_entropy(model(x)[0], y[0]).item())
    held_loss = float(np.mean(losses))
    print(f"final training loss (smoothed) {avg:.4f}; held-out loss {held_loss:.4f}; training {train_seconds:.0f} s", flush=True)

    # Files of the model.
    os.makedirs(MODEL_DIR, exist_ok=True)
    tensors = gpt2_tensors(model)
    write_safetensors(os.path.join(MODEL_DIR, "model.safetensors"), tensors, "F32", {"format": "pt"})
    config = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "activation_function": "gelu_new",
              "n_layer": cfg["n_layer"], "n_head": cfg["n_head"], "n_embd": cfg["n_embd"],
              "n_positions": cfg["n_positions"], "n_ctx": cfg["n_positions"], "vocab_size": cfg["vocab_size"],
              "layer_norm_epsilon": cfg["layer_norm_epsilon"], "tie_word_embeddings": args.plain}
    with open(os.path.join(MODEL_DIR, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    with open(os.path.join(MODEL_DIR, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(MODEL_DIR, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for a, b in merges:
            f.write(f"{a} {b}\n")

    # Scores that name the heads.
    scores = head_scores(model, tok, random.Random(SEED + 2), cfg)
    named = {}
    for kind, m in scores.items():
        a = np.array(m)
        l, h = np.unravel_index(np.argmax(a), a.shape)
        named[kind] = {"layer": int(l) + 1, "head": int(h) + 1, "score": float(a[l, h])}
        print(f"{kind:16s} best: layer {l + 1} head {h + 1}  score {a[l, h]:.3f}", flush=True)
        for li, row in enumerate(m):
            print(f"    layer {li + 1}: " + "  ".join(f"{v:.3f}" for v in row), flush=True)

    # Reference outputs, in double precision from the stored F32 weights.
    t64 = load_f32_back(tensors)
    sentences = ["我 打 你 。", "the cat sat on the mat .", "the dogs near the tree chase the ball .",
                 "say cat red box . say cat red box .", "小明 看见 了 小红 ， 他 很 高兴 。"]
    refs = []
    for s in sentences:
        ids = tok.encode(s)
        assert len(ids) <= 16, (s, len(ids))
        layers, logits = forward_f64(t64, cfg, ids)
        probs = torch.softmax(logits[-1], 0)
        top = torch.topk(probs, 5)
        refs.append({"text": s, "ids": ids, "pieces": [tok.piece(i) for i in ids],
                     "last_logits": [float(f"{v:.9g}") for v in logits[-1].tolist()],
                     "top5": [{"id": int(i), "text": tok.piece(int(i)), "p": float(f"{p:.9g}")}
                              for p, i in zip(top.values.tolist(), top.indices.tolist())],
                     "weights": [[[[float(f"{v:.9g}") for v in row] for row in h["weights"].tolist()]
                                  for h in heads] for heads in layers]})
    os.makedirs(TEST_DIR, exist_ok=True)
    with open(os.path.join(TEST_DIR, "reference.json"), "w", encoding="utf-8") as f:
        json.dump({"model": "resources/models/tiny-bilingual", "note": "written by scripts/train-model.py; "
                   "double precision from the stored F32 weights", "sentences": refs}, f, ensure_ascii=False)
    with open(os.path.join(TEST_DIR, "heads.json"), "w", encoding="utf-8") as f:
        json.dump({"named": named, "scores": scores}, f, ensure_ascii=False, indent=1)

    # A tiny file of the three dtypes, with the values they hold (numpy's own conversions).
    vals = np.array([0.0, 1.0, -2.5, 0.1, 65504.0, 1e-5, 3.14159265, -1e-8, 1234.5678, -0.0], dtype=np.float64)
    write_safetensors(os.path.join(TEST_DIR, "dtype_f32.safetensors"), {"x": vals.reshape(2, 5)}, "F32")
    write_safetensors(os.path.join(TEST_DIR, "dtype_f16.safetensors"), {"x": vals.reshape(2, 5)}, "F16")
    write_safetensors(os.path.join(TEST_DIR, "dtype_bf16.safetensors"), {"x": vals.reshape(2, 5)}, "BF16")
    bits = vals.astype("<f4").view("<u4")
    bf = (((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype("<u4") << 16).view("<f4")
    with open(os.path.join(TEST_DIR, "dtypes.json"), "w") as f:
        json.dump({"shape": [2, 5],
                   "F32": [float(v) for v in vals.astype(np.float32)],
                   "F16": [float(v) for v in vals.astype(np.float16)],
                   "BF16": [float(v) for v in bf]}, f, indent=1)

    total = time.time() - start
    with open(os.path.join(MODEL_DIR, "README.md"), "w", encoding="utf-8") as f:
        f.write(f"""# tiny-bilingual

A GPT-2-shaped model that Attention Lab trains and ships, so that a class sees
a real transformer's attention offline. Made by `scripts/train-model.py`
(seed {SEED}), in the Hugging Face GPT-2 layout: `config.json`,
`model.safetensors` (F32), `vocab.json` and `merges.txt` (byte-level BPE).

- Shape: {cfg['n_layer']} layers, {cfg['n_head']} heads, n_embd {cfg['n_embd']}, n_positions {cfg['n_positions']},
  vocabulary {cfg['vocab_size']} tokens; {nparams} parameters.
- Training text: generated by the script itself from a small grammar of
  Chinese and English sentences (subjects and verbs that agree, pronouns that
  refer back, objects chosen by the subject, repeated spans, sentence pairs
  that translate each other); {text.count(chr(10))} sentences. Nothing was
  taken from anyone else's text.
- Tokenizer: byte-level BPE as GPT-2's, trained on the same text ({len(merges)} merges),
  so the common Chinese words and English words are single tokens.
- Training: {'' if args.plain else f'{args.stage1} steps on random token ids said again (32 ids widening to all, 32 positions), then '}{args.steps} steps of AdamW, batches of {args.batch} × {T} tokens{'' if args.plain else f' ({args.repeat_rows} rows still on repeats)'},
  {args.threads} CPU threads, {train_seconds / 60:.1f} minutes ({total / 60:.1f} minutes with
  everything else the script does).
- Final loss: {avg:.3f} (training, smoothed); {held_loss:.3f} on freshly generated text.

Licence: the text, the tokenizer and the weights are generated by the Attention
Lab project and are distributed under the same terms as the project.

Retrain (PyTorch from Debian's python3-torch, development time only):

    nice -n 10 /usr/bin/python3 scripts/train-model.py --steps {args.steps} --threads {args.threads}
""")
    with open(os.path.join(TEST_DIR, "training.json"), "w") as f:
        json.dump({"steps": args.steps, "threads": args.threads, "batch": args.batch,
                   "train_seconds": round(train_seconds, 1), "total_seconds": round(total, 1),
                   "final_loss_smoothed": round(avg, 4), "held_out_loss": round(held_loss, 4),
                   "parameters": nparams}, f, indent=1)
    print(f"done in {total:.0f} s", flush=True)


if __name__ == "__main__":
    main(ARGS)
