"""PEFT's LoRA on fmlp's patched modules, on a GPU: a fused MLP whose
projections are PEFT's LoRA layers runs the block with the adapters'
terms in fmlp's kernels (fmlp::forward_lora and its twins, docs/LoRA.md);
what the guard (python/fmlp/guard.py) does not fuse runs Hugging Face's
own forward, calling the projections, with one warning per MLP that says
why; never a silent bypass.

  python3 python/tests/gpu_peft_guard.py
      on the GPU; bundles from FMLP_CACHE_DIR (those the dry run makes)
  python3 python/tests/gpu_peft_guard.py --fake-kernels --device cpu
      a dry run of this script where there is no GPU: fmlp's launches are
      computed in float64 by torch on the CPU (test_ops.emulate) and the
      H200 is stood in for (test_ops.gpu_stand_ins: its block specs, an x
      on the CPU taking the fused path); everything else is fmlp's code.
      Bundles are compiled on first use (fmlp-compile on PATH), the ones
      the GPU run asks for: with FMLP_CACHE_DIR set, the dry run makes the
      GPU run's cache (--make-cache DIR does both); --skip-missing exits
      77 (ctest's "skipped") where torch, transformers or peft is not
      installed, instead of failing. The emulated kernels
      round only their outputs: the margins it prints say nothing of the
      GPU's, but every check, the controls' included, runs.

A tiny Llama (hidden 256, intermediate 704, 2 layers, random init from a
config, eager attention), fp32 and bf16; LoRA r = 16, alpha 32, dropout 0,
A and B random (init_lora_weights=False: B = 0 would make a bypass
invisible in the outputs), on the MLP only and on every projection, in
both orders (get_peft_model then fmlp.patch_model; patch_model then
get_peft_model); in bf16 with PEFT's default float32 adapters (cast to
bf16 by fmlp per call) and with autocast_adapter_dtype=False (bf16 ones):

  every MLP is patched and runs fmlp's LoRA ops (counted by a
  TorchDispatchMode: forward_lora and backward_lora per MLP and step), no
  warning; the loss, the logits and every LoRA gradient within 3x the
  unpatched PEFT model's distance from a float64 run + 4 units of the
  dtype's rounding of the largest element (lora_criterion.py, as
  gpu_lora.py); disable_adapter() and merge_adapter() run the plain op
  and stay within it; merge_and_unload() gives plain fused MLPs (fmlp's
  ops counted, one of them judged against float64 by fmlp.judge's error
  bound).
Fallbacks, with one warning each and PEFT's result bit for bit (or within
twice its run-to-run difference): DoRA; a forward hook on a LoRA layer
(that MLP unfused, the other fused); a forward hook on a plain patched
model's up_proj. Also: Phi3's gate_up_proj (rank 32, so that it shares
the Llama's bundle), Falcon-H1's multipliers and Gemma's GELU patched,
then adapted: fused, y, dx and LoRA gradients within the criterion of HF's
module with the same adapters (Falcon-H1 and Gemma in fp32 only: their
bundles travel to the GPU, fp32's are half the size); LoRA on attention
only (the MLPs run the plain op); a patched MLP compiled with
fullgraph=True, then adapted: recompiled into the fused LoRA path.
The issue's fine-tuning run: gpu_modules.py's small Llama (D = 1024, H =
2816) with LoRA r = 16 on every projection (PEFT's initialization, its
default adapter dtype), 30 AdamW steps (lr 1e-3) from the same start:
PEFT + HF, the fmlp-patched PEFT model and a float64 run, per-step losses
compared as gpu_modules.py's train() compares them.
Controls, which these checks must catch: a guard that lets the LoRA
layers through as plain Linears (the adapters bypassed), a scale left out
of A_cat (and in the fp32 fine-tuning run, a scale left out).

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
import unittest.mock
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
    from fmlp import guard, lora as fmlp_lora, modules as fmlp_modules, ops as fmlp_ops
    from lora_criterion import UNIT, worst_ratio
except Exception as error:  # the run must end with a verdict line
    if "--skip-missing" in sys.argv:  # ctest's dry run: 77 is "skipped"
        print(f"skipped: {type(error).__name__}: {error}")
        sys.exit(77)
    report("imports (torch, transformers, peft, fmlp)", False, f"{type(error).__name__}: {error}")
    finish()

D, H, LAYERS, VOCAB = 256, 704, 2, 1000
MLP_TARGETS = ["gate_proj", "up_proj", "down_proj"]
ATTENTION_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj"]
TARGETS = {"mlp": MLP_TARGETS, "all": MLP_TARGETS + ATTENTION_TARGETS}
NAMESPACE = "fmlp"  # the ops counted: torch.ops.fmlp.*
DEVICE = "cuda"
OPS_PER_STEP = 2  # fmlp's ops per MLP in a training step: forward, backward


class _Counted:
    """calls: a Counter of fmlp's ops by name (forward, forward_nograd,
    backward, the LoRA twins' with _lora)."""

    def total(self):
        return sum(self.calls.values())

    def lora(self):
        """The calls of the LoRA ops."""
        return sum(n for name, n in self.calls.items() if name.endswith("_lora"))


class CountOps(_Counted, TorchDispatchMode):
    """Counts the calls of fmlp's ops (fmlp::forward, forward_nograd,
    backward and their LoRA twins, *_lora) under it, forward and
    backward."""

    def __init__(self):
        super().__init__()
        self.calls = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if getattr(func, "namespace", None) == NAMESPACE:
            self.calls[func.__name__.split(".")[0]] += 1
        return func(*args, **(kwargs or {}))


class CountLaunches(_Counted):
    """Counts fmlp's launches (each entry point an op runs, ops._Plan.run;
    a LoRA bundle's as the LoRA op's) where a TorchDispatchMode cannot
    count: around compiled code (dynamo skips every frame under a
    dispatch mode that is not its own)."""

    def __enter__(self):
        self.calls = collections.Counter()
        run = fmlp_ops._Plan.run

        def counted(plan, *args, **kwargs):
            lora = "lora" in os.path.basename(str(plan.path))
            self.calls[plan.kind + ("_lora" if lora else "")] += 1
            return run(plan, *args, **kwargs)
        self._patch = unittest.mock.patch.object(fmlp_ops._Plan, "run", counted)
        self._patch.start()
        return self

    def __exit__(self, *exception):
        self._patch.stop()


def install_fake_kernels():
    """Where there is no GPU: fmlp's launches computed in float64 by torch
    on the CPU (ops.emulate = test_ops.emulate: the bundle's activation,
    multipliers and adapter terms, outputs rounded once to their dtype)
    instead of the bundle's kernels, and the H200 stood in for
    (test_ops.gpu_stand_ins: block_spec gives its spec, sm_90a, without
    the CUDA-only checks; an x on the CPU passes the fused path's input
    check). Everything else is fmlp's own code: the guard, the adapters'
    matrices and casts, the bundles (compiled here by fmlp-compile on
    first use) and their manifests, the ops' fake implementations,
    autograd through the backward ops, the saved buffer written over."""
    from fmlp import ops
    from test_ops import emulate, gpu_stand_ins
    for patcher in gpu_stand_ins():
        patcher.start()
    ops.emulate = emulate


def small_llama(dtype):
    config = LlamaConfig(hidden_size=D, intermediate_size=H, num_hidden_layers=LAYERS,
                         num_attention_heads=4, num_key_value_heads=4, vocab_size=VOCAB,
                         max_position_embeddings=256, hidden_act="silu")
    config._attn_implementation = "eager"  # deterministic, and the same in float64
    torch.manual_seed(0)
    return LlamaForCausalLM(config).to(DEVICE, dtype)


def lora(model, targets, cast=True, **keywords):
    """get_peft_model with LoRA r = 16 on `targets`, A and B random;
    `cast`: PEFT's default autocast_adapter_dtype (float32 adapters over
    a 16-bit model), else adapters in the model's dtype."""
    config = peft.LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0, target_modules=list(targets),
                             init_lora_weights=False, **keywords)
    torch.manual_seed(1)
    return peft.get_peft_model(model, config, autocast_adapter_dtype=cast)


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


def within_criterion(label, ours, theirs, exact, dtype):
    """ours within lora_criterion's bound of PEFT's (or HF's) run `theirs`
    from the float64 run `exact`, tensor by tensor; returns the worst
    ratio (<= 1 passes)."""
    worst, where = worst_ratio(ours, theirs, exact, UNIT[dtype])
    report(f"{label} within 3x PEFT's distance from float64 + 4u", worst <= 1.0,
           f"{sum(t is not None for t in exact.values())} tensors, worst {worst:.3f} of the "
           f"allowed ({where})")
    return worst


def equal_to_reference(label, ours, ref, again):
    """ours against ref tensor by tensor (a fallback runs PEFT's modules in
    the same order): equal bit for bit when ref's second run (again)
    repeats ref bit for bit, else within twice the run-to-run
    difference."""
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


def every_lora_gradient(label, ours, theirs):
    """Every LoRA parameter has a gradient, of the dtype PEFT's has (float32
    for PEFT's default adapters over a bf16 model)."""
    names = [k for k in theirs if "lora_" in k]
    bad = [k for k in names if ours.get(k) is None or ours[k].dtype != theirs[k].dtype]
    dtypes = sorted({str(theirs[k].dtype)[6:] for k in names})
    report(f"{label}: every LoRA parameter has a gradient of PEFT's dtype", bool(names) and not bad,
           f"{len(names)} LoRA tensors ({', '.join(dtypes)}), {len(bad)} without or of "
           f"another dtype")


def adapted_models(dtype, order, targets, cast=True):
    """PEFT's unpatched model and the fmlp-patched one in `order`, with the
    same adapters; checks the patching. Returns (model, reference,
    replaced)."""
    label = case_label(dtype, order, targets, cast)
    base = small_llama(dtype)
    ref = lora(copy.deepcopy(base), TARGETS[targets], cast)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if order == "adapt-then-patch":
            model = lora(copy.deepcopy(base), TARGETS[targets], cast)
            replaced = fmlp.patch_model(model)
        else:
            model = copy.deepcopy(base)
            replaced = fmlp.patch_model(model)
            model = lora(model, TARGETS[targets], cast)
    kinds = {type(m).__name__ for m in mlps(model)}
    wrapper = type(mlps(model)[0].gate_proj)
    report(f"{label}: every MLP patched, PEFT's LoRA layers its projections, silently",
           replaced == LAYERS and kinds == {"FusedGatedMLP"} and wrapper.__name__ == "Linear"
           and wrapper.__module__.startswith("peft.") and not fmlp_warnings(caught),
           f"{replaced} replaced, {kinds}, gate_proj {wrapper.__module__}.{wrapper.__name__}, "
           f"{len(fmlp_warnings(caught))} warnings")
    model.load_state_dict(ref.state_dict(), strict=True)
    return model, ref, replaced


def case_label(dtype, order, targets, cast=True):
    adapters = "" if dtype == torch.float32 else (" f32 adapters" if cast else " bf16 adapters")
    return f"{str(dtype)[6:]}{adapters} {order} lora on {targets}"


def peft_case(dtype, order, targets, tokens, cast=True):
    label = case_label(dtype, order, targets, cast)
    model, ref, replaced = adapted_models(dtype, order, targets, cast)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours, counter = step(model, tokens)
        ours_again, _ = step(model, tokens)
    report(f"{label}: every MLP runs fmlp's LoRA ops, no warning",
           counter.lora() == counter.total() == OPS_PER_STEP * LAYERS and not fmlp_warnings(caught),
           f"ops {dict(counter.calls)}, {len(fmlp_warnings(caught))} warnings")
    theirs, _ = step(ref, tokens)
    theirs_again, _ = step(ref, tokens)
    exact_model = copy.deepcopy(ref).double()
    exact, _ = step(exact_model, tokens)
    every_lora_gradient(label, ours, theirs)
    worst = within_criterion(f"{label}: loss, logits, LoRA gradients", ours, theirs, exact, dtype)
    noise = max(distance(theirs[k], theirs_again[k]) for k in theirs)
    again = max(distance(ours[k], ours_again[k]) for k in ours)
    report(f"{label}: the patched model repeats itself as PEFT's does", again <= noise,
           f"run-to-run: fmlp-patched {again:.3g}, PEFT {noise:.3g}")
    # Control: the adapters change the result (B != 0), so a bypass shows.
    plain, _ = step(small_llama(dtype), tokens, grad=False)
    moved = distance(plain["logits"], theirs["logits"])
    report(f"{label}: control: the adapters change the logits", moved > 0, f"max |diff| {moved:.3g}")
    f64 = (from_float64(ours, exact), from_float64(theirs, exact))
    # disable_adapter(): the base projections only, by the plain op.
    with model.disable_adapter(), ref.disable_adapter(), exact_model.disable_adapter():
        off, off_counter = step(model, tokens, grad=False)
        off_ref, _ = step(ref, tokens, grad=False)
        off_exact, _ = step(exact_model, tokens, grad=False)
    report(f"{label}: disable_adapter() runs the plain op",
           off_counter.total() == LAYERS and off_counter.lora() == 0, f"ops {dict(off_counter.calls)}")
    within_criterion(f"{label}: disable_adapter(): loss, logits", off, off_ref, off_exact, dtype)
    # merge_adapter(): W + s B A in place, in all three; the plain op.
    for m in (model, ref, exact_model):
        m.base_model.merge_adapter()
    merged, merged_counter = step(model, tokens, grad=False)
    merged_ref, _ = step(ref, tokens, grad=False)
    merged_exact, _ = step(exact_model, tokens, grad=False)
    report(f"{label}: merge_adapter() runs the plain op",
           merged_counter.total() == LAYERS and merged_counter.lora() == 0,
           f"ops {dict(merged_counter.calls)}")
    within_criterion(f"{label}: merge_adapter(): loss, logits", merged, merged_ref, merged_exact,
                     dtype)
    for m in (model, ref, exact_model):
        m.base_model.unmerge_adapter()
    # merge_and_unload(): plain MLPs again, run by fmlp's kernels.
    unloaded = model.merge_and_unload()
    unloaded_ref = ref.merge_and_unload()
    unloaded_exact = exact_model.merge_and_unload()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = fmlp.patch_model(unloaded)  # already fused: nothing to replace
        fused_out, fused_counter = step(unloaded, tokens, grad=False)
    kinds = {type(m).__name__ for m in mlps(unloaded)}
    report(f"{label}: merge_and_unload() gives fused MLPs that run fmlp's plain op",
           kinds == {"FusedGatedMLP"} and fused_counter.total() == LAYERS and
           fused_counter.lora() == 0 and not fmlp_warnings(caught),
           f"{kinds}, {again} patched now, ops {dict(fused_counter.calls)}")
    hf_out, _ = step(unloaded_ref, tokens, grad=False)
    exact_out, _ = step(unloaded_exact, tokens, grad=False)
    within_criterion(f"{label}: merged, unloaded: loss, logits", fused_out, hf_out, exact_out, dtype)
    judged_mlp(f"{label}: merged MLP", mlps(unloaded)[0], dtype)
    TABLE.append((label, replaced, counter.lora(), worst, f64[0], f64[1]))


def fallbacks(dtype, tokens):
    """What the guard does not fuse runs PEFT's modules, with one warning:
    DoRA (every MLP: PEFT's results bit for bit), a forward hook on a LoRA
    layer (that MLP unfused, the hook runs, the other MLP fused)."""
    label = f"{str(dtype)[6:]} DoRA, patch-then-adapt"
    base = small_llama(dtype)
    ref = lora(copy.deepcopy(base), MLP_TARGETS, use_dora=True)
    model = copy.deepcopy(base)
    fmlp.patch_model(model)
    model = lora(model, MLP_TARGETS, use_dora=True)
    model.load_state_dict(ref.state_dict(), strict=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours, counter = step(model, tokens)
        first = fmlp_warnings(caught)
        caught.clear()
        step(model, tokens)
        second = fmlp_warnings(caught)
    report(f"{label}: one warning per MLP naming gate_proj and the variant, none after",
           len(first) == LAYERS and not second and all(
               "runs unfused" in m and "gate_proj is a PEFT LoRA layer" in m and "variant" in m
               for m in first), first[0][:170] if first else "no warning")
    report(f"{label}: no fmlp op runs", counter.total() == 0, f"{dict(counter.calls)}")
    theirs, _ = step(ref, tokens)
    again, _ = step(ref, tokens)
    worst, noise = equal_to_reference(label, ours, theirs, again)
    TABLE.append((label, LAYERS, counter.lora(), worst, math.nan, math.nan))

    label = f"{str(dtype)[6:]} forward hook on a LoRA layer"
    model, ref, _ = adapted_models(dtype, "patch-then-adapt", "mlp")
    calls = []
    handle = mlps(model)[0].up_proj.register_forward_hook(lambda *args: calls.append(1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours, counter = step(model, tokens)
        step(model, tokens)
        messages = fmlp_warnings(caught)
    report(f"{label}: that MLP unfused, the hook runs, one warning; the other fused",
           len(calls) == 2 and counter.lora() == counter.total() == OPS_PER_STEP * (LAYERS - 1)
           and len(messages) == 1 and "up_proj is a PEFT LoRA layer that has forward hooks"
           in messages[0], messages[0][:150] if messages else "no warning")
    theirs, _ = step(ref, tokens)
    exact, _ = step(copy.deepcopy(ref).double(), tokens)
    within_criterion(f"{label}: loss, logits, LoRA gradients", ours, theirs, exact, dtype)
    handle.remove()
    _, counter = step(model, tokens)
    report(f"{label}: hook removed: fused again", counter.lora() == OPS_PER_STEP * LAYERS,
           f"ops {dict(counter.calls)}")


def judged_mlp(label, mlp, dtype):
    """The fused MLP's y and every gradient against float64 by the error
    bound (fmlp.judge), as gpu_modules.py does."""
    try:
        from fmlp import judge
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
    """LoRA on attention only: the MLPs run fmlp's plain op."""
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
           replaced == LAYERS and counter.total() == OPS_PER_STEP * LAYERS and counter.lora() == 0
           and not fmlp_warnings(caught), f"{replaced} replaced, ops {dict(counter.calls)}")
    theirs, _ = step(ref, tokens)
    exact, _ = step(copy.deepcopy(ref).double(), tokens)
    within_criterion(f"{label}: loss, logits, LoRA gradients", ours, theirs, exact, dtype)


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
    (no graph break); given LoRA adapters by PEFT afterwards, dynamo's
    guards on the projections fail and it retraces into the fused LoRA
    path, still one graph, within the criterion of PEFT's eager run. Each
    block runs eagerly first: the bundle's first lookup in a process
    reads the file system, which dynamo does not trace (fullgraph would
    fail there)."""
    label = f"{str(dtype)[6:]} torch.compile(fullgraph=True, {backend})"
    try:
        model = small_llama(dtype)
        fmlp.patch_model(model)
        mlp = mlps(model)[0]
        torch._dynamo.reset()
        compiled = torch.compile(mlp, fullgraph=True, backend=backend)
        x = torch.randn(2, 16, D, device=DEVICE, dtype=dtype)
        eager = mlp(x)
        with CountLaunches() as counter:
            y = compiled(x)
        report(f"{label}: fused path, one graph", counter.total() == 1 and
               distance(y, eager) <= 4 * UNIT[dtype] * eager.abs().max().item(),
               f"ops {dict(counter.calls)}, |compiled - eager| {distance(y, eager):.3g}")
        torch.manual_seed(3)
        peft.inject_adapter_in_model(peft.LoraConfig(r=16, lora_alpha=32, target_modules=MLP_TARGETS,
                                                     init_lora_weights=False), mlp)
        mlp.to(DEVICE, dtype)
        report(f"{label}: PEFT injected adapters into the compiled module",
               type(mlp.gate_proj) is not torch.nn.Linear, str(type(mlp.gate_proj)))
        mlp(x)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with CountLaunches() as counter:
                y = compiled(x)
            messages = fmlp_warnings(caught)
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            unfused = mlp.unfused(x)
            exact = copy.deepcopy(mlp).double().unfused(x.double())
        report(f"{label}: adapted after compiling: recompiled into the LoRA op, no warning",
               counter.lora() == counter.total() == 1 and not messages,
               f"ops {dict(counter.calls)}, {len(messages)} warning(s)")
        within_criterion(f"{label}: adapted: y", {"y": y.detach()}, {"y": unfused}, {"y": exact},
                         dtype)
    except Exception as error:
        report(f"{label}", False, f"{type(error).__name__}: {str(error)[:400]}")


OTHER_CLASSES = [  # (model type, class, LoRA config, config extras, dtypes)
    ("phi3", "Phi3MLP", dict(target_modules=["gate_up_proj", "down_proj"],
                             rank_pattern={"gate_up_proj": 32}), {},
     (torch.float32, torch.bfloat16)),
    ("falcon_h1", "FalconH1MLP", dict(target_modules=MLP_TARGETS),
     dict(mlp_multipliers=[0.5, 0.25]), (torch.float32,)),
    ("gemma", "GemmaMLP", dict(target_modules=MLP_TARGETS),
     dict(hidden_act="gelu_pytorch_tanh", hidden_activation="gelu_pytorch_tanh", head_dim=64),
     (torch.float32,)),
]


def other_classes(dtype):
    """Phi3's gate_up_proj (r = 32: R = 32, Rd = 16, the Llama's bundle),
    Falcon-H1's multipliers, Gemma's GELU, patched then given LoRA
    adapters (inject_adapter_in_model): fused, no warning, y, dx and every
    LoRA gradient within the criterion of HF's module with the same
    adapters, from float64."""
    import importlib
    from transformers import AutoConfig
    for model_type, class_name, lora_config, extra, dtypes in OTHER_CLASSES:
        if dtype not in dtypes:
            continue
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
                    r=16, lora_alpha=32, init_lora_weights=False, **lora_config), holder)
                holder.to(DEVICE, dtype)
            patched.load_state_dict(original.state_dict(), strict=True)
            x = torch.randn(2, 37, D, device=DEVICE, dtype=dtype)
            dy = torch.randn(2, 37, D, device=DEVICE, dtype=dtype)

            def run(holder, x, dy):
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
                ours, counter = run(patched, x, dy)
                messages = fmlp_warnings(caught)
            report(f"{label}: fused with its adapters, no warning",
                   replaced == 1 and type(patched.mlp).__name__.startswith("Fused")
                   and counter.lora() == counter.total() == OPS_PER_STEP and not messages,
                   f"{replaced} replaced, ops {dict(counter.calls)}, {len(messages)} warnings")
            theirs = run(original, x, dy)[0]
            exact = run(copy.deepcopy(original).double(), x.double(), dy.double())[0]
            within_criterion(f"{label}: y, dx, {sum('lora_' in k for k in exact)} LoRA gradients",
                             ours, theirs, exact, dtype)
        except Exception as error:
            report(label, False, f"{type(error).__name__}: {str(error)[:300]}")


def lora_training(dtype, steps):
    """The issue's fine-tuning run: gpu_modules.py's small Llama (D = 1024,
    H = 2816, 2 layers) with PEFT's LoRA (r = 16, alpha 32, its own
    initialization, B = 0; its default adapter dtype: float32 over a bf16
    model) on every projection, `steps` AdamW steps (lr 1e-3: adapter terms
    of order 10 % of the projections by step 30) from the same start:
    PEFT + HF, the fmlp-patched PEFT model and a float64 run, their
    per-step losses compared as gpu_modules.py's train() compares them
    (PyTorch's deterministic kernels, strictly: with warn_only, as the
    rest of this script runs, the model's SDPA attention keeps its
    non-deterministic backward, and in fp32 PEFT's run then differs from
    itself by an ulp of the loss, as much as the check's margin; PEFT's
    run must repeat itself bit for bit). Control (fp32, where PEFT's
    distance from float64 is a few ulps): a scale left out of A_cat
    fails."""
    torch.use_deterministic_algorithms(True)
    try:
        _lora_training(dtype, steps)
    finally:
        torch.use_deterministic_algorithms(True, warn_only=True)


def _lora_training(dtype, steps):
    from gpu_modules import losses_within, small_llama as llama, train_losses
    label = f"{str(dtype)[6:]} LoRA fine-tuning, {steps} steps"
    lr = 1e-3
    base = llama(dtype, device=DEVICE)
    torch.manual_seed(1)
    ref = peft.get_peft_model(base, peft.LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0,
                                                    target_modules=TARGETS["all"]))
    tokens = torch.randint(0, base.config.vocab_size, (steps, 4, 128), device=DEVICE)
    exact = train_losses(copy.deepcopy(ref).double(), tokens, steps, lr)
    theirs = train_losses(copy.deepcopy(ref), tokens, steps, lr)
    report(f"{label}: PEFT's run repeats bit for bit",
           train_losses(copy.deepcopy(ref), tokens, steps, lr) == theirs)
    model = copy.deepcopy(ref)
    replaced = fmlp.patch_model(model)
    with warnings.catch_warnings(record=True) as caught, CountOps() as counter:
        warnings.simplefilter("always")
        ours = train_losses(model, tokens, steps, lr)
    report(f"{label}: every MLP runs fmlp's LoRA ops at every step, no warning",
           replaced == base.config.num_hidden_layers and counter.lora() == counter.total() ==
           OPS_PER_STEP * replaced * steps and not fmlp_warnings(caught),
           f"{replaced} replaced, ops {dict(counter.calls)}")
    report(f"{label}: fmlp within 2x PEFT's distance from float64",
           *losses_within(label, exact, theirs, ours))
    if dtype == torch.float32:
        model = copy.deepcopy(ref)
        fmlp.patch_model(model)
        with unittest.mock.patch.object(fmlp_lora, "stack", unscaled_stack):
            wrong = train_losses(model, tokens, steps, lr)
        caught, detail = losses_within(f"{label}, control: a scale left out", exact, theirs, wrong)
        report(f"{label}: control: a scale left out fails", not caught, detail)


def unscaled_stack(terms, widths, stack=fmlp_lora.stack):
    """lora.stack with every adapter's scale left out (a control)."""
    return stack([(a, 1.0, b) for a, _, b in terms], widths)


def bypassing_projections(module, names, autocast=False, projections=fmlp_modules.projections):
    """modules.projections as a guard that lets PEFT's LoRA layers through
    as their base Linears: the adapters bypassed (a control)."""
    found = projections(module, names, autocast)
    return found if isinstance(found, str) else [guard.Projection(p.linear) for p in found]


def controls(dtype, tokens):
    """A guard that bypasses the adapters, and a scale left out of A_cat:
    the checks of peft_case must catch each."""
    model, ref, _ = adapted_models(dtype, "patch-then-adapt", "all")
    theirs, _ = step(ref, tokens)
    exact, _ = step(copy.deepcopy(ref).double(), tokens)
    for what, target, name, value in (
            ("a guard that bypasses the adapters", fmlp_modules, "projections",
             bypassing_projections),
            ("a scale left out of A_cat", fmlp_lora, "stack", unscaled_stack)):
        label = f"{str(dtype)[6:]} control: {what}"
        results["control"] = []
        try:
            with unittest.mock.patch.object(target, name, value):
                ours, counter = step(model, tokens)
            within_criterion(label, ours, theirs, exact, dtype)
            caught = not all(results["control"])
            detail = f"fused ops ran: {dict(counter.calls)}"
        except RuntimeError as error:
            caught, detail = True, f"{type(error).__name__}: {str(error)[:100]}"
        finally:
            results["control"] = None
        report(f"{label} is caught", caught, detail)


def print_table():
    if not TABLE:
        return
    print("\nPEFT with fmlp (patched: MLPs replaced; LoRA ops: fmlp's, in one training step;"
          "\ncriterion: worst over loss, logits, LoRA gradients of |fmlp - f64| / (3 |PEFT - f64| "
          "+ 4u max|f64|),"
          "\n  for a fallback the worst |fmlp - PEFT|; float64: worst relative distance from a "
          "float64 run)")
    print(f"{'case':54s} {'patched':>7s} {'LoRA ops':>8s} {'criterion':>9s} "
          f"{'f64 fmlp':>9s} {'f64 PEFT':>9s}")
    for label, replaced, ops, worst, mine, theirs in TABLE:
        print(f"{label:54s} {replaced:7d} {ops:8d} {worst:9.3g} {mine:9.3g} {theirs:9.3g}")
    print()


def main():
    global DEVICE
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--fake-kernels", action="store_true",
                        help="fmlp's launches computed by torch on the CPU (no GPU)")
    parser.add_argument("--make-cache", metavar="DIR",
                        help="the dry run (--fake-kernels --device cpu, 2 training steps) with "
                             "FMLP_CACHE_DIR=DIR: every bundle the GPU run asks for, compiled")
    parser.add_argument("--skip-missing", action="store_true",
                        help="exit 77 (skipped) where torch, transformers or peft is missing")
    parser.add_argument("--dtypes", default="bf16,fp32")
    parser.add_argument("--compile-backend", default="inductor")
    parser.add_argument("--train-steps", type=int, default=30)
    parser.add_argument("--cases", default="",
                        help="comma-separated case functions to run (default: all)")
    args = parser.parse_args()
    if args.make_cache:
        os.environ["FMLP_CACHE_DIR"] = args.make_cache
        args.fake_kernels, args.device, args.train_steps = True, "cpu", 2
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
        if dtype != torch.float32:  # adapters in the model's dtype too
            cases += [(peft_case, (dtype, order, "all", tokens, False))
                      for order in ("adapt-then-patch", "patch-then-adapt")]
        cases += [(fallbacks, (dtype, tokens)), (attention_only, (dtype, tokens)),
                  (plain_and_hooks, (dtype, tokens)), (other_classes, (dtype,)),
                  (compiled_then_adapted, (dtype, args.compile_backend)),
                  (controls, (dtype, tokens)), (lora_training, (dtype, args.train_steps))]
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
