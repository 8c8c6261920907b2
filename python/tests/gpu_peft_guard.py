"""PEFT's LoRA on fmlp's patched modules, on a GPU: the guard
(python/fmlp/guard.py) makes every MLP whose projections PEFT wraps run
Hugging Face's own forward (calling the projections, so the adapters
apply), with one warning per MLP that says why; never a silent bypass.

  python3 python/tests/gpu_peft_guard.py
      on the GPU; bundles from FMLP_CACHE_DIR (make-gpu-cache.sh makes
      the tiny Llama's: D = 256, H = 704, bf16 and f32)
  python3 python/tests/gpu_peft_guard.py --fake-kernels --device cpu
      a dry run of this script where there is no GPU: fmlp's launches
      are computed by torch on the CPU (everything else is fmlp's code;
      bundles are compiled on first use, so fmlp-compile must be on PATH)

A tiny Llama (hidden 256, intermediate 704, 2 layers, random init from a
config, eager attention), bf16 and fp32; LoRA r = 16, alpha 32, dropout 0,
A and B random (init_lora_weights=False: B = 0 would make a bypass
invisible in the outputs), on the MLP only and on every projection:

  adapt-then-patch  get_peft_model, then fmlp.patch_model: each MLP is left
                    alone with one warning naming gate_proj and PEFT;
  patch-then-adapt  fmlp.patch_model, then get_peft_model: the first step
                    warns once per MLP, the second step not again;
  both orders       the loss, the logits and every LoRA gradient equal the
                    unpatched PEFT model's bit for bit (the fallback runs
                    the same modules in the same order; PyTorch's
                    deterministic kernels, and the unpatched model run
                    twice must repeat itself: otherwise the bound is twice
                    its run-to-run difference); no fmlp op runs; both
                    models' distance from a float64 run is reported;
                    disable_adapter() and merge_adapter() equal the
                    unpatched model's; merge_and_unload() gives plain MLPs
                    that run fmlp's kernels again (counted), one of them
                    judged against float64 by fmlp.judge (error bound).
Also: Phi3's gate_up_proj, Falcon-H1's multipliers and Gemma's GELU
patched, then adapted: the fallback equals HF's module with the same
adapters; LoRA on attention only (the MLPs run fmlp's kernels; loss, logits
and LoRA gradients within 3x HF's distance from float64 + 4 u); a plain
patched model runs fmlp's ops (counted by a TorchDispatchMode); a forward
hook on up_proj takes the fallback with its warning and runs; a patched
MLP compiled with fullgraph=True, then adapted: recompiled, unfused, right.
Control: a guard that lets the adapters through is caught by these checks.

Prints one line per check, a table, and `N passed, N failed`; exits 1 if
any check fails.
"""
import argparse
import collections
import copy
import math
import os
import sys
import traceback
import warnings

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # before cuBLAS's first use
os.environ.setdefault("FMLP_STRICT", "1")  # fmlp's kernels or an error: never HF's fallback

results = {"passed": 0, "failed": [], "control": None}
TABLE = []


def report(name, ok, detail=""):
    if results["control"] is not None:  # a control's checks: counted there, not here
        results["control"].append(ok)
        print(f"  control's check {'holds' if ok else 'fails'}: {name:52s} {detail}", flush=True)
        return
    print(f"{'pass' if ok else 'FAIL'}  {name:64s} {detail}", flush=True)
    if ok:
        results["passed"] += 1
    else:
        results["failed"].append(name)


def finish():
    print_table()
    print(f"{results['passed']} passed, {len(results['failed'])} failed")
    for name in results["failed"]:
        print(f"  failed: {name}")
    sys.exit(1 if results["failed"] else 0)


try:
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    import peft
    import transformers
    from transformers import LlamaConfig, LlamaForCausalLM
    import fmlp
    from fmlp import modules as fmlp_modules
except Exception as error:  # the run must end with a verdict line
    report("imports (torch, transformers, peft, fmlp)", False, f"{type(error).__name__}: {error}")
    finish()

D, H, LAYERS, VOCAB = 256, 704, 2, 1000
MLP_TARGETS = ["gate_proj", "up_proj", "down_proj"]
ATTENTION_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj"]
TARGETS = {"mlp": MLP_TARGETS, "all": MLP_TARGETS + ATTENTION_TARGETS}
UNIT_ROUNDOFF = {torch.bfloat16: 2.0 ** -8, torch.float32: 2.0 ** -24}
NAMESPACE = "fmlp"  # the ops counted: torch.ops.fmlp.*
DEVICE = "cuda"
OPS_PER_STEP = 2  # fmlp's ops per MLP in a training step: forward, backward


class CountOps(TorchDispatchMode):
    """Counts the calls of fmlp's ops (fmlp::forward,
    forward_nograd, backward) under it, forward and backward."""

    def __init__(self):
        super().__init__()
        self.calls = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if getattr(func, "namespace", None) == NAMESPACE:
            self.calls[func.__name__.split(".")[0]] += 1
        return func(*args, **(kwargs or {}))

    def total(self):
        return sum(self.calls.values())


def install_fake_kernels():
    """Where there is no GPU: fmlp's launches (fmlp.ops.emulate) computed
    by torch on the CPU instead of the bundle's kernels, and the CUDA-only
    checks of block_spec skipped. Everything else is fmlp's own code: the
    bundles (compiled here by fmlp-compile on first use) and their
    manifests, the ops' fake implementations, autograd through
    fmlp::backward, the saved buffer's A | G | U rows and the in-place dG,
    dU. SiLU blocks without biases or multipliers (the tiny Llama's)."""
    from fmlp import ops, spec as specs
    original_block_spec = fmlp_modules.FusedGatedMLP.block_spec

    def block_spec(self, x, params=None):
        params = self._params() if params is None else params
        if x.device.type == "cuda":
            return original_block_spec(self, x, params)
        return specs.BlockSpec(self.hidden_size, params[0].shape[0], ops.DTYPES[x.dtype],
                               self.activation, bias=len(params) > 3)

    def launch(path, kind, args):
        x, gate, up, down = (args[n].double() for n in ("x", "gate", "up", "down"))
        h = gate.shape[0]
        dtype = args["x"].dtype
        if kind in ("forward", "forward_nograd"):
            g, u = x @ gate.t(), x @ up.t()
            a = (torch.nn.functional.silu(g) * u).to(dtype)
            args["y"].copy_(a.double() @ down.t())
            if kind == "forward":
                args["saved"][:, :h].copy_(a)
                args["saved"][:, h:2 * h].copy_(g)
                args["saved"][:, 2 * h:3 * h].copy_(u)
            return
        saved, dy = args["saved"], args["dy"].double()
        a, g, u = (saved[:, i * h:(i + 1) * h].double() for i in range(3))
        da = dy @ down
        sigmoid = torch.sigmoid(g)
        dg = (da * u * sigmoid * (1 + g * (1 - sigmoid))).to(dtype).double()
        du = (da * torch.nn.functional.silu(g)).to(dtype).double()
        # Only the outputs passed: the gradients asked for (ops.emulate).
        results = {"dx": lambda: dg @ gate + du @ up, "d_gate": lambda: dg.t() @ x,
                   "d_up": lambda: du.t() @ x, "d_down": lambda: dy.t() @ a}
        for name, result in results.items():
            if name in args:
                args[name].copy_(result())
        saved[:, h:2 * h].copy_(dg)
        saved[:, 2 * h:3 * h].copy_(du)

    fmlp_modules.FusedGatedMLP.block_spec = block_spec
    ops.emulate = launch


def small_llama(dtype):
    config = LlamaConfig(hidden_size=D, intermediate_size=H, num_hidden_layers=LAYERS,
                         num_attention_heads=4, num_key_value_heads=4, vocab_size=VOCAB,
                         max_position_embeddings=256, hidden_act="silu")
    config._attn_implementation = "eager"  # deterministic, and the same in float64
    torch.manual_seed(0)
    return LlamaForCausalLM(config).to(DEVICE, dtype)


def lora(model, targets):
    config = peft.LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0, target_modules=list(targets),
                             init_lora_weights=False)
    torch.manual_seed(1)
    return peft.get_peft_model(model, config)


def mlps(model):
    return [m for name, m in model.named_modules() if name.endswith(".mlp")]


def fmlp_warnings(caught):
    return [str(w.message) for w in caught if str(w.message).startswith("fmlp:")]


def step(model, tokens, grad=True):
    """loss and logits of one forward (and every trainable parameter's
    gradient after its backward), plus the fmlp op calls it made."""
    model.zero_grad(set_to_none=True)
    with CountOps() as counter:
        if grad:
            out = model(input_ids=tokens, labels=tokens, use_cache=False)
            out.loss.backward()
        else:
            with torch.no_grad():
                out = model(input_ids=tokens, labels=tokens, use_cache=False)
    tensors = {"loss": out.loss.detach().clone(), "logits": out.logits.detach().clone()}
    if grad:
        for name, p in model.named_parameters():
            if p.requires_grad:
                tensors[name] = p.grad.detach().clone() if p.grad is not None else None
    return tensors, counter


def distance(a, b):
    """max |a - b| (inf when a gradient is missing)."""
    if a is None or b is None or a.shape != b.shape:
        return math.inf
    return (a.double() - b.double()).abs().max().item()


def equal_to_reference(label, ours, ref, again):
    """ours against ref tensor by tensor: equal bit for bit when ref's
    second run (again) repeats ref bit for bit, else within twice the
    run-to-run difference."""
    noise = max(distance(ref[k], again[k]) for k in ref)
    worst, worst_name = 0.0, ""
    if set(ours) != set(ref):
        report(f"{label}: the same trainable parameters", False,
               f"missing {sorted(set(ref) - set(ours))[:3]}, extra {sorted(set(ours) - set(ref))[:3]}")
        return math.inf, noise
    for k in ref:
        d = distance(ours[k], ref[k])
        if d > worst or (d == worst and math.isinf(d)):
            worst, worst_name = d, k
    lora_grads = [k for k in ref if "lora_" in k]
    missing = [k for k in lora_grads if ours[k] is None or ref[k] is None]
    report(f"{label}: every LoRA parameter has a gradient", not missing and len(lora_grads) > 0,
           f"{len(lora_grads)} LoRA tensors, {len(missing)} without a gradient")
    if noise == 0.0:
        ok = worst == 0.0
        detail = f"bit for bit over {len(ref)} tensors" if ok else f"worst |diff| {worst:.3g} at {worst_name}"
    else:
        ok = worst <= 2 * noise
        detail = f"worst |diff| {worst:.3g} at {worst_name} <= 2 x run-to-run {noise:.3g}"
    report(f"{label}: loss, logits and LoRA gradients equal the unpatched PEFT model's", ok, detail)
    return worst, noise


def from_float64(run, exact):
    """The worst over tensors of max |run - exact| / max |exact|."""
    worst = 0.0
    for k, e in exact.items():
        if e is None:
            continue
        scale = e.abs().max().item() or 1.0
        worst = max(worst, distance(run.get(k), e) / scale)
    return worst


def peft_case(dtype, order, targets, tokens):
    label = f"{str(dtype)[6:]} {order} lora on {targets}"
    base = small_llama(dtype)
    ref = lora(copy.deepcopy(base), TARGETS[targets])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if order == "adapt-then-patch":
            model = lora(copy.deepcopy(base), TARGETS[targets])
            replaced = fmlp.patch_model(model)
            at_patch = fmlp_warnings(caught)
            report(f"{label}: patch_model leaves every adapted MLP alone", replaced == 0,
                   f"{replaced} replaced")
            report(f"{label}: one warning per MLP at patch_model", len(at_patch) == LAYERS and all(
                "gate_proj is" in m and "PEFT tuner layer" in m and "left alone" in m
                for m in at_patch), at_patch[0][:150] if at_patch else "no warning")
        else:
            model = copy.deepcopy(base)
            replaced = fmlp.patch_model(model)
            report(f"{label}: patch_model replaces every MLP, silently",
                   replaced == LAYERS and not fmlp_warnings(caught), f"{replaced} replaced")
            model = lora(model, TARGETS[targets])
            kinds = {type(m).__name__ for m in mlps(model)}
            wrapper = type(mlps(model)[0].gate_proj)
            report(f"{label}: PEFT wraps the fused modules' projections", kinds == {"FusedGatedMLP"}
                   and wrapper is not torch.nn.Linear, f"{kinds}, gate_proj {wrapper.__module__}")
        incompatible = model.load_state_dict(ref.state_dict(), strict=True)
        del incompatible
        caught.clear()
        ours, counter = step(model, tokens)
        first = fmlp_warnings(caught)
        caught.clear()
        ours_again, _ = step(model, tokens)
        second = fmlp_warnings(caught)
    if order == "patch-then-adapt":
        report(f"{label}: one warning per MLP at the first step, naming gate_proj and PEFT",
               len(first) == LAYERS and all("runs unfused" in m and "gate_proj is" in m and
                                            "PEFT tuner layer" in m for m in first),
               first[0][:170] if first else "no warning")
        report(f"{label}: no warning at the second step", not second, f"{len(second)} warnings")
    else:
        report(f"{label}: no warning while running", not first and not second,
               f"{len(first) + len(second)} warnings")
    report(f"{label}: no fmlp op runs", counter.total() == 0, f"{dict(counter.calls)}")
    theirs, _ = step(ref, tokens)
    theirs_again, _ = step(ref, tokens)
    worst, noise = equal_to_reference(label, ours, theirs, theirs_again)
    report(f"{label}: the patched model repeats itself", all(
        distance(ours[k], ours_again[k]) <= noise for k in ours), "")
    # Control: the adapters change the result (B != 0), so a bypass shows.
    plain, _ = step(base, tokens, grad=False)
    moved = distance(plain["logits"], theirs["logits"])
    report(f"{label}: control: the adapters change the logits", moved > 0, f"max |diff| {moved:.3g}")
    exact, _ = step(copy.deepcopy(ref).double(), tokens)
    f64 = (from_float64(ours, exact), from_float64(theirs, exact))
    report(f"{label}: distance from float64 no more than the unpatched model's",
           f64[0] <= f64[1] or worst <= 2 * noise, f"fmlp-patched {f64[0]:.3g}, PEFT {f64[1]:.3g}")
    # disable_adapter(): base projections only, in both.
    with model.disable_adapter(), ref.disable_adapter():
        off, off_counter = step(model, tokens, grad=False)
        off_ref, _ = step(ref, tokens, grad=False)
    report(f"{label}: disable_adapter() equals the unpatched model's",
           distance(off["logits"], off_ref["logits"]) <= 2 * noise and
           distance(off["logits"], plain["logits"]) <= 2 * noise,
           f"|diff| {distance(off['logits'], off_ref['logits']):.3g}")
    # merge_adapter(): W + s B A in place, in both.
    model.base_model.merge_adapter()
    ref.base_model.merge_adapter()
    merged, _ = step(model, tokens, grad=False)
    merged_ref, _ = step(ref, tokens, grad=False)
    report(f"{label}: merge_adapter() equals the unpatched model's",
           distance(merged["logits"], merged_ref["logits"]) <= 2 * noise,
           f"|diff| {distance(merged['logits'], merged_ref['logits']):.3g}")
    model.base_model.unmerge_adapter()
    ref.base_model.unmerge_adapter()
    # merge_and_unload(): plain MLPs again, run by fmlp's kernels.
    unloaded = model.merge_and_unload()
    unloaded_ref = ref.merge_and_unload()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = fmlp.patch_model(unloaded)  # adapt-then-patch: now they can be
        fused_out, fused_counter = step(unloaded, tokens, grad=False)
    kinds = {type(m).__name__ for m in mlps(unloaded)}
    report(f"{label}: merge_and_unload() gives fused MLPs that run fmlp's kernels",
           kinds == {"FusedGatedMLP"} and fused_counter.total() == LAYERS and
           not fmlp_warnings(caught), f"{kinds}, {again} patched now, ops {dict(fused_counter.calls)}")
    hf_out, _ = step(unloaded_ref, tokens, grad=False)
    exact_out, _ = step(copy.deepcopy(unloaded_ref).double(), tokens, grad=False)
    within_hf(f"{label}: merged, fused: logits", fused_out, hf_out, exact_out, dtype, ["logits"])
    judged_mlp(f"{label}: merged MLP", mlps(unloaded)[0], dtype)
    TABLE.append((label, replaced, len(first) if order == "patch-then-adapt" else len(at_patch),
                  counter.total(), worst, noise, f64[0], f64[1]))


def within_hf(label, ours, hf, exact, dtype, names=None):
    """ours within 3x HF's distance from float64 + 4 u (per tensor,
    relative to its largest exact element)."""
    u = UNIT_ROUNDOFF[dtype]
    worst_ratio, detail = 0.0, ""
    for k in names or list(exact):
        if exact[k] is None:
            continue
        scale = exact[k].abs().max().item() or 1.0
        mine, theirs = distance(ours.get(k), exact[k]) / scale, distance(hf[k], exact[k]) / scale
        allowed = 3 * theirs + 4 * u
        if mine / allowed >= worst_ratio:
            worst_ratio = mine / allowed
            detail = f"{k}: fmlp {mine:.3g}, HF {theirs:.3g} from float64 (allowed {allowed:.3g})"
    report(f"{label} within 3x HF's distance from float64 + 4u", worst_ratio <= 1.0, detail)


def judged_mlp(label, mlp, dtype):
    """The fused MLP's y and every gradient against float64 by the error
    bound (fmlp.judge), as gpu_modules.py does."""
    try:
        from fmlp import judge
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from gpu_modules import judged, math_layout, run
        block = copy.deepcopy(mlp)
        for p in block.parameters():
            p.requires_grad_(True)
        torch.manual_seed(2)
        x = torch.randn(2, 37, D, device=DEVICE, dtype=dtype)
        dy = torch.randn(2, 37, D, device=DEVICE, dtype=dtype)
        inputs = {"x": x.reshape(-1, D), "dy": dy.reshape(-1, D)}
        inputs.update(math_layout(dict(block.named_parameters())))
        if DEVICE == "cuda":
            judge.poison_free_memory()
        ours = run(block, x, dy)
        ref = judge.reference(block.activation, dtype, inputs)
        ratios = judged(ref, *ours)
        worst = max(r for r, _ in ratios.values())
        nonfinite = sum(n for _, n in ratios.values())
        report(f"{label}: y and gradients within the error bound (fmlp.judge)",
               worst <= 1.0 and nonfinite == 0,
               " ".join(f"{k} {r:.2g}" for k, (r, _) in ratios.items()))
        moved = ours[0].clone()
        moved.view(-1)[7] += 0.5
        control = judged(ref, moved, ours[1], ours[2])["y"][0]
        report(f"{label}: control (y moved by 0.5) fails the judge", control > 1.0,
               f"worst error/bound {control:.1f}")
    except Exception as error:
        report(f"{label}: judged by fmlp.judge", False, f"{type(error).__name__}: {str(error)[:300]}")


def attention_only(dtype, tokens):
    """LoRA on attention only: the MLPs keep fmlp's kernels."""
    label = f"{str(dtype)[6:]} lora on attention only"
    base = small_llama(dtype)
    ref = lora(copy.deepcopy(base), ATTENTION_TARGETS)
    model = lora(copy.deepcopy(base), ATTENTION_TARGETS)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        replaced = fmlp.patch_model(model)
        model.load_state_dict(ref.state_dict(), strict=True)
        ours, counter = step(model, tokens)
    report(f"{label}: MLPs patched and fused, no warning",
           replaced == LAYERS and counter.total() == OPS_PER_STEP * LAYERS
           and not fmlp_warnings(caught), f"{replaced} replaced, ops {dict(counter.calls)}")
    theirs, _ = step(ref, tokens)
    exact, _ = step(copy.deepcopy(ref).double(), tokens)
    within_hf(f"{label}: loss, logits, LoRA gradients", ours, theirs, exact, dtype)


def plain_and_hooks(dtype, tokens):
    """No PEFT: fmlp's ops run; a forward hook takes the fallback."""
    label = f"{str(dtype)[6:]} plain patched model"
    model = small_llama(dtype)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        replaced = fmlp.patch_model(model)
        _, counter = step(model, tokens)
        report(f"{label}: every MLP runs fmlp's forward and backward ops",
               replaced == LAYERS and counter.total() == OPS_PER_STEP * LAYERS
               and not fmlp_warnings(caught),
               f"ops {dict(counter.calls)}")
        calls = []
        mlp = mlps(model)[0]
        handle = mlp.up_proj.register_forward_hook(lambda module, args, out: calls.append(1))
        _, counter = step(model, tokens)
        _, counter_again = step(model, tokens)
        messages = fmlp_warnings(caught)
        report(f"{label}: a forward hook on up_proj: unfused, the hook runs, one warning",
               len(calls) == 2 and counter.total() == OPS_PER_STEP * (LAYERS - 1) and len(messages) == 1
               and "up_proj has forward hooks" in messages[0],
               messages[0][:150] if messages else "no warning")
        handle.remove()
        _, counter = step(model, tokens)
        report(f"{label}: hook removed: fused again", counter.total() == OPS_PER_STEP * LAYERS,
               f"ops {dict(counter.calls)}")


def compiled_then_adapted(dtype, backend):
    """A patched MLP under torch.compile(fullgraph=True) runs fmlp's op
    (no graph break); wrapped by PEFT afterwards, dynamo's guards on the
    projections fail, it retraces the fallback, and the result is the
    unfused one."""
    label = f"{str(dtype)[6:]} torch.compile(fullgraph=True, {backend})"
    try:
        model = small_llama(dtype)
        fmlp.patch_model(model)
        mlp = mlps(model)[0]
        torch._dynamo.reset()
        compiled = torch.compile(mlp, fullgraph=True, backend=backend)
        x = torch.randn(2, 16, D, device=DEVICE, dtype=dtype)
        with CountOps() as counter:
            y = compiled(x)
        eager = mlp(x)
        report(f"{label}: fused path, one graph", counter.total() == 1 and
               distance(y, eager) <= 4 * UNIT_ROUNDOFF[dtype] * eager.abs().max().item(),
               f"ops {dict(counter.calls)}, |compiled - eager| {distance(y, eager):.3g}")
        torch.manual_seed(3)
        peft.inject_adapter_in_model(peft.LoraConfig(r=16, lora_alpha=32, target_modules=["gate_proj"],
                                                     init_lora_weights=False), mlp)
        mlp.to(DEVICE, dtype)
        report(f"{label}: PEFT injected an adapter into the compiled module",
               type(mlp.gate_proj) is not torch.nn.Linear, str(type(mlp.gate_proj)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with CountOps() as counter:
                y = compiled(x)
            messages = fmlp_warnings(caught)
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            unfused = mlp.unfused(x)
            exact = copy.deepcopy(mlp).double().unfused(x.double())
        # Compiled code may round the intermediates differently: within 3x
        # eager's distance from float64 + 4 u (as within_hf).
        mine, eager_distance = distance(y, exact), distance(unfused, exact)
        allowed = 3 * eager_distance + 4 * UNIT_ROUNDOFF[dtype] * exact.abs().max().item()
        report(f"{label}: adapted after compiling: unfused, right, one warning",
               counter.total() == 0 and mine <= allowed and len(messages) == 1,
               f"ops {dict(counter.calls)}, from float64: compiled {mine:.3g}, eager "
               f"{eager_distance:.3g} (allowed {allowed:.3g}), {len(messages)} warning(s)")
    except Exception as error:
        report(f"{label}", False, f"{type(error).__name__}: {str(error)[:400]}")


OTHER_CLASSES = [  # (model type, class, LoRA targets, config extras)
    ("phi3", "Phi3MLP", ["gate_up_proj", "down_proj"], {}),
    ("falcon_h1", "FalconH1MLP", MLP_TARGETS, dict(mlp_multipliers=[0.5, 0.25])),
    ("gemma", "GemmaMLP", MLP_TARGETS, dict(hidden_act="gelu_pytorch_tanh",
                                            hidden_activation="gelu_pytorch_tanh", head_dim=64)),
]


def other_classes(dtype):
    """Phi3's gate_up_proj, Falcon-H1's multipliers, Gemma's GELU, patched
    then given LoRA adapters (inject_adapter_in_model): the fallback's y,
    dx and LoRA gradients equal HF's module with the same adapters bit for
    bit (or within twice HF's run-to-run difference), one warning."""
    import importlib
    from transformers import AutoConfig
    for model_type, class_name, targets, extra in OTHER_CLASSES:
        label = f"{str(dtype)[6:]} {class_name} patched then adapted"
        try:
            config = AutoConfig.for_model(model_type, hidden_size=D, intermediate_size=H,
                                          num_attention_heads=4, num_key_value_heads=4, **extra)
            module = importlib.import_module(f"transformers.models.{model_type}.modeling_{model_type}")
            torch.manual_seed(0)
            original = torch.nn.Module()
            original.mlp = getattr(module, class_name)(config).to(DEVICE, dtype)
            patched = copy.deepcopy(original)
            replaced = fmlp.patch_model(patched, config)
            for holder in (original, patched):
                torch.manual_seed(1)
                peft.inject_adapter_in_model(peft.LoraConfig(
                    r=16, lora_alpha=32, target_modules=targets, init_lora_weights=False), holder)
                holder.to(DEVICE, dtype)
            patched.load_state_dict(original.state_dict(), strict=True)
            x = torch.randn(2, 37, D, device=DEVICE, dtype=dtype)
            dy = torch.randn(2, 37, D, device=DEVICE, dtype=dtype)

            def run(holder):
                xx = x.clone().requires_grad_(True)
                holder.zero_grad(set_to_none=True)
                with CountOps() as counter:
                    y = holder.mlp(xx)
                    y.backward(dy)
                out = {"y": y.detach(), "dx": xx.grad}
                out.update({n: p.grad for n, p in holder.named_parameters() if "lora_" in n})
                return out, counter
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                ours, counter = run(patched)
                messages = fmlp_warnings(caught)
            theirs, again = run(original)[0], run(original)[0]
            noise = max(distance(theirs[k], again[k]) for k in theirs)
            worst = max(distance(ours.get(k), theirs[k]) for k in theirs)
            report(f"{label}: unfused, one warning naming {targets[0]}",
                   replaced == 1 and type(patched.mlp).__name__.startswith("Fused")
                   and counter.total() == 0 and len(messages) == 1 and f"{targets[0]} is" in messages[0],
                   messages[0][:150] if messages else f"{replaced} replaced, no warning")
            report(f"{label}: y, dx and {sum('lora_' in k for k in theirs)} LoRA gradients equal HF's",
                   worst <= 2 * noise, f"worst |diff| {worst:.3g}, run-to-run {noise:.3g}")
        except Exception as error:
            report(label, False, f"{type(error).__name__}: {str(error)[:300]}")


def control_bypass(dtype, tokens):
    """A guard that lets the adapters through (fmlp's fused path over
    lora.Linear's base weight): these checks must catch it."""
    label = f"{str(dtype)[6:]} control: a guard that bypasses the adapters"
    base = small_llama(dtype)
    ref = lora(copy.deepcopy(base), TARGETS["all"])
    model = copy.deepcopy(base)
    fmlp.patch_model(model)
    model = lora(model, TARGETS["all"])
    model.load_state_dict(ref.state_dict(), strict=True)
    original = fmlp_modules.why_not_fusable
    fmlp_modules.why_not_fusable = lambda module, names: None
    results["control"] = []
    try:
        ours, counter = step(model, tokens)
        theirs, _ = step(ref, tokens)
        again, _ = step(ref, tokens)
        equal_to_reference(label, ours, theirs, again)
        caught = not all(results["control"])
        detail = f"fused ops ran: {dict(counter.calls)}"
    except RuntimeError as error:
        caught, detail = True, f"{type(error).__name__}: {str(error)[:100]}"
    finally:
        fmlp_modules.why_not_fusable = original
        results["control"] = None
    report(f"{label} is caught", caught, detail)


def print_table():
    if not TABLE:
        return
    print("\nPEFT with fmlp (patched: MLPs replaced by patch_model; warnings: fmlp's, per run;"
          "\n|diff|: worst over loss, logits, LoRA gradients vs the unpatched PEFT model;"
          "\nfloat64: worst relative distance from a float64 run)")
    print(f"{'case':40s} {'patched':>7s} {'warnings':>8s} {'fmlp ops':>8s} {'|diff|':>9s} "
          f"{'run-to-run':>10s} {'f64 fmlp':>9s} {'f64 PEFT':>9s}")
    for label, replaced, warned, ops, worst, noise, mine, theirs in TABLE:
        print(f"{label:40s} {replaced:7d} {warned:8d} {ops:8d} {worst:9.3g} {noise:10.3g} "
              f"{mine:9.3g} {theirs:9.3g}")
    print()


def main():
    global DEVICE
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--fake-kernels", action="store_true",
                        help="fmlp's launches computed by torch on the CPU (no GPU)")
    parser.add_argument("--dtypes", default="bf16,fp32")
    parser.add_argument("--compile-backend", default="inductor")
    parser.add_argument("--cases", default="",
                        help="comma-separated case functions to run (default: all)")
    args = parser.parse_args()
    DEVICE = args.device
    print(f"torch {torch.__version__}, transformers {transformers.__version__}, peft "
          f"{peft.__version__}, fmlp {fmlp.__version__}, device {DEVICE}"
          + (" (fake kernels)" if args.fake_kernels else ""), flush=True)
    if args.fake_kernels:
        install_fake_kernels()
    torch.use_deterministic_algorithms(True, warn_only=True)
    dtypes = {"bf16": torch.bfloat16, "fp32": torch.float32}
    torch.manual_seed(0)
    tokens = torch.randint(0, VOCAB, (2, 64), device=DEVICE)
    for name in args.dtypes.split(","):
        dtype = dtypes[name]
        cases = [(peft_case, (dtype, order, targets, tokens))
                 for order in ("adapt-then-patch", "patch-then-adapt") for targets in ("mlp", "all")]
        cases += [(attention_only, (dtype, tokens)), (plain_and_hooks, (dtype, tokens)),
                  (other_classes, (dtype,)),
                  (compiled_then_adapted, (dtype, args.compile_backend)),
                  (control_bypass, (dtype, tokens))]
        for function, case_args in cases:
            if args.cases and function.__name__ not in args.cases.split(","):
                continue
            try:
                function(*case_args)
            except Exception as error:  # reported, then the next case
                traceback.print_exc()
                report(f"{function.__name__} {name}", False, f"{type(error).__name__}: {str(error)[:300]}")
    finish()


if __name__ == "__main__":
    main()
