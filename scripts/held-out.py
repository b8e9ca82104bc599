#!/usr/bin/python3
"""Evaluation text the built-in model never saw, held out by construction.

The grammar is train-model.py's own (its section "1. The text", read from
that file, so it is written once; no PyTorch needed). The training text is
make_text(random.Random(13), 60000), exactly as train-model.py draws it; a
sentence is held out when the training text has no line equal to it.

  held-out.py write [--count N] [--seed S] [--out FILE]
      N distinct held-out sentences drawn with Random(S) (default 400, seed
      2026), one a line, to FILE (default tests/model/held-out.txt)
  held-out.py check FILE
      exit 1 (naming the line) if any line of FILE is in the training text
  held-out.py overlap
      how many of train-model.py's own "freshly generated" evaluation
      sentences (Random(14), 3000) occur word for word in the training text
"""

import argparse
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRAIN_SCRIPT = os.path.join(ROOT, "scripts", "train-model.py")
SEED = 13


def grammar():
    """The text section of train-model.py, run on its own."""
    with open(TRAIN_SCRIPT, encoding="utf-8") as f:
        source = f.read()
    start = source.index("# 1. The text")
    end = source.index("# 2. Byte-level BPE")
    scope = {"random": random}
    exec(compile(source[start:end], TRAIN_SCRIPT, "exec"), scope)
    return scope


def training_lines(g):
    return set(g["make_text"](random.Random(SEED), 60000).splitlines())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write")
    w.add_argument("--count", type=int, default=400)
    w.add_argument("--seed", type=int, default=2026)
    w.add_argument("--out", default=os.path.join(ROOT, "tests", "model", "held-out.txt"))
    c = sub.add_parser("check")
    c.add_argument("file")
    sub.add_parser("overlap")
    args = ap.parse_args()
    g = grammar()
    seen = training_lines(g)
    if args.command == "write":
        if args.seed == SEED:
            sys.exit("held-out.py: the seed is the training text's own")
        r = random.Random(args.seed)
        out, drawn = [], 0
        while len(out) < args.count:
            s = g["sentence"](r)
            drawn += 1
            if drawn > 1000 * args.count:
                sys.exit(f"held-out.py: only {len(out)} held-out sentences in {drawn} draws")
            if s not in seen and s not in out:
                out.append(s)
        with open(args.out, "w", encoding="utf-8") as f:
            f.write("\n".join(out) + "\n")
        print(f"{len(out)} sentences from {drawn} draws (seed {args.seed}); "
              f"{len(seen)} distinct training lines", file=sys.stderr)
    elif args.command == "check":
        with open(args.file, encoding="utf-8") as f:
            lines = f.read().splitlines()
        for i, s in enumerate(lines, 1):
            if s in seen:
                sys.exit(f"{args.file}:{i}: in the training text: {s}")
        if not lines:
            sys.exit(f"{args.file}: no sentences")
        print(f"{len(lines)} sentences, none in the training text ({len(seen)} distinct lines)")
    else:
        lines = g["make_text"](random.Random(SEED + 1), 3000).splitlines()
        inside = sum(s in seen for s in lines)
        print(f"{inside} of {len(lines)} ({100.0 * inside / len(lines):.1f} %) of train-model.py's evaluation "
              f"sentences occur in the training text")


if __name__ == "__main__":
    main()
