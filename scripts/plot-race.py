#!/usr/bin/python3
"""The race's loss curves, from `attention-lab-cli train --format json` logs.

    attention-lab-cli train ... --scale sqrt --format json --out /tmp/s > sqrt.jsonl
    (the same with --scale none and --scale dk)
    scripts/plot-race.py sqrt=sqrt.jsonl none=none.jsonl dk=dk.jsonl --out docs/images/race.svg [--title T]

Writes an SVG (plain polylines: no plotting library needed) of the held-out
loss against the step, one line a run, and prints the losses as a Markdown
table (a row every --every log entries).
"""

import argparse
import json

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]


def read(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip().startswith("{")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="NAME=FILE.jsonl")
    ap.add_argument("--out", required=True)
    ap.add_argument("--title", default="held-out loss")
    ap.add_argument("--every", type=int, default=4)
    args = ap.parse_args()
    runs = []
    for r in args.runs:
        name, path = r.split("=", 1)
        runs.append((name, read(path)))
    steps = max(e["step"] for _, log in runs for e in log)
    losses = [e["loss"] for _, log in runs for e in log]
    lo, hi = min(losses), max(losses)
    W, H, left, right, top, bottom = 640, 400, 60, 130, 30, 45
    pw, ph = W - left - right, H - top - bottom

    def x(s):
        return left + pw * s / max(1, steps)

    def y(v):
        return top + ph * (hi - v) / max(1e-12, hi - lo)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{left}" y="18" font-size="14">{args.title}</text>',
           f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="black"/>',
           f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="black"/>']
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        out.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.2f}</text>')
        out.append(f'<line x1="{left}" y1="{y(v):.1f}" x2="{left + pw}" y2="{y(v):.1f}" stroke="#ddd"/>')
        s = steps * k / 4
        out.append(f'<text x="{x(s):.1f}" y="{top + ph + 16}" text-anchor="middle">{int(s)}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{H - 8}" text-anchor="middle">step</text>')
    for i, (name, log) in enumerate(runs):
        c = COLOURS[i % len(COLOURS)]
        pts = " ".join(f"{x(e['step']):.1f},{y(e['loss']):.1f}" for e in log)
        out.append(f'<polyline fill="none" stroke="{c}" stroke-width="2" points="{pts}"/>')
        out.append(f'<line x1="{left + pw + 10}" y1="{top + 10 + 20 * i}" x2="{left + pw + 30}" y2="{top + 10 + 20 * i}" '
                   f'stroke="{c}" stroke-width="2"/>')
        out.append(f'<text x="{left + pw + 35}" y="{top + 14 + 20 * i}">{name}</text>')
    out.append("</svg>")
    with open(args.out, "w") as f:
        f.write("\n".join(out) + "\n")
    names = [n for n, _ in runs]
    print("| step | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    logs = [dict((e["step"], e["loss"]) for e in log) for _, log in runs]
    all_steps = sorted(logs[0])
    for k, s in enumerate(all_steps):
        if k % args.every and s != all_steps[-1]:
            continue
        print(f"| {s} | " + " | ".join(f"{l[s]:.3f}" if s in l else "" for l in logs) + " |")


if __name__ == "__main__":
    main()
