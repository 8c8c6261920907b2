#!/usr/bin/env python3
"""Prints each '## ' heading and, of each table in bench_strategies.py's
strategies.md, the kernel column and the 'x cuBLAS' and TFLOP/s columns:
the lines a device call's output tail has room for."""
import sys

head = []
for line in open(sys.argv[1]):
    if line.startswith("## "):
        print(line.strip())
    if not line.startswith("| "):
        continue
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if cells[0] == "kernel":
        head = cells
    if cells[0].startswith("-"):
        continue
    keep = [c for h, c in zip(head, cells) if h == "kernel" or h.endswith("x cuBLAS") or h.endswith("TFLOP/s")]
    print("| " + " | ".join(keep) + " |")
