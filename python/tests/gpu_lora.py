"""Fused LoRA on a GPU (docs/LoRA.md): a Llama MLP (D = 1024, H = 2816)
patched by fmlp, with PEFT's LoRA adapters on its projections, run by
fmlp's kernels (fmlp::forward_lora and its twins), against PEFT's own run
of the same model in the same dtype, both measured from a float64 run:
y, x's gradient and every lora_A's and lora_B's gradient must be within
3x PEFT's distance from float64 plus 4 units of the dtype's rounding of
the largest element (lora_criterion.py). Cases: f32 and
bf16 (get_peft_model(..., autocast_adapter_dtype=False): the adapters in
the model's dtype), two adapters active (r = 16 on gate, up, down; r = 8
rsLoRA on gate and down: R = 40 -> 48, Rd = 24 -> 32), T = 1, 37, 300 and
65536, the base frozen (PEFT's); a no-grad forward; reuse_adapters (kept
matrices, and a change through autograd seen); disable_adapter() (the
plain op, the base's y); a training step captured in a CUDA graph and
replayed on new inputs, outputs poisoned first. Controls: a scale left
out of A_cat fails the criterion; a .data change is not seen by kept
matrices; a replay's outputs fail the next inputs' reference.

  python3 python/tests/gpu_lora.py --make-cache DIR
      here (fmlp-compile on PATH): the bundles the run needs, into DIR
  FMLP_CACHE_DIR=DIR FMLP_RUNTIME_LIB=... python3 python/tests/gpu_lora.py
      on the GPU

Prints one line per check and `N passed, N failed`; exits 1 if any check
fails.
"""
import argparse
import copy
import os
import sys
import unittest.mock
import warnings

os.environ.setdefault("FMLP_STRICT", "1")  # fmlp's kernels or an error: never HF's fallback

import peft  # noqa: E402
import torch  # noqa: E402
from transformers import LlamaConfig  # noqa: E402
from transformers.models.llama.modeling_llama import LlamaMLP  # noqa: E402

import fmlp  # noqa: E402
from fmlp import lora, modules, ops, policy, spec  # noqa: E402
from lora_criterion import UNIT, worst_ratio  # noqa: E402

D, H = 1024, 2816
TARGETS = ["gate_proj", "up_proj", "down_proj"]
ADAPTERS = {"first": dict(r=16, lora_alpha=32, target_modules=TARGETS),
            "second": dict(r=8, lora_alpha=16, use_rslora=True, target_modules=["gate_proj", "down_proj"])}
DTYPES = (torch.float32, torch.bfloat16)
results = {"passed": 0, "failed": []}


def report(name, ok, detail=""):
    print(f"{'pass' if ok else 'FAIL'}  {name:64s} {detail}", flush=True)
    if ok:
        results["passed"] += 1
    else:
        results["failed"].append(name)


class Model(torch.nn.Module):
    def __init__(self, mlp, config):
        super().__init__()
        self.mlp, self.config = mlp, config

    def forward(self, x):
        return self.mlp(x)


def adapted_model(dtype, device):
    """The patched MLP with both adapters active, A and B random (B = 0
    would hide a missing term), in `dtype` on `device`."""
    config = LlamaConfig(hidden_size=D, intermediate_size=H, hidden_act="silu",
                         num_attention_heads=8, num_key_value_heads=8)
    torch.manual_seed(0)
    model = Model(LlamaMLP(config), config).to(dtype)
    assert fmlp.patch_model(model, config) == 1
    names = iter(ADAPTERS.items())
    name, keywords = next(names)
    adapted = peft.get_peft_model(model, peft.LoraConfig(**keywords), adapter_name=name,
                                  autocast_adapter_dtype=False)
    for name, keywords in names:
        adapted.add_adapter(name, peft.LoraConfig(**keywords), autocast_adapter_dtype=False)
    adapted.base_model.set_adapter(list(ADAPTERS))
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for name, p in adapted.named_parameters():
            if "lora_" in name:
                p.copy_(torch.randn(p.shape, generator=g) / p.shape[-1] ** 0.5)
    return adapted.to(device)


def specs_of(adapted, dtype):
    """The bundle specs a forward of `adapted` asks for (block_spec's,
    for sm_90a), with its adapters and with them disabled."""
    mlp = adapted.base_model.model.mlp
    found = modules.projections(mlp, mlp._linears())
    params = mlp._params(modules=[p.linear for p in found])
    chosen = policy.resolve(None, mlp.memory_policy)
    precision = mlp._precision(dtype)
    return [mlp._spec(params, ops.DTYPES[dtype], "sm_90a", chosen, precision, ranks)
            for ranks in (mlp._lora_ranks(found), (0, 0))]


def make_cache(directory):
    os.environ["FMLP_CACHE_DIR"] = directory
    for dtype in DTYPES:
        for s in specs_of(adapted_model(dtype, "cpu"), dtype):
            print(f"{s.key}: {spec.find_or_compile(s)}", flush=True)


def peft_run(model, x, dy, dtype=None):
    """y, dx and the LoRA gradients of a copy of `model` (in `dtype`) run
    by PEFT: fmlp's module runs Hugging Face's forward (unfused)."""
    model = copy.deepcopy(model)
    model.zero_grad(set_to_none=True)  # a copy keeps .grad: run() must not add to it
    if dtype is not None:
        model.to(dtype)
    unfused = lambda module, x, *args, **kwargs: module.unfused(x)  # noqa: E731
    with unittest.mock.patch.object(modules.FusedGatedMLP, "forward", unfused):
        return run(model, x.to(dtype or x.dtype), None if dy is None else dy.to(dtype or x.dtype))


def run(model, x, dy):
    if dy is None:
        with torch.no_grad():
            return {"y": model(x).double()}
    x = x.clone().requires_grad_(True)
    y = model(x)
    y.backward(dy)
    out = {"y": y.detach().double(), "dx": x.grad.double()}
    out.update({n: p.grad.double() for n, p in model.named_parameters() if p.grad is not None})
    model.zero_grad(set_to_none=True)
    return out


def judge(label, fused, theirs, reference, unit, quiet=False):
    """Every tensor of `fused` within 3x `theirs`'s distance from
    `reference` plus 4 units of its largest element (lora_criterion);
    True when all are."""
    worst, where = worst_ratio(fused, theirs, reference, unit)
    ok = set(fused) == set(reference) and worst <= 1
    if not quiet:
        report(label, ok, f"{len(reference)} tensors, worst {worst:.3f} of the allowed ({where})")
    return ok


def counted(calls):
    real = modules.FusedGatedMLP.fused_lora

    def fused_lora(self, *args, **kwargs):
        calls.append("lora")
        return real(self, *args, **kwargs)
    return unittest.mock.patch.object(modules.FusedGatedMLP, "fused_lora", fused_lora)


def check(dtype):
    device = "cuda"
    adapted = adapted_model(dtype, device)
    name = {torch.float32: "f32", torch.bfloat16: "bf16"}[dtype]
    mlp = adapted.base_model.model.mlp
    found = modules.projections(mlp, mlp._linears())
    report(f"{name}: the guard takes PEFT's layers", not isinstance(found, str), str(found)[:80])
    report(f"{name}: ranks (R, Rd)", mlp._lora_ranks(found) == (48, 32), str(mlp._lora_ranks(found)))
    g = torch.Generator(device=device).manual_seed(2)
    for tokens in (1, 37, 300, 65536):
        x = torch.randn(tokens, D, generator=g, device=device).to(dtype)
        dy = torch.randn(tokens, D, generator=g, device=device).to(dtype)
        calls = []
        with warnings.catch_warnings(), counted(calls):
            warnings.simplefilter("error", fmlp.UnfusedWarning)
            fused = run(adapted, x, dy)
        report(f"{name} T={tokens}: fmlp's LoRA op ran", calls == ["lora"], str(calls))
        reference = peft_run(adapted, x.double(), dy.double(), torch.float64)
        theirs = peft_run(adapted, x, dy)
        judge(f"{name} T={tokens}: y, dx, LoRA gradients", fused, theirs, reference, UNIT[dtype])
        if tokens == 37:
            # Control: a scale left out of A_cat must fail the criterion.
            unscaled = lambda terms, widths, stack=lora.stack: stack(  # noqa: E731
                [(a, 1.0, b) for a, _, b in terms], widths)
            with unittest.mock.patch.object(lora, "stack", unscaled):
                wrong = run(adapted, x, dy)
            report(f"{name} T={tokens}: control: a scale left out fails",
                   not judge("", wrong, theirs, reference, UNIT[dtype], quiet=True))
    x = torch.randn(1, D, generator=g, device=device).to(dtype)
    fused = run(adapted, x, None)
    judge(f"{name} no-grad T=1: y", fused, peft_run(adapted, x, None),
          peft_run(adapted, x.double(), None, torch.float64), UNIT[dtype])
    kept_adapters(adapted, name, dtype, g)
    with adapted.disable_adapter():
        calls = []
        with counted(calls):
            fused = run(adapted, x, None)
        report(f"{name} disabled: the plain op", calls == [], str(calls))
        judge(f"{name} disabled: y", fused, peft_run(adapted, x, None),
              peft_run(adapted, x.double(), None, torch.float64), UNIT[dtype])


def kept_adapters(adapted, name, dtype, g):
    """FusedGatedMLP.reuse_adapters on, no-grad forwards at T = 16: the
    first call builds the stacked adapter matrices and keeps them, the
    second uses the kept ones; both judged against PEFT. An adapter weight
    changed in place through autograd's view of it (its version moves)
    must be seen by the next call. Control: a change through .data (the
    version stays: outside what reuse_adapters promises, docs/LoRA.md)
    leaves the kept matrices stale, and that call must fail the changed
    model's reference."""
    mlp = adapted.base_model.model.mlp
    mlp.reuse_adapters = True
    weight = mlp.down_proj.lora_B["first"].weight
    original = weight.detach().clone()
    try:
        x = torch.randn(16, D, generator=g, device="cuda").to(dtype)
        for call in ("first", "kept"):
            judge(f"{name} reuse_adapters, {call} call, T=16: y", run(adapted, x, None),
                  peft_run(adapted, x, None), peft_run(adapted, x.double(), None, torch.float64),
                  UNIT[dtype])
        with torch.no_grad():
            weight.mul_(-2.0)
        judge(f"{name} reuse_adapters, after an in-place change: y", run(adapted, x, None),
              peft_run(adapted, x, None), peft_run(adapted, x.double(), None, torch.float64),
              UNIT[dtype])
        weight.data.mul_(-0.5)
        stale = run(adapted, x, None)
        report(f"{name} reuse_adapters: control: a .data change is not seen",
               not judge("", stale, peft_run(adapted, x, None),
                         peft_run(adapted, x.double(), None, torch.float64), UNIT[dtype],
                         quiet=True))
    finally:
        mlp.reuse_adapters = False
        with torch.no_grad():
            weight.copy_(original)


def graph_replay(dtype, tokens=300):
    """A training step of the adapted MLP captured in one CUDA graph
    (torch.cuda.graph, .grad unset at capture so that the graph writes the
    gradients rather than adds to them) and replayed on two fresh draws of
    x and dy copied into its inputs, every output NaN-poisoned before each
    replay: y, dx and the LoRA gradients judged as eager calls are.
    Control: the first replay's outputs judged against the second draw's
    reference fail (the graph reads its inputs anew)."""
    device = "cuda"
    name = {torch.float32: "f32", torch.bfloat16: "bf16"}[dtype]
    adapted = adapted_model(dtype, device)
    x = torch.zeros(tokens, D, device=device, dtype=dtype, requires_grad=True)
    dy = torch.zeros(tokens, D, device=device, dtype=dtype)
    g = torch.Generator(device=device).manual_seed(3)
    draw = lambda: torch.randn(tokens, D, generator=g, device=device).to(dtype)  # noqa: E731
    with torch.no_grad():
        x.copy_(draw())
        dy.copy_(draw())
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up off the capture (bundles loaded, maps encoded)
        for _ in range(2):
            adapted(x).backward(dy)
    torch.cuda.current_stream().wait_stream(side)
    adapted.zero_grad(set_to_none=True)
    x.grad = None
    graph, calls = torch.cuda.CUDAGraph(), []
    with warnings.catch_warnings(), counted(calls):
        warnings.simplefilter("error", fmlp.UnfusedWarning)
        with torch.cuda.graph(graph):
            y = adapted(x)
            y.backward(dy)
    report(f"{name} graph: fmlp's LoRA op captured", calls == ["lora"], str(calls))
    grads = {n: p.grad for n, p in adapted.named_parameters() if p.grad is not None}
    outputs, references = [], []
    for replay in range(2):
        new_x, new_dy = draw(), draw()
        with torch.no_grad():
            x.copy_(new_x)
            dy.copy_(new_dy)
            for t in [y, x.grad, *grads.values()]:
                t.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        out = {"y": y.detach().double(), "dx": x.grad.double()}
        out.update({n: t.double() for n, t in grads.items()})
        outputs.append(out)
        references.append((peft_run(adapted, new_x, new_dy),
                           peft_run(adapted, new_x.double(), new_dy.double(), torch.float64)))
        judge(f"{name} graph replay {replay + 1}, T={tokens}: y, dx, LoRA gradients", out,
              *references[-1], UNIT[dtype])
    report(f"{name} graph: control: replay 1's outputs fail replay 2's reference",
           not judge("", outputs[0], *references[1], UNIT[dtype], quiet=True))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--make-cache", metavar="DIR")
    args = parser.parse_args()
    if args.make_cache:
        make_cache(args.make_cache)
        return
    print(f"torch {torch.__version__}, peft {peft.__version__}, "
          f"{torch.cuda.get_device_name()}", flush=True)
    for dtype in DTYPES:
        try:
            check(dtype)
            graph_replay(dtype)
        except Exception as error:  # noqa: BLE001 - reported, then the next dtype
            report(f"{dtype}: ran", False, f"{type(error).__name__}: {error}"[:300])
    print(f"{results['passed']} passed, {len(results['failed'])} failed")
    sys.exit(1 if results["failed"] else 0)


if __name__ == "__main__":
    main()
