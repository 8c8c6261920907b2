#!/usr/bin/env python3
"""A backward's dX GEMM on a side stream (runtime/Lanes.h), and the no-grad
forward's programmatic launches (griddepcontrol: each kernel's blocks start
as the previous kernel's retire), give the bits of every kernel on the
caller's stream after the one before has ended, on the GPU.

fmlp's kernels are deterministic (split-K sums its slices in a fixed
order), so any launch that ran before what it reads was written, or
overwrote what another still read, shows as different bits. For each
block and T: y, dx and every weight gradient of a training step through
the module (gradients set to None, outputs poisoned by the allocator's
reuse of NaN-filled memory), with serial launches and with the side
stream, eager and replayed from a CUDA graph captured with the side
stream on new inputs, must be equal bit for bit; so must y of the no-grad
forward, programmatic against serial, eager and graph-replayed, at T on
each side of every range of T its kernels serve (read from the bundle's
manifest), and eager with its input written by a copy (host to device,
device to device) just before the call: a memcpy, not a kernel, before
the first programmatic launch. Each run is repeated 3 times
(a race shows on some runs, not all). The control: the serial run on x
changed by one unit in the last place (one element for the training step,
one token's row for the no-grad forward's y) must differ (the comparison
sees one bit).

  FMLP_CACHE_DIR=DIR FMLP_RUNTIME_LIB=... python3 python/tests/gpu_lanes.py [--bf16-only]

Prints one line per check and `N passed, N failed`; exits 1 if any fails.
"""
import os
import sys

os.environ.setdefault("FMLP_STRICT", "1")

import torch  # noqa: E402
from transformers import LlamaConfig  # noqa: E402
from transformers.models.llama.modeling_llama import LlamaMLP  # noqa: E402

import fmlp  # noqa: E402
from fmlp import ops  # noqa: E402

CASES = [((1024, 2816), torch.bfloat16, [1, 3, 37, 256, 1000, 1024, 2049, 8192]),
         ((4096, 11008), torch.bfloat16, [1, 37, 512, 1024, 4096]),
         ((1024, 2816), torch.float32, [37, 1024])]
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name} {detail}", flush=True)


def poison_pool(nbytes):
    """Fills freed allocator memory with NaN, so that an output a kernel
    fails to write holds NaN, not a stale right answer."""
    torch.full((nbytes // 4,), float("nan"), device="cuda")


def step(module, x, dy, params):
    x = x.detach().clone().requires_grad_(True)
    for p in params:
        p.grad = None
    y = module(x)
    y.backward(dy)
    return [y.detach().clone(), x.grad.clone()] + [p.grad.clone() for p in params]


def same(a, b):
    """Bit for bit (NaN payloads and signed zeros included)."""
    return all(torch.equal(u.view(torch.uint8), v.view(torch.uint8)) for u, v in zip(a, b))


def launched(fn, serial):
    """fn() over freshly poisoned memory, with serial launches (every kernel
    on the caller's stream after the one before) or with the overlap the
    manifests allow (the default, restored after)."""
    ops.serial_launches(serial)
    poison_pool(64 << 20)
    try:
        return fn()
    finally:
        ops.serial_launches(False)


def captured(body):
    """body() run twice on a side stream (warm-up), then captured in one CUDA
    graph: (the graph, the list the captured call returned)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            body()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outputs = body()
    return graph, outputs


def graphed(module, x, dy, params):
    """The step captured in one CUDA graph (side stream on) with static x, dy;
    returns replay(x, dy) -> outputs."""
    static_x = x.detach().clone().requires_grad_(True)
    static_dy = dy.clone()

    def body():
        static_x.grad = None
        for p in params:
            p.grad = None
        y = module(static_x)
        y.backward(static_dy)
        return [y.detach(), static_x.grad] + [p.grad for p in params]

    graph, outputs = captured(body)

    def replay(x_new, dy_new):
        static_x.data.copy_(x_new)
        static_dy.copy_(dy_new)
        graph.replay()
        return [t.clone() for t in outputs]
    return replay


def nograd_tokens(module, d, dtype):
    """T on each side of every range of T a kernel of the module's no-grad
    forward serves (its bundle's manifest: small_tokens, the WGMMA token
    variants, split-K), T = 1, one T past them all and one of many tiles
    (4100: 33 rows of 128, the last of 4)."""
    params = list(module.parameters())
    path = module._bundle(torch.empty(1, d, device="cuda", dtype=dtype), params)
    entry = ops._manifest(path).entry("forward_nograd")
    tokens = {1}
    for k in range(len(entry.kernels())):
        low, high = entry.kernel_tokens(k)
        tokens.update(t for t in (low - 1, low) if t >= 1)
        if high is not None:
            tokens.update((high, high + 1))
    return sorted(tokens | {2 * max(tokens) + 4, 4100})


def nograd(module, name, d, dtype):
    """The no-grad forward's programmatic launches against serial ones."""
    def forward(x):
        with torch.no_grad():
            return [module(x).clone()]

    def copied(source):
        """forward of x written by a copy just before it (a cudaMemcpyAsync:
        host to device from pinned memory, or device to device)."""
        staged = torch.empty(source.shape, device="cuda", dtype=source.dtype)
        staged.copy_(source, non_blocking=True)
        return forward(staged)
    tokens = nograd_tokens(module, d, dtype)
    print(f"{name}: no-grad T from the manifest's ranges: {tokens}", flush=True)
    for t in tokens:
        x = torch.randn(t, d, device="cuda", dtype=dtype)
        serial = launched(lambda: forward(x), True)
        runs = [launched(lambda: forward(x), False) for _ in range(3)]
        check(f"{name} T={t} no-grad programmatic == serial, eager (3 runs)",
              all(same(serial, r) for r in runs))
        host = x.cpu().pin_memory()
        for source, kind in ((host, "host to device"), (x, "device to device")):
            runs = [launched(lambda: copied(source), False) for _ in range(3)]
            check(f"{name} T={t} no-grad after a {kind} copy of x == serial (3 runs)",
                  all(same(serial, r) for r in runs))
        # One token's row one ulp up (one element is not enough in f32: y,
        # rounded, may not move; a weight gradient would).
        nudged = x.clone()
        nudged[t // 2] = torch.nextafter(nudged[t // 2], torch.full_like(nudged[t // 2], float("inf")))
        control = launched(lambda: forward(nudged), True)
        check(f"{name} T={t} no-grad control: x's row {t // 2} one ulp apart differs",
              not same(serial, control))
        static_x = torch.randn_like(x)
        graph, static_y = captured(lambda: forward(static_x))
        replays = []
        for _ in range(3):
            static_x.copy_(x)
            graph.replay()
            replays.append([y.clone() for y in static_y])
        check(f"{name} T={t} no-grad graph replay (programmatic) == serial eager",
              all(same(serial, r) for r in replays))


def main():
    cases = CASES
    if "--bf16-only" in sys.argv[1:]:  # the bundles of one cache directory
        cases = [case for case in CASES if case[1] == torch.bfloat16]
    for (d, h), dtype, tokens in cases:
        torch.manual_seed(d + h)
        config = LlamaConfig(hidden_size=d, intermediate_size=h, hidden_act="silu")
        with torch.device("cuda"):
            original = LlamaMLP(config).to(dtype)
        with torch.no_grad():
            for p in original.parameters():
                p.normal_(0.0, d ** -0.5)
        module = fmlp.FusedGatedMLP.wrap(original, config)
        params = list(module.parameters())
        name = f"({d}, {h}) {str(dtype).split('.')[-1]}"
        for t in tokens:
            x = torch.randn(t, d, device="cuda", dtype=dtype)
            dy = torch.randn(t, d, device="cuda", dtype=dtype)
            serial = launched(lambda: step(module, x, dy, params), True)
            runs = [launched(lambda: step(module, x, dy, params), False) for _ in range(3)]
            check(f"{name} T={t} side stream == serial, eager (3 runs)",
                  all(same(serial, r) for r in runs))
            nudged = x.clone()
            nudged.view(-1)[t * d // 2] = torch.nextafter(
                nudged.view(-1)[t * d // 2], torch.tensor(float("inf"), dtype=dtype, device="cuda"))
            control = launched(lambda: step(module, nudged, dy, params), True)
            check(f"{name} T={t} control: x one ulp apart differs", not same(serial, control))
        for t in tokens[-2:]:
            x = torch.randn(t, d, device="cuda", dtype=dtype)
            dy = torch.randn(t, d, device="cuda", dtype=dtype)
            replay = graphed(module, torch.randn_like(x), torch.randn_like(dy), params)
            serial = launched(lambda: step(module, x, dy, params), True)
            replays = [replay(x, dy) for _ in range(3)]
            check(f"{name} T={t} graph replay (side stream) == serial eager",
                  all(same(serial, r) for r in replays))
        nograd(module, name, d, dtype)
    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
