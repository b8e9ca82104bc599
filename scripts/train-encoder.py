#!/usr/bin/python3
"""Trains the encoder Attention Lab ships: resources/models/tiny-encoder.

A BERT-shaped model (post-LN blocks, bidirectional attention, exact GELU,
masked-word prediction) in the Hugging Face BERT layout: config.json with
model_type "bert", model.safetensors with BertForMaskedLM's tensor names,
a WordPiece vocab.txt and tokenizer_config.json. The text is the built-in
decoder's grammar (scripts/train-model.py), one sentence a sequence, so the
two models read the same language: one left to right, one both ways.

Steps, all deterministic (seed 17):
  1. generate the training sentences and, held out by construction, the
     evaluation sentences (drawn with another seed; any that occurs in the
     training set is dropped, by a set lookup);
  2. the WordPiece vocabulary: [PAD] [UNK] [CLS] [SEP] [MASK], punctuation,
     every CJK character (BERT splits Chinese into characters), every
     English word of the grammar, and a-z, ##a-##z, 0-9, ##0-##9 so that any
     lower-case word or number still has pieces;
  3. train with BERT's masking (15 % of the words; of those 80 % [MASK],
     10 % a random token, 10 % kept), AdamW, PyTorch on the CPU;
  4. write the model folder and, under tests/model/, encoder-reference.json:
     ids and every head's weights and the masked positions' logits for a few
     sentences, in double precision from the stored F32 weights.

Needs, at development time only: python3-torch, python3-numpy (Debian).
  nice -n 10 /usr/bin/python3 scripts/train-encoder.py [--steps N] [--threads T] [--out DIR]
"""

import argparse
import importlib.util
import json
import math
import os
import random
import sys
import time
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL_SUBDIR = os.path.join("resources", "models", "tiny-encoder")
TEST_SUBDIR = os.path.join("tests", "model")


def build_parser():
    ap = argparse.ArgumentParser(description="Trains the built-in encoder (resources/models/tiny-encoder).")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--out", metavar="DIR", default=ROOT)
    return ap


if __name__ == "__main__":
    ARGS = build_parser().parse_args()

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 17
CONFIG = dict(num_hidden_layers=3, num_attention_heads=4, hidden_size=128, intermediate_size=512,
              max_position_embeddings=64, type_vocab_size=2, layer_norm_eps=1e-12, hidden_act="gelu")
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def grammar():
    """train-model.py's sentence generators (the decoder's grammar)."""
    spec = importlib.util.spec_from_file_location("train_model", os.path.join(ROOT, "scripts", "train-model.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def sentence(g, r):
    x = r.random()
    if x < 0.4:
        return g.en_sentence(r)
    if x < 0.8:
        return g.zh_sentence(r)
    return g.pair_sentence(r)


# ---------------------------------------------------------------------------
# BERT's tokenizer (BasicTokenizer + WordpieceTokenizer), written out

def is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def is_whitespace(c):
    return c in " \t\n\r" or unicodedata.category(c) == "Zs"


def is_control(c):
    return c not in "\t\n\r" and unicodedata.category(c) in ("Cc", "Cf")


def is_punct(c):
    cp = ord(c)
    return 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126 or unicodedata.category(c).startswith("P")


def basic_tokens(text, lower=True):
    out = []
    for part in split_specials(text):
        if part in SPECIALS:
            out.append(part)
            continue
        clean = "".join(" " if is_whitespace(c) else c for c in part
                        if not (ord(c) == 0 or ord(c) == 0xFFFD or is_control(c)))
        spaced = "".join(f" {c} " if is_cjk(ord(c)) else c for c in clean)
        for w in spaced.split():
            if lower:
                w = "".join(c for c in unicodedata.normalize("NFD", w.lower()) if unicodedata.category(c) != "Mn")
            piece = ""
            for c in w:
                if is_punct(c):
                    if piece:
                        out.append(piece)
                    out.append(c)
                    piece = ""
                else:
                    piece += c
            if piece:
                out.append(piece)
    return out


def split_specials(text):
    parts, i = [], 0
    while i < len(text):
        hits = [(text.find(s, i), s) for s in SPECIALS if text.find(s, i) >= 0]
        if not hits:
            parts.append(text[i:])
            break
        at, s = min(hits)
        if at > i:
            parts.append(text[i:at])
        parts.append(s)
        i = at + len(s)
    return parts


def wordpiece(word, vocab):
    if len(word) > 100:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        end, found = len(word), None
        while start < end:
            sub = word[start:end] if start == 0 else "##" + word[start:end]
            if sub in vocab:
                found = sub
                break
            end -= 1
        if found is None:
            return ["[UNK]"]
        pieces.append(found)
        start = end
    return pieces


def encode(text, vocab):
    """[CLS] pieces [SEP], as ids."""
    ids = [vocab["[CLS]"]]
    for w in basic_tokens(text):
        ids += [vocab[p] for p in ([w] if w in SPECIALS else wordpiece(w, vocab))]
    return ids + [vocab["[SEP]"]]


def make_vocab(sentences):
    words, chars = set(), set()
    for s in sentences:
        for w in basic_tokens(s):
            (chars if len(w) == 1 and (is_cjk(ord(w)) or is_punct(w)) else words).add(w)
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)] + [str(d) for d in range(10)]
    tokens = SPECIALS + sorted(chars) + sorted(words - set(letters)) + letters + ["##" + c for c in letters]
    return {t: i for i, t in enumerate(tokens)}


# ---------------------------------------------------------------------------
# The model, in BertForMaskedLM's layout

class Layer(nn.Module):
    def __init__(self, d, inner, eps):
        super().__init__()
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.attn_out = nn.Linear(d, d)
        self.attn_ln = nn.LayerNorm(d, eps=eps)
        self.inter = nn.Linear(d, inner)
        self.out = nn.Linear(inner, d)
        self.out_ln = nn.LayerNorm(d, eps=eps)


class Bert(nn.Module):
    def __init__(self, vocab, cfg):
        super().__init__()
        d, eps = cfg["hidden_size"], cfg["layer_norm_eps"]
        self.cfg = cfg
        self.word = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(cfg["max_position_embeddings"], d)
        self.token_type = nn.Embedding(cfg["type_vocab_size"], d)
        self.emb_ln = nn.LayerNorm(d, eps=eps)
        self.layers = nn.ModuleList(Layer(d, cfg["intermediate_size"], eps) for _ in range(cfg["num_hidden_layers"]))
        self.transform = nn.Linear(d, d)
        self.transform_ln = nn.LayerNorm(d, eps=eps)
        self.bias = nn.Parameter(torch.zeros(vocab))
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=0.02)
                if isinstance(m, nn.Linear):
                    nn.init.zeros_(m.bias)

    def forward(self, ids, keep):
        """ids: B by n; keep: B by n, False at padding. Returns the logits, B by n by vocab."""
        B, n = ids.shape
        d, H = self.cfg["hidden_size"], self.cfg["num_attention_heads"]
        hd = d // H
        x = self.emb_ln(self.word(ids) + self.pos.weight[:n] + self.token_type.weight[0])
        blocked = ~keep[:, None, None, :]
        for L in self.layers:
            def heads(t):
                return t.view(B, n, H, hd).transpose(1, 2)
            q, k, v = heads(L.query(x)), heads(L.key(x)), heads(L.value(x))
            s = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
            w = torch.softmax(s.masked_fill(blocked, float("-inf")), -1)
            ctx = (w @ v).transpose(1, 2).reshape(B, n, d)
            x = L.attn_ln(x + L.attn_out(ctx))
            x = L.out_ln(x + L.out(F.gelu(L.inter(x))))
        t = self.transform_ln(F.gelu(self.transform(x)))
        return t @ self.word.weight.T + self.bias


def bert_tensors(model):
    out = {"bert.embeddings.word_embeddings.weight": model.word.weight,
           "bert.embeddings.position_embeddings.weight": model.pos.weight,
           "bert.embeddings.token_type_embeddings.weight": model.token_type.weight,
           "bert.embeddings.LayerNorm.weight": model.emb_ln.weight,
           "bert.embeddings.LayerNorm.bias": model.emb_ln.bias}
    for i, L in enumerate(model.layers):
        p = f"bert.encoder.layer.{i}."
        for name, lin in (("attention.self.query", L.query), ("attention.self.key", L.key),
                          ("attention.self.value", L.value), ("attention.output.dense", L.attn_out),
                          ("intermediate.dense", L.inter), ("output.dense", L.out)):
            out[p + name + ".weight"] = lin.weight
            out[p + name + ".bias"] = lin.bias
        for name, ln in (("attention.output.LayerNorm", L.attn_ln), ("output.LayerNorm", L.out_ln)):
            out[p + name + ".weight"] = ln.weight
            out[p + name + ".bias"] = ln.bias
    out["cls.predictions.transform.dense.weight"] = model.transform.weight
    out["cls.predictions.transform.dense.bias"] = model.transform.bias
    out["cls.predictions.transform.LayerNorm.weight"] = model.transform_ln.weight
    out["cls.predictions.transform.LayerNorm.bias"] = model.transform_ln.bias
    out["cls.predictions.bias"] = model.bias
    return {k: v.detach().cpu().numpy() for k, v in out.items()}


def forward_f64(t, cfg, ids):
    """The forward in double precision from the stored tensors: every head's weights and all logits."""
    d, H, eps = cfg["hidden_size"], cfg["num_attention_heads"], cfg["layer_norm_eps"]
    hd = d // H
    n = len(ids)

    def ln(x, p):
        return F.layer_norm(x, (d,), t[p + ".weight"], t[p + ".bias"], eps)

    def lin(x, p):
        return x @ t[p + ".weight"].T + t[p + ".bias"]

    e = "bert.embeddings."
    x = ln(t[e + "word_embeddings.weight"][ids] + t[e + "position_embeddings.weight"][:n]
           + t[e + "token_type_embeddings.weight"][0], e + "LayerNorm")
    layers = []
    for i in range(cfg["num_hidden_layers"]):
        p = f"bert.encoder.layer.{i}."
        q, k, v = (lin(x, p + "attention.self." + n_) for n_ in ("query", "key", "value"))
        heads, outs = [], []
        for h in range(H):
            qh, kh, vh = (m[:, h * hd:(h + 1) * hd] for m in (q, k, v))
            w = torch.softmax(qh @ kh.T / math.sqrt(hd), -1)
            heads.append(w)
            outs.append(w @ vh)
        x = ln(x + lin(torch.cat(outs, 1), p + "attention.output.dense"), p + "attention.output.LayerNorm")
        x = ln(x + lin(F.gelu(lin(x, p + "intermediate.dense")), p + "output.dense"), p + "output.LayerNorm")
        layers.append(heads)
    tr = ln(F.gelu(lin(x, "cls.predictions.transform.dense")), "cls.predictions.transform.LayerNorm")
    logits = tr @ t[e + "word_embeddings.weight"].T + t["cls.predictions.bias"]
    return layers, logits


def write_safetensors(path, tensors, metadata=None):
    import struct
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        raw = np.ascontiguousarray(tensors[name]).astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + len(raw)]}
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


def mask_batch(batch, vocab, r):
    """BERT's masking: 15 % of the word positions; 80 % [MASK], 10 % random, 10 % kept. -100: not predicted."""
    x, y = [], []
    first = len(SPECIALS)
    for ids in batch:
        xi, yi = list(ids), [-100] * len(ids)
        for j in range(1, len(ids) - 1):
            if r.random() < 0.15:
                yi[j] = ids[j]
                u = r.random()
                if u < 0.8:
                    xi[j] = vocab["[MASK]"]
                elif u < 0.9:
                    xi[j] = r.randrange(first, len(vocab))
        if all(v == -100 for v in yi):  # at least one prediction a sentence
            j = r.randrange(1, len(ids) - 1)
            yi[j], xi[j] = ids[j], vocab["[MASK]"]
        x.append(xi)
        y.append(yi)
    n = max(len(v) for v in x)
    pad = vocab["[PAD]"]
    keep = torch.tensor([[True] * len(v) + [False] * (n - len(v)) for v in x])
    x = torch.tensor([v + [pad] * (n - len(v)) for v in x])
    y = torch.tensor([v + [-100] * (n - len(v)) for v in y])
    return x, keep, y


def masked_accuracy(model, sentences, vocab, seed):
    """Each sentence with one word position masked (drawn with `seed`): the share whose top 1 is the word."""
    r = random.Random(seed)
    right = 0
    with torch.no_grad():
        for s in sentences:
            ids = encode(s, vocab)
            j = r.randrange(1, len(ids) - 1)
            x = list(ids)
            x[j] = vocab["[MASK]"]
            logits = model(torch.tensor([x]), torch.ones(1, len(x), dtype=torch.bool))[0, j]
            right += int(int(logits.argmax()) == ids[j])
    return right / len(sentences)


def main(args):
    model_dir = os.path.join(args.out, MODEL_SUBDIR)
    test_dir = os.path.join(args.out, TEST_SUBDIR)
    torch.set_num_threads(args.threads)
    torch.manual_seed(SEED)
    g = grammar()
    r = random.Random(SEED)
    start = time.time()
    train = [sentence(g, r) for _ in range(60000)]
    seen = set(train)
    rh = random.Random(SEED + 1000)
    held, draws = [], 0
    while len(held) < 400:
        s = sentence(g, rh)
        draws += 1
        if s not in seen and s not in held:
            held.append(s)
    vocab = make_vocab(train)
    print(f"{len(train)} sentences ({len(seen)} distinct); held out {len(held)} of {draws} draws; vocabulary {len(vocab)}",
          flush=True)
    data = [encode(s, vocab) for s in train]
    assert max(len(v) for v in data) <= CONFIG["max_position_embeddings"]
    assert all(vocab["[UNK]"] not in v for v in data)

    cfg = dict(CONFIG, vocab_size=len(vocab))
    model = Bert(len(vocab), cfg)
    nparams = sum(p.numel() for p in model.parameters())
    print(f"model: {cfg}, {nparams} parameters", flush=True)
    peak, warm = 1e-3, 200
    opt = torch.optim.AdamW(model.parameters(), lr=peak, betas=(0.9, 0.98), weight_decay=0.01)
    rm = random.Random(SEED + 1)
    t0 = time.time()
    avg = None
    for step in range(1, args.steps + 1):
        lr = peak * step / warm if step <= warm else \
            peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * (step - warm) / (args.steps - warm))))
        for group in opt.param_groups:
            group["lr"] = lr
        x, keep, y = mask_batch([data[rm.randrange(len(data))] for _ in range(args.batch)], vocab, rm)
        loss = F.cross_entropy(model(x, keep).reshape(-1, len(vocab)), y.reshape(-1), ignore_index=-100)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        avg = loss.item() if avg is None else 0.98 * avg + 0.02 * loss.item()
        if step % 100 == 0 or step == 1:
            print(f"step {step:5d}  loss {loss.item():.4f}  (smoothed {avg:.4f})  lr {lr:.2e}  {time.time() - t0:.0f} s",
                  flush=True)
    train_seconds = time.time() - t0
    model.eval()
    acc = masked_accuracy(model, held, vocab, SEED + 2)
    print(f"masked-word accuracy on the held-out sentences: {acc:.3f}", flush=True)

    os.makedirs(model_dir, exist_ok=True)
    tensors = bert_tensors(model)
    write_safetensors(os.path.join(model_dir, "model.safetensors"), tensors, {"format": "pt"})
    config = {"architectures": ["BertForMaskedLM"], "model_type": "bert", "vocab_size": len(vocab),
              "hidden_size": cfg["hidden_size"], "num_hidden_layers": cfg["num_hidden_layers"],
              "num_attention_heads": cfg["num_attention_heads"], "intermediate_size": cfg["intermediate_size"],
              "hidden_act": cfg["hidden_act"], "max_position_embeddings": cfg["max_position_embeddings"],
              "type_vocab_size": cfg["type_vocab_size"], "layer_norm_eps": cfg["layer_norm_eps"],
              "pad_token_id": 0, "position_embedding_type": "absolute", "tie_word_embeddings": True}
    with open(os.path.join(model_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    with open(os.path.join(model_dir, "vocab.txt"), "w", encoding="utf-8") as f:
        for t_ in sorted(vocab, key=vocab.get):
            f.write(t_ + "\n")
    with open(os.path.join(model_dir, "tokenizer_config.json"), "w") as f:
        json.dump({"do_lower_case": True, "tokenize_chinese_chars": True, "tokenizer_class": "BertTokenizer",
                   "model_max_length": cfg["max_position_embeddings"]}, f, indent=2)
        f.write("\n")

    t64 = {k: torch.from_numpy(v.astype(np.float32).astype(np.float64)) for k, v in tensors.items()}
    texts = ["我 [MASK] 你 。", "the cat [MASK] on the mat .", "the [MASK] near the tree chase the ball .",
             "小明 看见 了 小红 ， [MASK] 很 高兴 。", "the girl sees the king . [MASK] is happy ."]
    refs = []
    for s in texts:
        ids = encode(s, vocab)
        layers, logits = forward_f64(t64, cfg, ids)
        masks = [j for j, i in enumerate(ids) if i == vocab["[MASK]"]]
        fills = []
        for j in masks:
            p = torch.softmax(logits[j], 0)
            top = torch.topk(p, 5)
            fills.append({"position": j, "logits": [float(f"{v:.12g}") for v in logits[j].tolist()],
                          "top5": [{"id": int(i), "token": sorted(vocab, key=vocab.get)[int(i)], "p": float(f"{q:.12g}")}
                                   for q, i in zip(top.values.tolist(), top.indices.tolist())]})
            print(f"  {s}: " + ", ".join(f"{f['token']} {f['p']:.3f}" for f in fills[-1]["top5"]), flush=True)
        refs.append({"text": s, "ids": ids, "pieces": [sorted(vocab, key=vocab.get)[i] for i in ids], "fills": fills,
                     "weights": [[[[float(f"{v:.12g}") for v in row] for row in h.tolist()] for h in heads]
                                 for heads in layers]})
    os.makedirs(test_dir, exist_ok=True)
    with open(os.path.join(test_dir, "encoder-reference.json"), "w", encoding="utf-8") as f:
        json.dump({"model": "resources/models/tiny-encoder", "note": "written by scripts/train-encoder.py; double "
                   "precision from the stored F32 weights", "sentences": refs}, f, ensure_ascii=False)
    with open(os.path.join(test_dir, "encoder-held-out.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(held) + "\n")
    total = time.time() - start
    with open(os.path.join(model_dir, "README.md"), "w", encoding="utf-8") as f:
        f.write(f"""# tiny-encoder

A BERT-shaped encoder that Attention Lab trains and ships: every token reads
every other, both ways, and the model fills in a masked word. Made by
`scripts/train-encoder.py` (seed {SEED}) in the Hugging Face BERT layout:
`config.json` (model_type "bert"), `model.safetensors` (F32, BertForMaskedLM's
names), `vocab.txt` (WordPiece) and `tokenizer_config.json`.

- Shape: {cfg['num_hidden_layers']} layers, {cfg['num_attention_heads']} heads, hidden {cfg['hidden_size']},
  intermediate {cfg['intermediate_size']}, {cfg['max_position_embeddings']} positions,
  vocabulary {len(vocab)}; {nparams} parameters.
- Text: the built-in decoder's grammar (scripts/train-model.py), {len(train)}
  sentences, one a sequence; Chinese is read a character at a time, as BERT does.
- Training: {args.steps} steps of AdamW, batches of {args.batch} sentences, BERT's masking,
  {args.threads} CPU thread(s), {train_seconds / 60:.1f} minutes.
- Masked-word accuracy (one word of each masked, top 1) on {len(held)} sentences
  held out by construction: {acc:.3f}. Final training loss (smoothed) {avg:.3f}.

Licence: generated by the Attention Lab project, under the project's terms.

    nice -n 10 /usr/bin/python3 scripts/train-encoder.py --steps {args.steps} --threads {args.threads}
""")
    with open(os.path.join(test_dir, "encoder-training.json"), "w") as f:
        json.dump({"steps": args.steps, "threads": args.threads, "batch": args.batch,
                   "train_seconds": round(train_seconds, 1), "final_loss_smoothed": round(avg, 4),
                   "held_out_masked_accuracy": round(acc, 4), "held_out_sentences": len(held),
                   "held_out_draws": draws, "parameters": nparams}, f, indent=1)
    print(f"done in {total:.0f} s", flush=True)


if __name__ == "__main__":
    main(ARGS)
