#!/usr/bin/env python3
"""Warp-stall samples of one kernel from `ncu --import REP --page source
--csv --print-source sass`: by opcode, and the instructions with the most,
with their top stall reasons. Usage: stalls.py SOURCE.csv [TOP]"""
import collections
import csv
import re
import sys

rows = list(csv.reader(open(sys.argv[1])))
header, data = rows[1], rows[2:]
col = header.index
samples = "Warp Stall Sampling (All Samples)"
reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
total = sum(int(r[col(samples)]) for r in data)
print(f"{rows[0][1]}: {total} samples over {len(data)} instructions")
by_opcode, count = collections.Counter(), collections.Counter()
for r in data:
    m = re.match(r"(@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", r[1].strip())
    opcode = m.group(2) if m else r[1].strip()
    by_opcode[opcode] += int(r[col(samples)])
    count[opcode] += 1
print("\nby opcode (samples, share, instructions):")
for opcode, n in by_opcode.most_common(20):
    print(f"  {opcode:18} {n:6d} {n / total:6.3f} {count[opcode]:4d}")
print("\nmost sampled instructions (index in the listing, samples, share, top reasons):")
top = int(sys.argv[2]) if len(sys.argv) > 2 else 20
for i, r in sorted(enumerate(data), key=lambda x: -int(x[1][col(samples)]))[:top]:
    n = int(r[col(samples)])
    why = sorted(((int(r[col(s)]), s[6:]) for s in reasons), reverse=True)[:2]
    print(f"  {i:5d} {n:6d} {n / total:6.3f} {r[1].strip()[:58]:58} {why}")
