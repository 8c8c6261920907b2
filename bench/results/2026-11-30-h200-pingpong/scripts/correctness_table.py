#!/usr/bin/env python3
"""Worst error/bound per dtype, (D, H) and output over the T values and
runs (forward, no-grad, graph replay) of fmlp-gpu-block-test logs; the
controls' lines are left out. Usage: correctness_table.py LOG..."""
import collections
import re
import sys

line = re.compile(r"^(\w+)\s+D=(\d+)\s+H=(\d+)\s+T=(\d+)\s+(\w+) \((\w+)\)\s+worst error/bound (\S+) non-finite (\d+) (\w+)")
worst = collections.defaultdict(float)
tokens = collections.defaultdict(set)
verdicts = collections.Counter()
for path in sys.argv[1:]:
    for text in open(path):
        m = line.match(text)
        if not m:
            continue
        dtype, d, h, t, output, _, ratio, nonfinite, verdict = m.groups()
        key = (dtype, int(d), int(h), output)
        worst[key] = max(worst[key], float(ratio))
        tokens[(dtype, int(d), int(h))].add(int(t))
        verdicts[verdict] += 1
outputs = ["y", "dx", "d_gate", "d_up", "d_down"]
print(f"{'dtype':5} {'(D, H)':14} {'T':22} " + " ".join(f"{o:>9}" for o in outputs))
for (dtype, d, h) in sorted(tokens):
    ts = ",".join(str(t) for t in sorted(tokens[(dtype, d, h)]))
    print(f"{dtype:5} {f'({d}, {h})':14} {ts:22} " +
          " ".join(f"{worst.get((dtype, d, h, o), float('nan')):9.2e}" for o in outputs))
print("checks:", dict(verdicts))
