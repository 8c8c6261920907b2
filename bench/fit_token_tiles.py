#!/usr/bin/env python3
"""The WGMMA time model of the token variants (codegen/TileSelection.h,
wgmmaMicroseconds) against per-kernel times measured on the GPU: for each
(shape, T, kernel op) the configuration the model ranks fastest among those
measured, beside the measured fastest, and the mean loss of taking the
model's (measured time over the best's, less 1). --grid searches the five
constants again.

  python3 bench/fit_token_tiles.py RESULTS/call1 [--grid]

The directory holds bench/kernel_times.py outputs: kt-bundles-default-to8192.txt
(main's variants) and kt-tt-w<W>[s<S>].txt (bundles whose variants for T <=
2048 --fmlp-token-tiles fixed: tiles W wide per accumulator, K in S slices,
on K2, K3 (unsplit) and K4; K1 too at W = 64).
"""
import argparse
import collections
import itertools
import math
import re
from pathlib import Path

# codegen/TileSelection.cpp's constants (the H200: 132 multiprocessors;
# test_fit_token_tiles.py checks that they agree).
CONSTANTS = dict(mma=2.5e-3, load=1.35e-3, wave=3.0, split=4.0, partial=0.01)
HBM_BYTES_PER_US = 4.19e6
MULTIPROCESSORS = 132
OPS = ("gate_up", "down_grad", "down", "input_grad")


def dims(d, h, op):
    """N, K and accumulators of a kernel op's GEMM."""
    return {"gate_up": (h, d, 2), "down": (d, h, 1), "down_grad": (h, d, 1),
            "input_grad": (d, 2 * h, 1)}[op]


def model(d, h, tokens, op, tile_n, split_k, c):
    n, k, accumulators = dims(d, h, op)
    columns = tile_n * accumulators
    blocks = math.ceil(tokens / 128) * math.ceil(n / tile_n) * split_k
    waves = math.ceil(blocks / MULTIPROCESSORS)
    k_tiles = math.ceil(math.ceil(k / 64) / split_k)
    k_tile = max(c["mma"] * columns, c["load"] * (128 + columns))
    busiest = waves * (c["wave"] + k_tiles * k_tile)
    if split_k > 1:
        busiest += c["split"] + c["partial"] * columns * (split_k - 1)
    return max(busiest, 2 * (n * k + tokens * k + tokens * n) / HBM_BYTES_PER_US)


def main_config(d, t, op):
    """The variant main's bundles (session 19) launch: 64-wide tiles with the
    split of selectSplitK for K2 and K4 at T <= 256, else the kernel_config."""
    if op in ("down", "input_grad") and t <= 256:
        return 64, {1024: {128: 8, 256: 4}, 4096: {128: 2, 256: 1}}[d][t]
    return (128, 1) if op == "gate_up" else (256, 1)


def candidate_config(name, op):
    """The (tile width, K slices) of kernel op `op` in the bundles of
    candidate `name` (call 1's scripts/s20a.sh and COMMAND.md): w<W>s<S>
    fixed K2, K3 and K4 at W/S, except that w192s2 kept K3 unsplit and w192s4
    left it as main; K1 took 64 in w64 only."""
    w, s = (int(v or 1) for v in re.match(r"w(\d+)(?:s(\d+))?$", name).groups())
    if op == "gate_up":
        return (64, 1) if name == "w64" else (128, 1)
    if op == "down_grad" and name in ("w192s2", "w192s4"):
        return {"w192s2": (192, 1), "w192s4": (256, 1)}[name]
    return w, s


def read(directory):
    """(d, t, op) -> {(tile_n, split_k): microseconds} of the training step's kernels."""
    times = collections.defaultdict(dict)
    for path in sorted(Path(directory).glob("kt-*.txt")):
        name = path.stem[3:]
        if not (name.startswith("tt-") or name == "bundles-default-to8192"):
            continue
        current, sums = None, collections.defaultdict(float)
        for line in path.read_text().splitlines():
            head = re.match(r"D=(\d+) H=\d+ T=(\d+) (no-grad|step)", line)
            if head:
                current = (int(head[1]), int(head[2])) if head[3] == "step" else None
                continue
            row = re.match(r"\s+([\d.]+) us.*\s(mlp_\S+)$", line)
            if not (row and current) or "weight_grad" in row[2]:
                continue
            op = next((o for o in OPS if re.search(rf"k\d_{o}(_|$)", row[2])), None)
            if op:
                sums[(*current, op)] += float(row[1])
        for (d, t, op), us in sums.items():
            if t > 2048:
                continue
            config = main_config(d, t, op) if name.startswith("bundles") \
                else candidate_config(name[3:], op)
            times[(d, t, op)][config] = us
    return times


# The constants' names in codegen/TileSelection.cpp.
CPP_NAMES = dict(mma="kMmaMicrosPerColumn", load="kLoadMicrosPerRow", wave="kWaveMicros",
                 split="kSplitKMicros", partial="kPartialMicrosPerColumn")


def cpp_constant(source, name):
    """The value of constant `name` in C++ file `source`."""
    return float(re.search(rf"\b{name} = ([0-9.e+-]+)", Path(source).read_text())[1])


def cpp_constants(source):
    """The model's constants as codegen/TileSelection.cpp defines them."""
    return {key: cpp_constant(source, name) for key, name in CPP_NAMES.items()}


def choices(times, c):
    """(d, t, op) -> (the model's choice among the measured, the measured best)."""
    out = {}
    for (d, t, op), measured in times.items():
        h = {1024: 2816, 4096: 11008}[d]
        out[(d, t, op)] = (min(measured, key=lambda cfg: model(d, h, t, op, *cfg, c)),
                           min(measured, key=measured.get))
    return out


def loss(times, c):
    """The mean of (the model's choice's time / the best's) - 1."""
    return sum(times[key][chosen] / times[key][best] - 1
               for key, (chosen, best) in choices(times, c).items()) / len(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("directory")
    p.add_argument("--grid", action="store_true")
    args = p.parse_args()
    times = read(args.directory)
    c = dict(CONSTANTS)
    if args.grid:
        grid = dict(mma=[1.6e-3, 1.9e-3, 2.2e-3, 2.5e-3], load=[1.0e-3, 1.2e-3, 1.35e-3, 1.5e-3],
                    wave=[0, 1, 2, 3], split=[0, 2, 4, 6], partial=[0, 0.01, 0.02, 0.04])
        c = min((dict(zip(grid, values)) for values in itertools.product(*grid.values())),
                key=lambda cand: loss(times, cand))
        print("fitted:", c)
    print(f"{len(times)} cases, {sum(map(len, times.values()))} times; mean loss of the "
          f"model's choice: {loss(times, c):.4f}")
    print("| D | T | kernel | model's choice | its time | measured best | its time |")
    print("|---|---|---|---|---|---|---|")
    picked = choices(times, c)
    for (d, t, op), measured in sorted(times.items()):
        chosen, best = picked[(d, t, op)]
        print(f"| {d} | {t} | {op} | {chosen[0]}/{chosen[1]} | {measured[chosen]:.1f} | "
              f"{best[0]}/{best[1]} | {measured[best]:.1f} |")


if __name__ == "__main__":
    main()
