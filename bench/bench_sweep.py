#!/usr/bin/env python3
"""fmlp's module against Hugging Face's LlamaMLP over the same weights,
like for like (../shared/PERFORMANCE.md, "Like for like"), swept over the
token count T:

  - module against module: fmlp.FusedGatedMLP.wrap(LlamaMLP) beside the
    LlamaMLP itself, eager and torch.compile'd (dynamic=False: compiled for
    each T, as a fixed-shape serving or training loop would), each called
    the same way:
      no-grad   with torch.no_grad(): module(x)
      train     x.grad and every parameter's .grad set to None (as
                zero_grad(set_to_none=True) does), then module(x).backward(dy)
  - each call eager (from Python, back to back) and graph-replayed (the same
    call captured in one torch.cuda.CUDAGraph after a warm-up on a side
    stream; in training the capture holds forward and backward with static
    x and dy). A capture that fails is recorded with its error, not timed;
  - the SM clock and board power of each timing where nvidia-smi is
    (gpu_clock.py: a board near its power limit clocks the busier
    implementation down), in each cell's "clock";
  - beside two floors measured in the same run: the weight-read floor
    (bytes of weights / the bandwidth of a large device-to-device copy) and
    the GEMM floor (the same GEMMs as raw torch.matmul calls into
    preallocated outputs, graph-replayed).

Timing: torch.cuda.Event around a sample of back-to-back calls (sized to
about --busy-ms), median over samples; the implementations are taken in
turn round after round (the GPU's clock drifts between measurements), and
each time is the median of its per-round medians. L2 is not flushed unless
--flush-l2 (then each timed call follows a write of 2x the L2 size and is
timed alone). Cells run in order of importance (T in --first at every
shape, then the rest) until --deadline-s; sweep.json and sweep.md are
rewritten after every cell, so a run cut short keeps what it measured.

  FMLP_CACHE_DIR=... python3 bench/bench_sweep.py --out DIR
  python3 bench/sweep_report.py DIR        # sweep.png (needs matplotlib)

On a CPU (no fmlp, no graphs; for checking the script): --device cpu
--impls hf_eager,hf_compile --launches eager --shapes 64x176 --tokens 1,4
"""
import argparse
import datetime
import gc
import json
import statistics
import sys
import time
from pathlib import Path

import torch
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaMLP

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gpu_clock  # noqa: E402  (same directory)
import sweep_report  # noqa: E402  (same directory: the table, in one place)

# fmlp_serial: fmlp's module with every kernel on the caller's stream
# (fmlp.ops.serial_launches), beside fmlp's dX GEMM on a side stream.
# fmlp_b: fmlp's module on the bundles in FMLP_B_CACHE_DIR (another
# compiler's, or other flags': an A/B through the same module path, same run).
IMPLEMENTATIONS = ("fmlp", "fmlp_serial", "fmlp_b", "fmlp_compile", "hf_eager", "hf_compile")
MODES = ("nograd", "train")
LAUNCHES = ("eager", "graph")
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}


def csv(kind):
    return lambda text: [kind(v) for v in text.split(",") if v]


def shape(text):
    d, h = text.split("x")
    return int(d), int(h)


def cell_order(shapes, tokens, first):
    """(D, H, T) with the T in `first` (at every shape) before the others,
    each group by increasing T."""
    head = [t for t in tokens if t in first]
    tail = [t for t in tokens if t not in first]
    return [(d, h, t) for group in (head, tail) for t in group for d, h in shapes]


class Timer:
    """Times a callable's calls on one device (CUDA: events; CPU: the host's
    clock). samples() -> ms per call, one value per sample."""

    def __init__(self, device, busy_ms, max_calls, flush_l2):
        self.cuda = device.type == "cuda"
        self.busy_ms, self.max_calls = busy_ms, max_calls
        self.flush = None
        if flush_l2 and self.cuda:
            l2 = torch.cuda.get_device_properties(device).L2_cache_size
            self.flush = torch.empty(2 * l2, dtype=torch.uint8, device=device)

    def _one(self, fn, calls):
        if not self.cuda:
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            return (time.perf_counter() - start) * 1e3 / calls
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        if self.flush is not None:
            self.flush.zero_()
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / calls

    def calls_per_sample(self, fn):
        """Enough back-to-back calls for about busy_ms of GPU time (the host's
        work for a call overlaps the previous call's, as in a real loop);
        one call when L2 is flushed before each."""
        if self.flush is not None:
            return 1
        return max(1, min(self.max_calls, round(self.busy_ms / max(self._one(fn, 1), 1e-3))))

    def samples(self, fn, calls, count, budget_s):
        """At least 2 and at most `count` samples, fewer than `count` when
        they would take longer than budget_s."""
        out, start = [], time.monotonic()
        while len(out) < count and (len(out) < 2 or time.monotonic() - start < budget_s):
            out.append(self._one(fn, calls))
        return out


def capture(fn):
    """fn captured in a CUDA graph after warm-up calls on a side stream (the
    allocator's and cuBLAS's lazy set-up happen outside the capture);
    returns the graph's replay."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph.replay


def copy_bandwidth(device, timer, nbytes):
    """Bytes read plus written per second by dst.copy_(src) of nbytes."""
    src = torch.empty(nbytes, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    fn = lambda: dst.copy_(src)  # noqa: E731
    fn()
    ms = statistics.median(timer.samples(fn, timer.calls_per_sample(fn), 20, 2.0))
    return 2 * nbytes / (ms * 1e-3)


def gemm_floor_fn(x, dy, wgu, wd, mode):
    """The mode's GEMMs as raw torch.matmul calls into preallocated outputs:
    no-grad x Wgu^T and A Wd^T (Wgu = [Wg; Wu], [2H, D]); training also
    dY Wd, dGU Wgu, dGU^T x and dY^T A (A, dGU: random stand-ins of the
    activations' shapes)."""
    t, h = x.shape[0], wd.shape[1]
    like = dict(device=x.device, dtype=x.dtype)
    a, dgu = torch.randn(t, h, **like), torch.randn(t, 2 * h, **like)
    gu, y = torch.empty(t, 2 * h, **like), torch.empty_like(x)
    gemms = [(x, wgu.t(), gu), (a, wd.t(), y)]
    if mode == "train":
        gemms += [(dy, wd, torch.empty(t, h, **like)), (dgu, wgu, torch.empty_like(x)),
                  (dgu.t(), x, torch.empty_like(wgu)), (dy.t(), a, torch.empty_like(wd))]

    def run():
        for left, right, out in gemms:
            torch.matmul(left, right, out=out)
    return run


def make_modules(d, h, t, device, dtype, implementations):
    """The modules over one set of weights (N(0, 0.02)), by implementation,
    with the LlamaMLP itself and random x (requiring grad) and dy."""
    config = LlamaConfig(hidden_size=d, intermediate_size=h, hidden_act="silu")
    torch.manual_seed(0)
    with device:  # made on the device: no host-side init of the large shapes
        original = LlamaMLP(config).to(dtype)
    with torch.no_grad():
        for p in original.parameters():
            p.normal_(0.0, 0.02)
    x = torch.randn(t, d, device=device, dtype=dtype, requires_grad=True)
    dy = torch.randn(t, d, device=device, dtype=dtype)
    modules = {}
    for impl in implementations:
        if impl.startswith("fmlp"):
            import fmlp  # only here: a CPU check of the rest runs without it
            fused = fmlp.FusedGatedMLP.wrap(original, config)
            modules[impl] = torch.compile(fused, dynamic=False, fullgraph=True) \
                if impl == "fmlp_compile" else fused
        else:
            modules[impl] = torch.compile(original, dynamic=False) if impl == "hf_compile" else original
    return modules, original, x, dy


def module_calls(modules, original, x, dy):
    """(mode, implementation) -> the call to time: "nograd" under
    torch.no_grad(); "train" with x's and every parameter's gradient set to
    None, then module(x).backward(dy)."""
    params = list(original.parameters())

    def nograd(module):
        def call():
            with torch.no_grad():
                module(x)
        return call

    def train(module):
        def call():
            x.grad = None
            for p in params:
                p.grad = None
            module(x).backward(dy)
        return call
    calls = {(mode, impl): make(m) for mode, make in (("nograd", nograd), ("train", train))
             for impl, m in modules.items()}
    if "fmlp_serial" in modules:  # both set their launch mode before each call
        from fmlp import ops

        def launching(serial, call):
            def run():
                ops.serial_launches(serial)
                call()
            return run
        calls = {(mode, impl): launching(impl == "fmlp_serial", call) if impl.startswith("fmlp")
                 else call for (mode, impl), call in calls.items()}
    if "fmlp_b" in modules:
        calls.update({(mode, "fmlp_b"): on_bundles_b(calls[(mode, "fmlp_b")]) for mode in MODES})
    return calls


_paths_b = {}  # fmlp.modules' spec -> bundle cache, for FMLP_B_CACHE_DIR


def on_bundles_b(call):
    """`call` with fmlp's modules finding their bundles in FMLP_B_CACHE_DIR:
    fmlp_b's module is an instance of its own, whose first call (inside
    this wrapper) resolves its bundle there (modules._paths, then the
    instance's own cache). A bundle B's directory lacks is refused, not
    compiled by the fmlp-compile on PATH (A's compiler): PATH is empty
    during the call. The swap costs B a few microseconds of host time a
    call: compare eager calls at the T where the host does not bound them,
    or graph replays."""
    import os
    from unittest import mock
    from fmlp import modules as fmlp_modules
    directory = os.environ.get("FMLP_B_CACHE_DIR")
    if not directory:
        raise SystemExit("--impls fmlp_b needs FMLP_B_CACHE_DIR (the B bundles' cache directory)")

    def run():
        with mock.patch.object(fmlp_modules, "_paths", _paths_b), \
                mock.patch.dict(os.environ, {"FMLP_CACHE_DIR": directory, "PATH": ""}):
            call()
    return run


def build(d, h, t, device, dtype, implementations):
    """make_modules and module_calls, with the weights the GEMM floor
    multiplies ([Wg; Wu] and Wd)."""
    modules, original, x, dy = make_modules(d, h, t, device, dtype, implementations)
    calls = module_calls(modules, original, x, dy)
    wgu = torch.cat([original.gate_proj.weight, original.up_proj.weight]).detach()
    return calls, x.detach(), dy, wgu, original.down_proj.weight.detach()


def extra_peak(fn, device):
    """Bytes one eager call of `fn` allocates at its peak beyond what was
    allocated before it (torch's caching allocator: the buffers fmlp passes
    its kernels, HF's intermediates; workspace kept by cuBLAS not counted)."""
    torch.cuda.synchronize(device)
    before = torch.cuda.memory_allocated(device)
    torch.cuda.reset_peak_memory_stats(device)
    fn()
    torch.cuda.synchronize(device)
    return torch.cuda.max_memory_allocated(device) - before


class Unusable(RuntimeError):
    """The device no longer runs work (after a failed graph capture)."""


def run_cell(d, h, t, args, timer, bandwidth, clocks):
    torch._dynamo.reset()  # a cell's compiled graphs only: no guard list grows over the sweep
    cell_start = time.monotonic()
    dtype, device = DTYPES[args.dtype], torch.device(args.device)
    calls, x, dy, wgu, wd = build(d, h, t, device, dtype, args.impls)
    elt = torch.finfo(dtype).bits // 8
    weight_bytes = 3 * d * h * elt
    cell = {"D": d, "H": h, "T": t, "weight_bytes": weight_bytes,
            "flops": {"nograd": 6 * t * d * h, "train": 18 * t * d * h},
            "floors_us": {}, "us": {}, "rounds_us": {}, "skipped": {}, "first_call_s": {}}
    timed = {}  # (mode, impl, launch) -> (fn, calls per sample)

    def failed(keys, error):
        """Records why `keys` are not timed; stops the sweep if the device no
        longer runs work (a failed capture can leave it so)."""
        for key in keys:
            cell["skipped"][key] = f"{type(error).__name__}: {str(error)[:300]}"
            print(f"    {key} not measured: {cell['skipped'][key]}", flush=True)
        if timer.cuda:
            try:
                torch.cuda.synchronize()
                torch.ones(1, device=device).add_(1).item()
            except Exception as broken:
                raise Unusable(f"after {keys[0]}: {broken}") from broken
    for mode in args.modes:
        floor = gemm_floor_fn(x, dy, wgu, wd, mode)
        floor = capture(floor) if timer.cuda else floor
        cell["floors_us"][mode] = {
            # Training moves the weights three times: read by the forward,
            # read by the backward, their gradients written.
            "weight_read": (weight_bytes if mode == "nograd" else 3 * weight_bytes) / bandwidth * 1e6,
            "gemm": 1e3 * statistics.median(timer.samples(floor, timer.calls_per_sample(floor), 20, 1.0))}
        for impl in args.impls:
            fn = calls[(mode, impl)]
            try:
                first = time.monotonic()
                fn()  # compiles torch.compile's graphs; loads fmlp's bundle
                if timer.cuda:
                    torch.cuda.synchronize()
                cell["first_call_s"][f"{mode}/{impl}"] = round(time.monotonic() - first, 2)
                if timer.cuda:
                    cell.setdefault("extra_peak_bytes", {})[f"{mode}/{impl}"] = extra_peak(fn, device)
            except Exception as error:  # recorded and shown; the rest goes on
                failed([f"{mode}/{impl}/{launch}" for launch in args.launches], error)
                continue
            for launch in args.launches:
                if f"{mode}/{impl}/{launch}" in args.skip:
                    cell["skipped"][f"{mode}/{impl}/{launch}"] = "left out by --skip"
                    continue
                try:
                    run = fn
                    if launch == "graph":
                        if not timer.cuda:
                            raise RuntimeError("no CUDA graphs on a CPU")
                        run = capture(fn)
                    run()
                    timed[(mode, impl, launch)] = (run, timer.calls_per_sample(run))
                except Exception as error:
                    failed([f"{mode}/{impl}/{launch}"], error)
    # Rounds over everything in turn; each time the median of its per-round
    # medians.
    rounds = {k: [] for k in timed}
    intervals = {k: [] for k in timed}  # when each was timed, for its clock
    for _ in range(args.rounds):
        for key, (run, per_sample) in timed.items():
            begun = time.time()
            rounds[key].append(1e3 * statistics.median(
                timer.samples(run, per_sample, args.samples, args.budget_s)))
            intervals[key].append((begun, time.time()))
    for (mode, impl, launch), values in rounds.items():
        cell["us"].setdefault(mode, {}).setdefault(impl, {})[launch] = statistics.median(values)
        cell["rounds_us"].setdefault(mode, {}).setdefault(impl, {})[launch] = [round(v, 2) for v in values]
        # The SM clock it ran at (gpu_clock.py): a board near its power limit clocks
        # a busier implementation down (bench/NOTES.md item 102).
        seen = clocks.summary(intervals[(mode, impl, launch)])
        if seen:
            cell.setdefault("clock", {}).setdefault(mode, {}).setdefault(impl, {})[launch] = {
                "mhz": round(seen["mhz"]), "watts": round(seen["watts"]),
                "power_flag": round(seen["power_flag"], 2), "samples": seen["samples"]}
    for mode in args.modes:  # a mode whose every call failed still has its row
        cell["us"].setdefault(mode, {})
    cell["wall_s"] = round(time.monotonic() - cell_start, 1)
    return cell


def print_cell(cell, impls):
    print(f"D={cell['D']} H={cell['H']} T={cell['T']} ({cell['wall_s']} s; first calls "
          + ", ".join(f"{k} {v} s" for k, v in cell["first_call_s"].items()) + ")")
    for mode, per_impl in cell["us"].items():
        floors = cell["floors_us"][mode]
        for launch in LAUNCHES:
            times = {i: per_impl.get(i, {}).get(launch) for i in impls}
            if all(v is None for v in times.values()):
                continue
            text = "  ".join(f"{sweep_report.NAMES[i]} {v:.1f}" for i, v in times.items() if v is not None)
            ratio = ""
            if times.get("fmlp") and times.get("hf_compile"):
                ratio = f"  fmlp/compile {times['fmlp'] / times['hf_compile']:.2f}"
            print(f"  {mode:6s} {launch:5s} us: {text}{ratio}  floors: weight {floors['weight_read']:.1f}"
                  f" GEMM {floors['gemm']:.1f}", flush=True)
            seen = {i: cell.get("clock", {}).get(mode, {}).get(i, {}).get(launch) for i in impls}
            if any(seen.values()):
                print(f"  {mode:6s} {launch:5s} SM MHz (power flag): " + "  ".join(
                    f"{sweep_report.NAMES[i]} {v['mhz']} ({100 * v['power_flag']:.0f} %)"
                    for i, v in seen.items() if v), flush=True)
        peaks = {key.split("/")[1]: v for key, v in cell.get("extra_peak_bytes", {}).items()
                 if key.startswith(mode + "/")}
        if peaks:
            print(f"  {mode:6s} extra peak MiB (one eager call): "
                  + "  ".join(f"{sweep_report.NAMES[i]} {v / 2**20:.1f}" for i, v in peaks.items()),
                  flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, required=True, help="directory for sweep.json and sweep.md")
    p.add_argument("--shapes", type=csv(shape), default=[(1024, 2816), (4096, 11008)],
                   help="DxH,... (default 1024x2816,4096x11008)")
    p.add_argument("--tokens", type=csv(int), default=[1, 4, 16, 64, 256, 1024, 8192, 65536])
    p.add_argument("--first", type=csv(int), default=[1, 16, 256, 8192],
                   help="the T run first, at every shape")
    p.add_argument("--impls", type=csv(str), default=["fmlp", "hf_eager", "hf_compile"],
                   help=f"of {','.join(IMPLEMENTATIONS)}")
    p.add_argument("--modes", type=csv(str), default=list(MODES))
    p.add_argument("--launches", type=csv(str), default=list(LAUNCHES))
    p.add_argument("--dtype", default="bf16", choices=list(DTYPES))
    p.add_argument("--matmul-precision", default=None, choices=["highest", "high", "medium"],
                   help="torch.set_float32_matmul_precision for the run: Hugging Face's fp32 "
                        "GEMMs and fmlp's module (its fp32 precision follows the setting: "
                        "docs/precision.md) both take it; default: PyTorch's own")
    p.add_argument("--device", default="cuda")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--samples", type=int, default=5, help="samples per round and measurement")
    p.add_argument("--budget-s", type=float, default=0.3,
                   help="time per round and measurement beyond which no third sample is taken")
    p.add_argument("--busy-ms", type=float, default=1.0, help="GPU time of one sample")
    p.add_argument("--max-calls", type=int, default=200, help="most calls in one sample")
    p.add_argument("--flush-l2", action="store_true")
    p.add_argument("--skip", type=csv(str), default=[],
                   help="mode/implementation/launch,... not to run (e.g. train/hf_compile/graph)")
    p.add_argument("--deadline-s", type=float, default=None,
                   help="start no cell after this many seconds from the start")
    args = p.parse_args()
    for name, given, allowed in (("--impls", args.impls, IMPLEMENTATIONS), ("--modes", args.modes, MODES),
                                 ("--launches", args.launches, LAUNCHES)):
        bad = [v for v in given if v not in allowed]
        if bad or not given:
            p.error(f"{name}: {bad or 'none given'} not among {', '.join(allowed)}")
    start = time.monotonic()
    if args.matmul_precision:
        torch.set_float32_matmul_precision(args.matmul_precision)
    device = torch.device(args.device)
    cuda = device.type == "cuda"
    timer = Timer(device, args.busy_ms, args.max_calls, args.flush_l2)
    copy_bytes = 2**30 if cuda else 2**26
    bandwidth = copy_bandwidth(device, timer, copy_bytes)
    if args.device == "cuda":
        import fmlp
        fmlp_version = fmlp.__version__
    else:
        fmlp_version = "-"
    meta = {
        "device": torch.cuda.get_device_name(device) if cuda else "CPU",
        "torch": torch.__version__, "fmlp": fmlp_version, "dtype": args.dtype,
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "implementations": args.impls, "modes": args.modes, "launches": args.launches,
        "flush_l2": bool(timer.flush is not None), "copy_bandwidth_Bps": bandwidth,
        "copy_bytes": copy_bytes, "gemm_floor_launch": "graph-replayed" if cuda else "eager",
        "rounds": args.rounds, "samples": args.samples,
        "timing": (f"{'CUDA events' if cuda else 'host clock'} around samples of back-to-back calls "
                   f"(about {args.busy_ms} ms each, at most {args.max_calls} calls"
                   + ("; one call after an L2 flush" if timer.flush is not None else "")
                   + f"), median over up to {args.samples} samples per round, median of "
                   f"{args.rounds} rounds that take the implementations in turn; warm-up first."),
        "command": " ".join(sys.argv), "not_run": []}
    print(f"{meta['device']}, torch {meta['torch']}, fmlp {fmlp_version}; copy bandwidth "
          f"{bandwidth / 1e12:.3f} TB/s", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    data = {"meta": meta, "cells": []}

    def write():
        (args.out / "sweep.json").write_text(json.dumps(data, indent=1))
        (args.out / "sweep.md").write_text(sweep_report.markdown_table(data))
    order = cell_order(args.shapes, args.tokens, args.first)
    # Each timing's SM clock (gpu_clock.py); nothing where nvidia-smi is not.
    with gpu_clock.ClockSampler(gpu_clock.nvidia_smi_id(torch.cuda.current_device())
                                if cuda else "0") as clocks:
        for i, (d, h, t) in enumerate(order):
            if args.deadline_s is not None and time.monotonic() - start > args.deadline_s:
                meta["not_run"] = [list(c) for c in order[i:]]
                print(f"deadline ({args.deadline_s} s) reached; not run: {meta['not_run']}", flush=True)
                break
            print(f"[{time.monotonic() - start:.0f} s] cell {i + 1}/{len(order)}: D={d} H={h} T={t}", flush=True)
            try:
                cell = run_cell(d, h, t, args, timer, bandwidth, clocks)
            except Unusable as error:
                meta["not_run"] = [list(c) for c in order[i:]]
                meta["aborted"] = str(error)
                print(f"stopped: the device is unusable {error}", flush=True)
                break
            data["cells"].append(cell)
            print_cell(cell, args.impls)
            write()
            if cuda:
                gc.collect()
                torch.cuda.empty_cache()  # the cell's graphs' pools
    if clocks.failure:
        meta["clock"] = clocks.failure
        print(clocks.failure, flush=True)
    write()
    print(f"done in {time.monotonic() - start:.0f} s: {args.out / 'sweep.json'}, {args.out / 'sweep.md'}")


if __name__ == "__main__":
    main()
