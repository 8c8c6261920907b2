#!/usr/bin/env python3
"""The report of bench/bench_sweep.py's results: a markdown table and a
log-log plot of time against T. Needs neither torch nor a GPU (the table is
also written by bench_sweep.py on the GPU machine; the plot needs
matplotlib, which that machine may lack: run this where it is installed).

  python3 bench/sweep_report.py DIR [MORE...]   reads DIR/sweep.json, writes
      DIR/sweep.md and DIR/sweep.png; with MORE (runs for the cells a run cut
      short left), their cells join DIR's, each cell still from one run

Every ratio is of two times measured in the same run (bench_sweep.py's
JSON holds the times; the ratios are computed here, in one place).
"""
import argparse
import json
import math
from pathlib import Path

# Display names of the implementations (bench_sweep.IMPLEMENTATIONS).
NAMES = {"fmlp": "fmlp", "fmlp_serial": "fmlp one stream", "fmlp_b": "fmlp (B bundles)",
         "fmlp_compile": "fmlp + compile",
         "hf_eager": "HF eager", "hf_compile": "HF compile"}
MODES = {"nograd": "no-grad forward", "train": "training step (fwd+bwd, grads set to None)"}
# The ratios the table shows: fmlp's time over each baseline's, same launch.
BASELINES = ("fmlp_serial", "fmlp_b", "hf_eager", "hf_compile")


def floor_us(floors):
    """The tighter of the two floors (a time no implementation can beat)."""
    return max(floors["weight_read"], floors["gemm"])


def _us(value):
    if value is None:
        return "-"
    return f"{value:.1f}" if value < 1000 else f"{value:.0f}"


def _ratio(a, b):
    return "-" if a is None or b is None else f"{a / b:.2f}"


def rows(data):
    """(mode, D, H, T, launch, {implementation: us or None}, floors) in the
    table's order: mode, shape, T, launch."""
    meta = data["meta"]
    out = []
    for mode in meta["modes"]:
        for cell in sorted(data["cells"], key=lambda c: (c["D"], c["H"], c["T"])):
            if mode not in cell["us"]:
                continue
            for launch in meta["launches"]:
                times = {i: cell["us"][mode].get(i, {}).get(launch) for i in meta["implementations"]}
                out.append((mode, cell["D"], cell["H"], cell["T"], launch, times,
                            cell["floors_us"][mode]))
    return out


def markdown_table(data):
    """The sweep as markdown: one table per (mode, shape), times in us."""
    meta = data["meta"]
    impls = meta["implementations"]
    # fmlp's ratios to each baseline that ran beside it.
    with_fmlp = "fmlp" in impls
    baselines = [b for b in BASELINES if b in impls and with_fmlp]
    lines = [
        f"# fmlp against Hugging Face's LlamaMLP, module against module ({meta['dtype']})",
        "",
        f"{meta['device']}, torch {meta['torch']}, fmlp {meta['fmlp']}; {meta['date']}.",
        f"Timing: {meta['timing']}",
        f"L2 {'flushed before every timed call' if meta['flush_l2'] else 'not flushed'}"
        + ("" if meta["flush_l2"] else
           " (weights that fit in L2, as (1024, 2816)'s 17 MB do in the H200's 60 MB, may be "
           "read from it by back-to-back calls: such times can beat the weight-read floor)") + ".",
        f"Copy bandwidth measured in this run: {meta['copy_bandwidth_Bps'] / 1e12:.2f} TB/s "
        "(a device-to-device copy of "
        f"{meta['copy_bytes'] / 2**30:.1f} GiB, bytes read plus written).",
        "",
        "Columns: each implementation's median time in us (an nn.Module called the same way: "
        "no-grad under torch.no_grad(); training as x.grad and every parameter's .grad set to "
        "None, then module(x).backward(dy)); `eager` = called from Python each time, `graph` = "
        "the same call captured in one torch.cuda.CUDAGraph and replayed. "
        "fmlp / X: fmlp's time over X's, same launch (< 1: fmlp faster). "
        "Weight floor: bytes of weights / copy bandwidth (no-grad: the weights read once; "
        "training: read by the forward, read by the backward, gradients written: 3x). "
        f"GEMM floor: the same GEMMs as raw torch.matmul calls into preallocated outputs, "
        f"{meta['gemm_floor_launch']} (no-grad: x Wgu^T, A Wd^T; training: those and dY Wd, dGU Wgu, "
        "dGU^T x, dY^T A). fmlp / floor: over the larger of the two floors.",
    ]
    if meta.get("not_run"):
        lines += ["", "Not run (the time limit came first): "
                  + ", ".join(f"(D={d}, H={h}, T={t})" for d, h, t in meta["not_run"]) + "."]
    current = None
    for mode, d, h, t, launch, times, floors in rows(data):
        if (mode, d, h) != current:
            current = (mode, d, h)
            lines += ["", f"## {MODES[mode]}, D={d}, H={h}", "",
                      "| T | launch | " + " | ".join(NAMES[i] for i in impls)
                      + "".join(f" | fmlp / {NAMES[b]}" for b in baselines)
                      + " | weight floor | GEMM floor" + (" | fmlp / floor |" if with_fmlp else " |"),
                      "|" + "---|" * (2 + len(impls) + len(baselines) + 2 + with_fmlp)]
        fmlp = times.get("fmlp")
        cells = [str(t), launch] + [_us(times[i]) for i in impls]
        cells += [_ratio(fmlp, times[b]) for b in baselines]
        cells += [_us(floors["weight_read"]), _us(floors["gemm"])]
        cells += [_ratio(fmlp, floor_us(floors))] if with_fmlp else []
        lines.append("| " + " | ".join(cells) + " |")
    errors = [(c["D"], c["H"], c["T"], k, v) for c in data["cells"] for k, v in c.get("skipped", {}).items()]
    if errors:
        lines += ["", "Not measured (\"-\" above; mode/implementation/launch: why):", ""]
        lines += [f"- D={d}, H={h}, T={t}, {k}: {v}" for d, h, t, k, v in errors]
    return "\n".join(lines) + "\n"


def plot(data, path):
    """Time against T, log-log; one panel per (mode, shape), one line per
    implementation and launch (solid: graph replay, dotted: eager), the
    floors dashed."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    meta = data["meta"]
    shapes = sorted({(c["D"], c["H"]) for c in data["cells"]})
    modes = [m for m in meta["modes"] if any(m in c["us"] for c in data["cells"])]
    fig, axes = plt.subplots(len(modes), len(shapes), figsize=(6.4 * len(shapes), 4.8 * len(modes)),
                             squeeze=False)
    colors = {"fmlp": "tab:red", "fmlp_serial": "tab:purple", "fmlp_b": "tab:brown",
              "fmlp_compile": "tab:orange",
              "hf_eager": "tab:blue",
              "hf_compile": "tab:green"}
    for row, mode in enumerate(modes):
        for col, (d, h) in enumerate(shapes):
            ax = axes[row][col]
            cells = sorted((c for c in data["cells"] if (c["D"], c["H"]) == (d, h) and mode in c["us"]),
                           key=lambda c: c["T"])
            tokens = [c["T"] for c in cells]
            for impl in meta["implementations"]:
                for launch, style in (("graph", "o-"), ("eager", "s:")):
                    if launch not in meta["launches"]:
                        continue
                    points = [(c["T"], c["us"][mode].get(impl, {}).get(launch)) for c in cells]
                    points = [(t, v) for t, v in points if v is not None]
                    if points:
                        ax.plot(*zip(*points), style, color=colors.get(impl), markersize=4,
                                label=f"{NAMES[impl]} ({launch})")
            for key, color, label in (("weight_read", "0.45", "weight-read floor"),
                                      ("gemm", "black", "GEMM floor (cuBLAS, graph)")):
                ax.plot(tokens, [c["floors_us"][mode][key] for c in cells], "--", color=color,
                        linewidth=1.2, label=label)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("T (tokens)")
            ax.set_ylabel("time per call (us)")
            ax.set_title(f"{MODES[mode].split(' (')[0]}, D={d}, H={h}, {meta['dtype']}")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
    fig.suptitle(f"{meta['device']}, torch {meta['torch']}, fmlp {meta['fmlp']}: module vs module, "
                 f"medians; L2 {'flushed' if meta['flush_l2'] else 'not flushed'}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def check(data):
    """Raises ValueError naming what is missing or not a positive time."""
    meta = data.get("meta")
    if not isinstance(meta, dict) or "cells" not in data:
        raise ValueError("not a bench_sweep.py result: no 'meta' or 'cells'")
    for key in ("modes", "launches", "implementations", "dtype", "device", "torch", "fmlp",
                "date", "timing", "flush_l2", "copy_bandwidth_Bps", "copy_bytes",
                "gemm_floor_launch"):
        if key not in meta:
            raise ValueError(f"meta has no {key!r}")
    for c in data["cells"]:
        where = f"cell D={c.get('D')}, H={c.get('H')}, T={c.get('T')}"
        for mode, floors in c["floors_us"].items():
            for key in ("weight_read", "gemm"):
                if not (isinstance(floors.get(key), (int, float)) and floors[key] > 0):
                    raise ValueError(f"{where}: {mode} floor {key!r} is {floors.get(key)!r}")
        for mode, per_impl in c["us"].items():
            for impl, per_launch in per_impl.items():
                for launch, v in per_launch.items():
                    if v is not None and not (v > 0 and math.isfinite(v)):
                        raise ValueError(f"{where}: {mode}/{impl}/{launch} time is {v!r}")


def merge(data, more):
    """`data` with the cells of the results `more` that it lacks, from runs
    of the same implementations, modes and launches on the same device."""
    meta = data["meta"]
    have = {(c["D"], c["H"], c["T"]) for c in data["cells"]}
    for other in more:
        for key in ("device", "dtype", "implementations", "modes", "launches", "flush_l2"):
            if other["meta"][key] != meta[key]:
                raise ValueError(f"runs differ in {key}: {meta[key]!r} and {other['meta'][key]!r}")
        for c in other["cells"]:
            if (c["D"], c["H"], c["T"]) not in have:
                have.add((c["D"], c["H"], c["T"]))
                data["cells"].append(c)
        meta["date"] += f"; cells also from {other['meta']['date']}"
    meta["not_run"] = [c for c in meta.get("not_run", []) if tuple(c) not in have]
    return data


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dir", type=Path, help="holds sweep.json (bench_sweep.py --out)")
    p.add_argument("more", type=Path, nargs="*", help="further runs' directories to merge in")
    p.add_argument("--no-plot", action="store_true", help="the table only (no matplotlib)")
    args = p.parse_args()
    runs = [json.loads((d / "sweep.json").read_text()) for d in [args.dir, *args.more]]
    for run in runs:
        check(run)
    data = merge(runs[0], runs[1:])
    (args.dir / "sweep.md").write_text(markdown_table(data))
    print(f"wrote {args.dir / 'sweep.md'}")
    if not args.no_plot:
        plot(data, args.dir / "sweep.png")
        print(f"wrote {args.dir / 'sweep.png'}")


if __name__ == "__main__":
    main()
