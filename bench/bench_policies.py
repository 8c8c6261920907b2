#!/usr/bin/env python3
"""fmlp's memory policies (python/fmlp/policy.py) against each other and
against Hugging Face's LlamaMLP, eager and torch.compile'd: the training
step's time and memory, module against module over the same weights.

Each implementation is called the same way (bench_sweep.module_calls'
"train": x.grad and every parameter's .grad set to None, then
module(x).backward(dy)), eagerly, back to back. Per (D, H, T) and
implementation:
  - time: the median step time (bench_sweep.Timer: CUDA events around
    back-to-back steps, median of per-round medians, the implementations
    taken in turn each round);
  - held: the bytes allocated after the forward beyond those before it,
    minus y's: what the forward keeps for the backward (saved activations
    and autograd's own);
  - extra peak: torch.cuda.max_memory_allocated during one step beyond
    what was allocated before it (weights, x, dy): saved activations,
    workspaces, y, dx and the weight gradients (the same outputs for every
    implementation).

  FMLP_CACHE_DIR=... python3 bench/bench_policies.py --out DIR
  python3 bench/bench_policies.py --report DIR   # policies.md, policies.png

The plot (memory against time, one point per policy and implementation)
needs matplotlib; the table does not.
"""
import argparse
import datetime
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

MIB = 1024 * 1024


def policies(chunks):
    """(label, save, chunk_tokens) of each fmlp variant measured."""
    out = [(f"fmlp save={s}", s, 0) for s in ("agu", "gu", "u", "x")]
    for chunk in chunks:
        out += [(f"fmlp save={s} chunk={chunk}", s, chunk) for s in ("gu", "u", "x")]
    return out


def measure_memory(call, x, params, device):
    """(held, extra peak) in bytes of one training step `call` (see the
    module docstring). The previous step's gradients are dropped first, so
    that `before` holds weights, x and dy only."""
    import torch
    x.grad = None
    for p in params:
        p.grad = None
    torch.cuda.synchronize(device)
    before = torch.cuda.memory_allocated(device)
    torch.cuda.reset_peak_memory_stats(device)
    forward, backward = call
    y = forward()
    torch.cuda.synchronize(device)
    held = torch.cuda.memory_allocated(device) - before - y.numel() * y.element_size()
    backward(y)
    torch.cuda.synchronize(device)
    peak = torch.cuda.max_memory_allocated(device) - before
    return held, peak


def run_shape(d, h, t, args, timer):
    import torch
    import bench_sweep
    import fmlp
    device, dtype = torch.device("cuda"), torch.bfloat16
    modules, original, x, dy = bench_sweep.make_modules(
        d, h, t, device, dtype, ["fmlp", "hf_eager", "hf_compile"])
    params = list(original.parameters())
    variants = {}  # label -> (module, policy or None)
    for label, save, chunk in policies(args.chunks):
        fused = fmlp.FusedGatedMLP.wrap(original, original.config)
        fused.memory_policy = fmlp.MemoryPolicy(save=save, chunk_tokens=chunk)
        variants[label] = fused
    variants["HF eager"] = modules["hf_eager"]
    variants["HF torch.compile"] = modules["hf_compile"]

    def step(module):
        def forward():
            x.grad = None
            for p in params:
                p.grad = None
            return module(x)
        return forward, lambda y: y.backward(dy)

    results = {}
    calls = {}
    for label, module in variants.items():
        forward, backward = step(module)
        fn = lambda f=forward, b=backward: b(f())  # noqa: E731
        try:
            for _ in range(2):  # warm-up: compile, autotune, allocator
                fn()
            held, peak = measure_memory((forward, backward), x, params, device)
        except Exception as error:  # recorded, not timed
            results[label] = {"error": f"{type(error).__name__}: {error}"}
            print(f"  {label}: {results[label]['error']}", flush=True)
            continue
        results[label] = {"held_bytes": held, "peak_bytes": peak}
        calls[label] = fn
    per_round = {label: [] for label in calls}
    counts = {label: timer.calls_per_sample(fn) for label, fn in calls.items()}
    for _ in range(args.rounds):
        for label, fn in calls.items():
            samples = timer.samples(fn, counts[label], args.samples, args.budget_s)
            per_round[label].append(statistics.median(samples))
    for label, rounds in per_round.items():
        results[label]["ms"] = statistics.median(rounds)
        r = results[label]
        print(f"  {label:32s} {r['ms']:9.3f} ms  held {r['held_bytes'] / MIB:9.1f} MiB  "
              f"peak {r['peak_bytes'] / MIB:9.1f} MiB", flush=True)
    del variants, modules, calls
    torch.cuda.empty_cache()
    return results


def report(directory):
    """policies.md (and policies.png where matplotlib is) from
    policies.json in `directory`."""
    data = json.loads((Path(directory) / "policies.json").read_text())
    lines = ["# fmlp's memory policies: training step, module against module (bf16)", "",
             data["header"], "",
             "time: median step (forward + backward, gradients set to None), eager. held: "
             "bytes the forward keeps for the backward (beyond y). extra peak: the step's "
             "peak allocation beyond weights, x and dy (includes dx and the weight "
             "gradients). Ratios against `fmlp save=agu` in the same run.", ""]
    for cell in data["cells"]:
        base = cell["results"].get("fmlp save=agu", {})
        lines += [f"## D={cell['d']}, H={cell['h']}, T={cell['t']}", "",
                  "| implementation | time (ms) | time / agu | held (MiB) | extra peak (MiB) "
                  "| peak / agu |", "|---|---|---|---|---|---|"]
        for label, r in cell["results"].items():
            if "error" in r:
                lines.append(f"| {label} | error: {r['error'][:120]} | | | | |")
                continue
            ratio = lambda key: (f"{r[key] / base[key]:.3f}"  # noqa: E731
                                 if base.get(key) else "-")
            lines.append(f"| {label} | {r['ms']:.3f} | {ratio('ms')} | "
                         f"{r['held_bytes'] / MIB:.1f} | {r['peak_bytes'] / MIB:.1f} | "
                         f"{ratio('peak_bytes')} |")
        lines.append("")
    (Path(directory) / "policies.md").write_text("\n".join(lines))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not found: policies.png not written")
        return
    cells = data["cells"]
    fig, axes = plt.subplots(1, len(cells), figsize=(5.5 * len(cells), 4.8), squeeze=False)
    for axis, cell in zip(axes[0], cells):
        for label, r in cell["results"].items():
            if "error" in r:
                continue
            marker = "o" if label.startswith("fmlp") else "s"
            axis.scatter(r["ms"], r["peak_bytes"] / MIB, marker=marker)
            axis.annotate(label.replace("fmlp ", ""), (r["ms"], r["peak_bytes"] / MIB),
                          fontsize=7, xytext=(3, 3), textcoords="offset points")
        axis.set_title(f"D={cell['d']}, H={cell['h']}, T={cell['t']}", fontsize=9)
        axis.set_xlabel("step time (ms)")
        axis.set_ylabel("extra peak (MiB)")
        axis.grid(alpha=0.3)
    fig.suptitle("Training step: memory against time per policy (H200, bf16)", fontsize=10)
    fig.tight_layout()
    fig.savefig(Path(directory) / "policies.png", dpi=120)
    print(f"wrote {Path(directory) / 'policies.png'}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", help="directory for policies.json and policies.md")
    parser.add_argument("--report", help="only write policies.md/png from DIR's json")
    parser.add_argument("--shapes", default="1024x2816,4096x11008")
    parser.add_argument("--tokens", default="8192,65536")
    parser.add_argument("--chunks", default="8192",
                        help="chunk_tokens values measured with save=gu and save=x")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--budget-s", type=float, default=3.0)
    parser.add_argument("--busy-ms", type=float, default=200.0)
    parser.add_argument("--deadline-s", type=float, default=400.0)
    args = parser.parse_args()
    if args.report:
        return report(args.report)
    args.chunks = [int(c) for c in args.chunks.split(",") if c]
    import torch
    import bench_sweep
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    timer = bench_sweep.Timer(torch.device("cuda"), args.busy_ms, 50, False)
    data = {"header": f"{torch.cuda.get_device_name()}, torch {torch.__version__}; "
                      f"{datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC.", "cells": []}
    start = time.monotonic()
    for shape in args.shapes.split(","):
        d, h = (int(v) for v in shape.split("x"))
        for t in (int(v) for v in args.tokens.split(",")):
            if time.monotonic() - start > args.deadline_s:
                print(f"deadline: ({d}, {h}) T={t} not measured", flush=True)
                continue
            print(f"(D, H) = ({d}, {h}), T = {t}", flush=True)
            data["cells"].append({"d": d, "h": h, "t": t,
                                  "results": run_shape(d, h, t, args, timer)})
            (out / "policies.json").write_text(json.dumps(data, indent=1))
            report(out)


if __name__ == "__main__":
    main()
