"""fmlp's PyTorch modules on a GPU against Hugging Face's originals
(transformers). Modes (one per process: a failed CUDA-graph capture leaves
a process's CUDA state unusable):

  python3 python/tests/gpu_modules.py modules   outputs and every gradient
      judged by the error-bound method (fmlp.judge, float64 reference),
      opcheck of the three ops, torch.compile(fullgraph=True), the no-grad
      path, second and double backward, input checks, weights in place,
      gradients only where asked (frozen weights and biases, x without
      gradient: .grad None, the rest judged, their kernels not run)
  python3 python/tests/gpu_modules.py train     30 AdamW steps of a small
      LlamaForCausalLM with and without the patch, fp32 and bf16
  python3 python/tests/gpu_modules.py graph-callables   make_graphed_callables
  python3 python/tests/gpu_modules.py graph-step  a whole training step
      captured in one CUDA graph and replayed
  python3 python/tests/gpu_modules.py autocast  float32 modules under
      torch.autocast (bf16, fp16) against HF's, by the error bound
  python3 python/tests/gpu_modules.py regimes   gradient checkpointing and
      torch.compile with dynamic shapes
  python3 python/tests/gpu_modules.py fallbacks x on the CPU or in float64:
      Hugging Face's forward with one warning, its results bit for bit
  python3 python/tests/gpu_modules.py tiny      the widths of Hugging Face's
      own model tests (hidden 32, intermediate 37: rows TMA cannot
      address) and D = 12 (a contraction shorter than a SIMT k-tile), as
      in modules

Bundles come from FMLP_CACHE_DIR (python/tests/make-gpu-cache.sh). Every
input is random (never zeros); the allocator's free memory is filled with
NaN before fmlp runs (judge.poison_free_memory), so an output left
unwritten fails; the judge's control (a moved output) must fail. Prints one line per check;
exits non-zero if any fails.
"""
import copy
import math
import os
import re
import sys

import torch
from transformers import AutoConfig

import fmlp
from fmlp import judge
from tf32_control import CONTROL_WIDTHS

os.environ.setdefault("FMLP_STRICT", "1")  # fmlp's kernels or an error: never HF's fallback

D, H = 1024, 2816
failures = []


def report(name, ok, detail=""):
    print(f"{'pass' if ok else 'FAIL'}  {name:52s} {detail}", flush=True)
    if not ok:
        failures.append(name)


def config_of(model_type, **extra):
    heads = math.gcd(D, 8)  # 8, or what divides tiny()'s D = 12
    return AutoConfig.for_model(model_type, hidden_size=D, intermediate_size=H,
                                num_attention_heads=heads, num_key_value_heads=heads, **extra)


CASES = [
    ("llama", "LlamaMLP", dict(hidden_act="silu", mlp_bias=False)),
    ("llama+bias", "LlamaMLP", dict(hidden_act="silu", mlp_bias=True)),
    ("qwen2", "Qwen2MLP", dict(hidden_act="silu")),
    ("phi3", "Phi3MLP", dict(hidden_act="silu")),
    ("gemma", "GemmaMLP", dict(hidden_act="gelu_pytorch_tanh",
                               hidden_activation="gelu_pytorch_tanh", head_dim=128)),
    ("falcon_h1", "FalconH1MLP", dict(hidden_act="silu", mlp_multipliers=[0.5, 0.25])),
    # The (config, intermediate_size) constructors: an MoE expert and
    # Llama4's text MLP, built with H while the config says otherwise.
    ("qwen2_moe+expert", "Qwen2MoeMLP", dict(hidden_act="silu")),
    ("llama4_text+expert", "Llama4TextMLP", dict(hidden_act="silu")),
]
PACKAGES = {"llama4_text": "llama4"}  # model type -> transformers.models package


def original_mlp(label, class_name, extra):
    model_type = label.split("+")[0]
    package = PACKAGES.get(model_type, model_type)
    module = __import__(f"transformers.models.{package}.modeling_{package}", fromlist=["x"])
    config = config_of(model_type, **extra)
    if label.endswith("+expert"):
        config.intermediate_size = 4 * H  # the constructor's argument must win
        mlp = getattr(module, class_name)(config, intermediate_size=H)
    else:
        mlp = getattr(module, class_name)(config)
    mlp.config = config
    return mlp, config


def random_mlp(label, class_name, extra, dtype):
    """original_mlp on the GPU in `dtype`, seeded, with weights ~ N(0,
    1/fan_in) and biases ~ N(0, 1/4): G and U of order one."""
    torch.manual_seed(0)
    original, config = original_mlp(label, class_name, extra)
    original = original.to("cuda", dtype)
    with torch.no_grad():
        for p in original.parameters():
            p.normal_(0, 1 / math.sqrt(p.shape[1])) if p.dim() == 2 else p.normal_(0, 0.5)
    return original, config


def patched(original, config):
    wrapper = torch.nn.Module()
    wrapper.mlp = copy.deepcopy(original)
    replaced = fmlp.patch_model(wrapper, config)
    return wrapper.mlp, replaced


def run(module, x, dy):
    x = x.detach().clone().requires_grad_(True)
    for p in module.parameters():
        p.grad = None
    y = module(x)
    y.backward(dy)
    return y.detach(), x.grad, {n: p.grad for n, p in module.named_parameters()}


def math_layout(tensors):
    """gate, up [D, H], down [H, D] and biases from HF parameter names
    (a Linear's weight is [out, in]: the math's matrix transposed)."""
    if "gate_up_proj.weight" in tensors:
        w = tensors["gate_up_proj.weight"]
        h = w.shape[0] // 2
        out = {"gate": w[:h].t(), "up": w[h:].t()}
    else:
        out = {"gate": tensors["gate_proj.weight"].t(), "up": tensors["up_proj.weight"].t()}
    out["down"] = tensors["down_proj.weight"].t()
    for short in ("gate", "up", "down"):
        if f"{short}_proj.bias" in tensors:
            out[f"{short}_bias"] = tensors[f"{short}_proj.bias"]
    return out


def judge_inputs(original, x, dy):
    """judge.reference's inputs for `original` on x and dy: x and dy as
    [T, D], the parameters in the math's layout (math_layout)."""
    inputs = {"x": x.reshape(-1, D), "dy": dy.reshape(-1, D)}
    inputs.update(math_layout(dict(original.named_parameters())))
    return inputs


def judged(ref, y, dx, grads):
    """worst error/bound per output of one run (y, dx, parameter grads)."""
    computed = {"y": y, "dx": dx}
    computed.update({f"d_{k}": v for k, v in math_layout(grads).items()})
    return {name: judge.worst_ratio(computed[name], *ref[name]) for name in ref}


TABLE = []


def compare(case, class_name, extra, dtype, tokens=(2, 37), widths=""):
    original, config = random_mlp(case, class_name, extra, dtype)
    # Reported as the case, with its T where it is not the usual one (and
    # its widths where they are not D and H: tiny()).
    label = case + widths
    if tokens != (2, 37):
        label += f" T={tokens[0] * tokens[1]}"
    fused, replaced = patched(original, config)
    report(f"{label} {dtype}: patched", replaced == 1, f"{replaced} module(s) replaced")
    x = torch.randn(*tokens, D, device="cuda", dtype=dtype)
    dy = torch.randn(*tokens, D, device="cuda", dtype=dtype)
    inputs = judge_inputs(original, x, dy)
    judge.poison_free_memory()
    ours = run(fused, x, dy)
    theirs = run(original, x, dy)
    ref = judge.reference(fused.activation, dtype, inputs, fused.gate_multiplier or 1.0,
                          fused.down_multiplier or 1.0)
    mine, hf = judged(ref, *ours), judged(ref, *theirs)
    for name, (ratio, nonfinite) in mine.items():
        report(f"{label} {dtype}: {name}", ratio <= 1.0 and nonfinite == 0,
               f"fmlp worst error/bound {ratio:.3f}   (HF eager {hf[name][0]:.3f})")
    TABLE.append((label, dtype, mine, hf))
    # Control: one element of y moved by 0.5 (its bound is below 1e-2): must fail.
    moved = ours[0].clone()
    moved.view(-1)[7] += 0.5
    control = judged(ref, moved, ours[1], ours[2])
    report(f"{label} {dtype}: control (y moved) fails", control["y"][0] > 1.0,
           f"worst error/bound {control['y'][0]:.1f}")
    with torch.no_grad():
        y_nograd = fused(x)
    report(f"{label} {dtype}: no-grad y equals forward y", torch.equal(y_nograd, ours[0]))
    return fused, x, dy


# Parameters not requiring grad, and x not requiring grad: each case as
# (label, CASES index, frozen parameter names, x requires grad, kernels of
# the backward that must not run, kernels that must).
FROZEN = [
    ("frozen gate, up, down", 0, ("gate_proj.weight", "up_proj.weight", "down_proj.weight"), True,
     ("gate_up_weight_grad", "down_weight_grad"), ("down_grad", "input_grad")),
    ("x without gradient", 0, (), False, ("input_grad",),
     ("down_grad", "gate_up_weight_grad", "down_weight_grad")),
    ("frozen gate only (up trainable)", 0, ("gate_proj.weight",), True, (),
     ("gate_up_weight_grad", "down_weight_grad", "input_grad")),
    ("frozen down, x without gradient", 0, ("down_proj.weight",), False,
     ("down_weight_grad", "input_grad"), ("down_grad", "gate_up_weight_grad")),
    ("bias: frozen weights, biases trainable", 1,
     ("gate_proj.weight", "up_proj.weight", "down_proj.weight"), True,
     ("gate_up_weight_grad", "down_weight_grad"), ("bias_grad", "input_grad")),
    ("bias: frozen biases", 1, ("gate_proj.bias", "up_proj.bias", "down_proj.bias"), True,
     ("bias_grad",), ("gate_up_weight_grad", "down_weight_grad", "input_grad")),
]
GRAD_NAMES = {"gate_proj.weight": "d_gate", "up_proj.weight": "d_up",
              "down_proj.weight": "d_down", "gate_proj.bias": "d_gate_bias",
              "up_proj.bias": "d_up_bias", "down_proj.bias": "d_down_bias"}


def frozen(dtype=torch.bfloat16, tokens=(2, 37)):
    """Gradients only where asked: the parameters that do not require grad
    keep .grad None, x's .grad is None when x does not require it, every
    other gradient is judged by the error bound as in compare(), and the
    backward's kernels (CUDA kernels under torch.profiler, by name) skip
    the weight-, bias- or input-gradient GEMMs nobody asked for."""
    from torch.profiler import ProfilerActivity, profile
    for label, case, frozen_names, x_grad, absent, present in FROZEN:
        try:
            name, class_name, extra = CASES[case]
            original, config = random_mlp(name, class_name, extra, dtype)
            fused, _ = patched(original, config)
            for n, p in fused.named_parameters():
                p.requires_grad_(n not in frozen_names)
            x = torch.randn(*tokens, D, device="cuda", dtype=dtype)
            dy = torch.randn(*tokens, D, device="cuda", dtype=dtype)
            inputs = judge_inputs(original, x, dy)
            ref = judge.reference(fused.activation, dtype, inputs, 1.0, 1.0)
            judge.poison_free_memory()
            xx = x.detach().clone().requires_grad_(x_grad)
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                y = fused(xx)
                y.backward(dy)
                torch.cuda.synchronize()
            kernels = {e.name for e in prof.events() if "_backward_k" in e.name}
            grads = dict(fused.named_parameters())
            nones = [n for n, p in grads.items() if p.grad is None]
            report(f"{label}: .grad None exactly where not asked",
                   sorted(nones) == sorted(frozen_names) and (xx.grad is None) == (not x_grad),
                   f"None: {nones}, x.grad {'None' if xx.grad is None else 'set'}")
            computed = {"y": y.detach().reshape(-1, D)}
            if x_grad:
                computed["dx"] = xx.grad.reshape(-1, D)
            for n, p in grads.items():
                if p.grad is not None:
                    computed[GRAD_NAMES[n]] = p.grad.t() if p.grad.dim() == 2 else p.grad
            ratios = {n: judge.worst_ratio(computed[n], *ref[n]) for n in computed}
            worst = max(r for r, _ in ratios.values())
            report(f"{label}: the gradients asked for within the bound",
                   worst <= 1.0 and all(bad == 0 for _, bad in ratios.values()),
                   " ".join(f"{n} {r:.3f}" for n, (r, _) in ratios.items()))
            # The kernel op of each: the name less its variant's suffix
            # (_small_tokens[_upto32], _upto256: a range of T; _splitk2: K
            # in slices, with the fill that zeroes its counters).
            ran = sorted({re.sub(r"_(small_tokens(_upto\d+)?|upto\d+(_splitk\d+)?)(_zero_counters)?$", "", k)
                          for k in kernels})
            report(f"{label}: kernels skipped as asked",
                   not any(k.endswith(a) for a in absent for k in ran)
                   and all(any(k.endswith(q) for k in ran) for q in present),
                   f"ran {[k.split('_backward_')[1] for k in ran]}")
        except Exception as error:
            report(label, False, f"{type(error).__name__}: {str(error)[:300]}")


def print_table():
    print("\nworst error/bound per output (fmlp; HF eager in parentheses; pass: <= 1)")
    names = judge.OUTPUTS
    print(f"{'module':11s} {'dtype':9s} " + " ".join(f"{n:>17s}" for n in names))
    for label, dtype, mine, hf in TABLE:
        cells = [f"{mine[n][0]:7.2g} ({hf[n][0]:7.2g})" if n in mine else f"{'-':>17s}"
                 for n in names]
        print(f"{label:11s} {str(dtype)[6:]:9s} " + " ".join(cells))
    print()


def compiled_matches_eager(label, fused, x, dy):
    """torch.compile(fused, fullgraph=True): no graph break, and y and dx
    equal to the eager module's. Returns the compiled module (None when it
    failed)."""
    try:
        torch._dynamo.reset()
        compiled = torch.compile(fused, fullgraph=True)
        xc = x.detach().clone().requires_grad_(True)
        yc = compiled(xc)
        yc.backward(dy)
        xe = x.detach().clone().requires_grad_(True)
        ye = fused(xe)
        ye.backward(dy)
        report(label, torch.equal(yc.detach(), ye.detach()) and torch.equal(xc.grad, xe.grad),
               f"max |dx diff| {(xc.grad - xe.grad).abs().max().item():.2e}")
        return compiled
    except Exception as error:
        report(label, False, f"{type(error).__name__}: {str(error)[:400]}")
        return None


def modules():
    kept = None
    for label, class_name, extra in CASES:
        for dtype in (torch.bfloat16, torch.float32):
            try:
                result = compare(label, class_name, extra, dtype)
                if label == "llama" and dtype == torch.bfloat16:
                    kept = result
            except Exception as error:  # reported, then the next case
                report(f"{label} {dtype}", False, f"{type(error).__name__}: {error}")
    # Decode and small batches (T <= 16: K1 and K2's small_tokens kernels;
    # at (1024, 2816) their 32-token ones to T = 32), the first T past
    # each range, and T = 300 (split-K and narrow token variants).
    for tokens in ((1, 1), (1, 3), (2, 8), (1, 17), (1, 32), (1, 33), (3, 100)):
        for label, class_name, extra in (CASES[0], CASES[1], CASES[4]):
            try:
                compare(label, class_name, extra, torch.bfloat16, tokens)
            except Exception as error:
                report(f"{label} T={tokens}", False, f"{type(error).__name__}: {error}")
    print_table()
    fused, x, dy = kept
    report("state_dict keys unchanged", list(fused.state_dict()) ==
           ["gate_proj.weight", "up_proj.weight", "down_proj.weight"], str(list(fused.state_dict())))
    checks(fused, x, dy)
    frozen()
    classes()


def fallbacks():
    """An x the kernels cannot take (on the CPU; float64) runs Hugging Face's
    own forward, as the unpatched model would, with one UnfusedWarning
    saying why: y, dx and every gradient equal the unpatched module's bit
    for bit (the same projections called). Control: the same module on
    CUDA in bf16 warns nothing and runs fmlp's kernels."""
    import warnings
    from torch.profiler import ProfilerActivity, profile
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    label, class_name, extra = CASES[0]
    original, config = random_mlp(label, class_name, extra, torch.bfloat16)
    fused, _ = patched(original, config)
    for name, device, dtype, why in (("cpu bfloat16", "cpu", torch.bfloat16, "x is on cpu"),
                                     ("cpu float32", "cpu", torch.float32, "x is on cpu"),
                                     ("cuda float64", "cuda", torch.float64,
                                      "x is torch.float64")):
        try:
            ours = copy.deepcopy(fused).to(device, dtype)
            theirs = copy.deepcopy(original).to(device, dtype)
            x = torch.randn(2, 5, D, device=device, dtype=dtype)
            dy = torch.randn_like(x)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                mine = run(ours, x, dy)
                run(ours, x, dy)  # a second call warns no more
            hf = run(theirs, x, dy)
            unfused = [str(w.message) for w in caught if issubclass(w.category, fmlp.UnfusedWarning)]
            report(f"fallback {name}: one warning saying why",
                   len(unfused) == 1 and why in unfused[0], unfused[0][:90] if unfused else "none")
            same = (torch.equal(mine[0], hf[0]) and torch.equal(mine[1], hf[1])
                    and all(torch.equal(mine[2][n], hf[2][n]) for n in hf[2]))
            report(f"fallback {name}: y, dx, gradients HF's bit for bit", same)
        except Exception as error:
            report(f"fallback {name}", False, f"{type(error).__name__}: {str(error)[:300]}")
    x = torch.randn(2, 5, D, device="cuda", dtype=torch.bfloat16)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fused(x)
            torch.cuda.synchronize()
    ran = [e.name for e in prof.events() if "_forward" in e.name and "gate_up" in e.name]
    warned = [w for w in caught if issubclass(w.category, fmlp.UnfusedWarning)]
    report("control: cuda bfloat16 runs fused, no warning", bool(ran) and not warned,
           f"kernels {sorted(set(ran))[:2]}, warnings {len(warned)}")


# The (D, H) of tiny()'s blocks: Hugging Face's model testers (LlamaModelTester
# and most others: hidden_size 32, intermediate_size 37), and D = 12.
TINY_WIDTHS = ((32, 37), (12, 40))


def tiny():
    """The blocks of Hugging Face's own test models, whose odd widths no
    tensor map can address (37 bf16 elements: 74-byte rows): outputs and
    gradients judged as in modules(), eager and at decode T."""
    global D, H
    for D, H in TINY_WIDTHS:
        for label, class_name, extra in (CASES[0], CASES[1], CASES[4]):
            for dtype in (torch.bfloat16, torch.float32):
                for tokens in ((2, 37), (1, 1), (3, 100)):
                    try:
                        compare(label, class_name, extra, dtype, tokens, f" D={D} H={H}")
                    except Exception as error:
                        report(f"{label} D={D} H={H} {dtype} T={tokens}", False,
                               f"{type(error).__name__}: {error}")


def classes():
    """patch_classes before construction: a Llama built afterwards has
    fmlp's MLPs and trains; restore_classes brings the originals back."""
    from transformers.models.llama import modeling_llama
    original = modeling_llama.LlamaMLP
    originals = fmlp.patch_classes()
    try:
        model = small_llama(torch.bfloat16)
        kinds = {type(layer.mlp).__name__ for layer in model.model.layers}
        tokens = torch.randint(0, 1000, (2, 64), device="cuda")
        loss = model(input_ids=tokens, labels=tokens, use_cache=False).loss
        loss.backward()
        grads_finite = all(torch.isfinite(p.grad).all().item() for p in model.parameters()
                           if p.grad is not None)
        report("patch_classes: a Llama built afterwards runs fmlp's MLPs",
               kinds == {"FusedGatedMLP"} and grads_finite, f"{kinds}, loss {loss.item():.3f}")
    finally:
        fmlp.restore_classes(originals)
    report("restore_classes brings LlamaMLP back", modeling_llama.LlamaMLP is original)


def checks(fused, x, dy):
    bundle = str(fmlp.modules._bundle_for(fused.block_spec(x)))
    params = fused._params()
    rows = x.reshape(-1, D)
    # Weights used in place: the op's parameters are the Linear weights
    # themselves, and a forward allocates y and the saved activations only.
    report("weights passed in place (data_ptr)",
           [p.data_ptr() for p in params] ==
           [fused.gate_proj.weight.data_ptr(), fused.up_proj.weight.data_ptr(),
            fused.down_proj.weight.data_ptr()])
    saved_arg = next(a for a in fmlp.ops._manifest(bundle).entry("forward").arguments
                     if a["name"] == "saved")
    saved_columns = math.prod(saved_arg["shape"][1:])
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    xx = x.detach().clone().requires_grad_(True)
    y = fused(xx)
    grown = torch.cuda.memory_allocated() - before - xx.numel() * xx.element_size()
    expected = y.numel() * y.element_size() + rows.shape[0] * saved_columns * y.element_size()
    report("forward allocates y and saved only (no weight copies)",
           grown <= expected + 4096, f"{grown} bytes, y + saved = {expected}")
    del y
    # opcheck: schema, fake tensors, autograd registration, AOT dispatch.
    detached = fmlp.ops.parameters([p.detach() for p in params])
    arguments = fmlp.ops.parameters(params)
    for name, op, args in [
            ("forward (no input requires grad)", torch.ops.fmlp.forward, (bundle, rows.detach(), *detached)),
            ("forward_nograd", torch.ops.fmlp.forward_nograd, (bundle, rows.detach(), *detached))]:
        try:
            torch.library.opcheck(op, args)
            report(f"opcheck fmlp::{name}", True)
        except Exception as error:
            report(f"opcheck fmlp::{name}", False, f"{type(error).__name__}: {str(error)[:400]}")
    try:
        with torch.no_grad():
            _, saved = torch.ops.fmlp.forward(bundle, rows, *arguments)
        torch.library.opcheck(torch.ops.fmlp.backward,
                              (bundle, rows, *detached, dy.reshape(-1, D), saved,
                               [True] * 4 + [False] * 3))
        report("opcheck fmlp::backward", True)
        # Gradients partly wanted: the others are empty tensors.
        with torch.no_grad():
            _, saved = torch.ops.fmlp.forward(bundle, rows, *arguments)
        torch.library.opcheck(torch.ops.fmlp.backward,
                              (bundle, rows, *detached, dy.reshape(-1, D), saved,
                               [True, False, True, False, False, False, False]))
        report("opcheck fmlp::backward, gradients of x and up only", True)
    except Exception as error:
        report("opcheck fmlp::backward", False, f"{type(error).__name__}: {str(error)[:400]}")
    # With gradients: everything but AOT dispatch passes; AOT dispatch fails
    # by design (README): opcheck calls fmlp::forward directly and keeps its
    # `saved` output, which the backward then overwrites with dG and dU. The
    # modules drop `saved` (torch.compile below traces their backward).
    grad_args = (bundle, rows.detach().requires_grad_(True), *arguments)
    try:
        torch.library.opcheck(torch.ops.fmlp.forward, grad_args,
                              test_utils=("test_schema", "test_autograd_registration",
                                          "test_faketensor"))
        report("opcheck fmlp::forward with gradients (schema, autograd, fake)", True)
    except Exception as error:
        report("opcheck fmlp::forward with gradients", False,
               f"{type(error).__name__}: {str(error)[:400]}")
    try:
        torch.library.opcheck(torch.ops.fmlp.forward, grad_args, test_utils=("test_aot_dispatch_dynamic",))
        report("opcheck fmlp::forward AOT dispatch with gradients (expected to fail)", False,
               "it passes now: update the README and this check")
    except Exception as error:
        report("opcheck fmlp::forward AOT dispatch with gradients fails as expected",
               "was invalid, but is output" in str(error), str(error)[:160])
    # Second backward through one forward, and double backward: refused.
    xx = x.detach().clone().requires_grad_(True)
    y = fused(xx)
    y.backward(dy, retain_graph=True)
    try:
        y.backward(dy)
        report("second backward refused", False, "no error")
    except RuntimeError as error:
        report("second backward refused", "second backward" in str(error), str(error)[:110])
    xx = x.detach().clone().requires_grad_(True)
    try:
        (g,) = torch.autograd.grad(fused(xx), xx, dy, create_graph=True)
        report("double backward refused", False, "no error")
    except RuntimeError as error:
        report("double backward refused", "double backward" in str(error), str(error)[:110])
    # An empty batch (an MoE expert no token was routed to): y is [0, D] and
    # every weight gradient exactly zero (the runtime zeroes them; the
    # allocator's free memory is NaN first, so a gradient left unwritten
    # fails).
    judge.poison_free_memory()
    x0 = rows[:0].detach().clone().requires_grad_(True)
    y0 = fused(x0)
    grads0 = torch.autograd.grad(y0, [x0, *params], torch.zeros_like(y0))
    nonzero = [torch.count_nonzero(g).item() for g in grads0[1:]]
    report("empty batch: y [0, D], weight gradients exactly zero",
           tuple(y0.shape) == (0, D) and tuple(grads0[0].shape) == (0, D) and nonzero == [0, 0, 0],
           f"y {tuple(y0.shape)}, non-zero gradient elements {nonzero}")
    # Non-contiguous x and leading batch dimensions.
    xt = x.reshape(-1, D).t().contiguous().t()  # same values, column-major
    with torch.no_grad():
        report("non-contiguous x gives the same y", torch.equal(fused(xt), fused(x.reshape(-1, D))))
        report("x [2, 37, D] gives the rows of x [74, D]",
               torch.equal(fused(x).reshape(-1, D), fused(x.reshape(-1, D))))
    # Mismatches: clear errors.
    for label, bad, kind in [("dtype", x.float(), TypeError), ("device", x.cpu(), RuntimeError),
                             ("shape", x[..., :D // 2], ValueError)]:
        try:
            fused(bad)
            report(f"{label} mismatch refused", False, "no error")
        except kind as error:
            report(f"{label} mismatch refused", True, str(error)[:100])
    compiled_matches_eager("torch.compile(fullgraph=True) forward+backward", fused, x, dy)


def small_llama(dtype, layers=2, device="cuda"):
    from transformers import LlamaConfig, LlamaForCausalLM
    config = LlamaConfig(hidden_size=D, intermediate_size=H, num_hidden_layers=layers,
                         num_attention_heads=8, num_key_value_heads=8, vocab_size=1000,
                         max_position_embeddings=256)
    torch.manual_seed(0)
    return LlamaForCausalLM(config).to(device, dtype)


def train_losses(model, tokens, steps, lr=1e-4):
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    losses = []
    for step in range(steps):
        loss = model(input_ids=tokens[step], labels=tokens[step], use_cache=False).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    return losses


def train(steps=30):
    """Per-step losses of HF and of the patched model in one dtype, and of
    HF in float64 from the same start: what the precision explains is HF's
    own distance from the float64 run; fmlp passes when its distance from
    the float64 run is at most twice that.

    In float32 these distances are a few ulps of the loss, and some of
    PyTorch's default kernels in the model around the MLPs move them by an
    ulp or two from run to run, which alone decided the check now and then
    (bench/NOTES.md item 41). So PyTorch runs its deterministic kernels
    here (cuBLAS's too, by CUBLAS_WORKSPACE_CONFIG before its first use),
    and a second HF run must repeat the first bit for bit: the check's
    noise floor is zero."""
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(True)
    for dtype in (torch.float32, torch.bfloat16):
        base = small_llama(dtype)
        tokens = torch.randint(0, 1000, (steps, 4, 128), device="cuda")
        exact = train_losses(copy.deepcopy(base).double(), tokens, steps)
        hf = train_losses(copy.deepcopy(base), tokens, steps)
        report(f"train {dtype}: HF's run repeats bit for bit",
               train_losses(copy.deepcopy(base), tokens, steps) == hf)
        model = copy.deepcopy(base)
        fmlp.patch_model(model)
        ours = train_losses(model, tokens, steps)
        report(f"train {dtype}: fmlp within 2x HF's distance from float64",
               *losses_within(f"train {dtype}", exact, hf, ours))


def losses_within(label, exact, hf, ours):
    """Per-step losses of fmlp's run and of HF's (or PEFT's) against the
    float64 run's from the same start, printed; (ok, detail): fmlp passes
    when its worst per-step distance from float64 is at most twice HF's
    (train())."""
    def worst(a, b):
        return max(abs(u - v) for u, v in zip(a, b))
    print(f"{label}: loss {hf[0]:.4f} -> {hf[-1]:.4f} (HF), {ours[0]:.4f} -> {ours[-1]:.4f} "
          f"(fmlp); worst per-step |fmlp - HF| {worst(ours, hf):.2e}; from float64: "
          f"HF {worst(hf, exact):.2e}, fmlp {worst(ours, exact):.2e}")
    for name, values in (("float64", exact), ("HF", hf), ("fmlp", ours)):
        print(f"  per step {name:8s}:", " ".join(f"{v:.5f}" for v in values))
    return (worst(ours, exact) <= 2 * worst(hf, exact),
            f"{worst(ours, exact):.2e} <= 2 x {worst(hf, exact):.2e}")


def graph_callables():
    torch.manual_seed(0)
    original, config = original_mlp("llama", "LlamaMLP", dict(hidden_act="silu"))
    fused, _ = patched(original.to("cuda", torch.bfloat16), config)
    x = torch.randn(74, D, device="cuda", dtype=torch.bfloat16)
    dy = torch.randn(74, D, device="cuda", dtype=torch.bfloat16)
    print("capturing forward and backward with make_graphed_callables", flush=True)
    graphed = torch.cuda.make_graphed_callables(fused, (x.clone().requires_grad_(True),))
    xg = x.clone().requires_grad_(True)
    yg = graphed(xg)
    yg.backward(dy)
    xe = x.clone().requires_grad_(True)
    ye = fused(xe)
    ye.backward(dy)
    report("make_graphed_callables forward+backward",
           torch.equal(yg, ye) and torch.equal(xg.grad, xe.grad))


def graph_step(steps=5):
    """One training step (forward, backward, AdamW) of the patched small
    Llama captured in one CUDA graph, replayed `steps` times; against the
    same steps run eagerly from the same start."""
    base = small_llama(torch.bfloat16)
    fmlp.patch_model(base)
    tokens = torch.randint(0, 1000, (steps, 4, 128), device="cuda")
    eager = copy.deepcopy(base)
    opt = torch.optim.AdamW(eager.parameters(), lr=1e-4, capturable=True)
    eager_losses = []
    for s in range(steps):
        loss = eager(input_ids=tokens[s], labels=tokens[s], use_cache=False).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=False)
        eager_losses.append(loss.item())
    model = copy.deepcopy(base)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, capturable=True)
    static = tokens[0].clone()

    def step():
        loss = model(input_ids=static, labels=static, use_cache=False).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=False)
        return loss
    # Warm up on a side stream (allocations, lazy init), then undo its update.
    start = copy.deepcopy(model.state_dict())
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            step()
    torch.cuda.current_stream().wait_stream(side)
    model.load_state_dict(start)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, capturable=True)
    with torch.cuda.stream(side):  # optimizer state made outside the capture
        step()
    torch.cuda.current_stream().wait_stream(side)
    model.load_state_dict(start)
    for state in opt.state.values():
        for v in state.values():
            v.zero_()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_loss = step()
    graph_losses = []
    for s in range(steps):
        static.copy_(tokens[s])
        graph.replay()
        graph_losses.append(static_loss.item())
    diff = max(abs(a - b) for a, b in zip(eager_losses, graph_losses))
    print("  eager :", " ".join(f"{v:.4f}" for v in eager_losses))
    print("  graph :", " ".join(f"{v:.4f}" for v in graph_losses))
    report("training step captured in a CUDA graph and replayed", diff <= 1e-2,
           f"worst loss difference {diff:.2e} over {steps} steps")


def precisions():
    """fp32 blocks at each precision (docs/precision.md): the module's
    precision reaches the bundle and its repr, each result is within its
    own bound (judge.reference(contraction=...); highest's is strict
    fp32's), and the controls fail: one element of y moved by twice its
    bound (tf32's bound on y exceeds 0.5 at D = 1024), and tf32's result
    judged by tf32x3's bound (at narrower widths: tf32_by_tf32x3_bound;
    at these it is printed). For a module without its own, PyTorch's
    'high' setting picks tf32 and 'highest' highest, under
    torch.compile(fullgraph=True) and in a CUDA graph too."""
    for label, class_name, extra in CASES[:2]:
        original, config = random_mlp(label, class_name, extra, torch.float32)
        fused, _ = patched(original, config)
        x = torch.randn(2, 37, D, device="cuda")
        dy = torch.randn(2, 37, D, device="cuda")
        inputs = judge_inputs(original, x, dy)
        results = {}
        for precision in ("highest", "ieee", "tf32", "tf32x3"):
            fused.precision = precision
            report(f"{label} {precision}: repr", f"fp32_precision=({precision}; module)" in repr(fused),
                   repr(fused).splitlines()[0])
            judge.poison_free_memory()
            results[precision] = ours = run(fused, x, dy)
            ref = judge.reference(fused.activation, torch.float32, inputs, 1.0, 1.0,
                                  contraction=precision)
            for name, (ratio, nonfinite) in judged(ref, *ours).items():
                report(f"{label} {precision}: {name}", ratio <= 1.0 and nonfinite == 0,
                       f"worst error/bound {ratio:.3f}")
            exact, bound = ref["y"]
            moved = ours[0].clone()
            moved.view(-1)[7] = (exact.view(-1)[7] + 2 * bound.view(-1)[7]).float()
            control = judged(ref, moved, ours[1], ours[2])["y"][0]
            report(f"{label} {precision}: control (y moved by 2 bounds) fails", control > 1.0,
                   f"worst error/bound {control:.1f}")
        ref = judge.reference(fused.activation, torch.float32, inputs, 1.0, 1.0,
                              contraction="tf32x3")
        worst = max(r for r, _ in judged(ref, *results["tf32"]).values())
        # Printed, not a control at these widths: tf32_by_tf32x3_bound's.
        print(f"note  {label}: tf32 by tf32x3's bound (D={D} H={H})".ljust(58)
              + f"worst error/bound {worst:.2f}", flush=True)
        if label == "llama":
            lean_copies(fused)
        # No precision of its own: PyTorch's setting decides.
        fused.precision = None
        previous = torch.get_float32_matmul_precision()
        try:
            torch.set_float32_matmul_precision("high")
            y_high = fused(x)
            torch.set_float32_matmul_precision("highest")
            y_highest = fused(x)
        finally:
            torch.set_float32_matmul_precision(previous)
        report(f"{label}: 'high' runs tf32", torch.equal(y_high, results["tf32"][0]))
        report(f"{label}: 'highest' runs highest", torch.equal(y_highest, results["highest"][0]))
        # PyTorch's setting read inside forward: no graph break under
        # torch.compile(fullgraph=True), and a CUDA graph captures it.
        compiled = compiled_matches_eager(
            f"{label}: torch.compile(fullgraph=True), PyTorch's default setting", fused, x, dy)
        if compiled is not None:
            # The setting is read at trace time; changing it retraces.
            torch.set_float32_matmul_precision("high")
            try:
                with torch.no_grad():
                    y_compiled_high = compiled(x)
            finally:
                torch.set_float32_matmul_precision(previous)
            report(f"{label}: compiled, then 'high': retraced, runs tf32",
                   torch.equal(y_compiled_high, results["tf32"][0]))
        static_x = x.detach().clone()
        with torch.no_grad():
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                fused(static_x)  # warm-up off the capture
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                static_y = fused(static_x)
            other = torch.randn_like(static_x)
            static_x.copy_(other)
            graph.replay()
            report(f"{label}: CUDA graph replay, PyTorch's default setting",
                   torch.equal(static_y, fused(other)))
    tf32_by_tf32x3_bound()


def tf32_by_tf32x3_bound():
    """The tf32 modes' negative control: a tf32 result judged by tf32x3's
    bound must fail, so that the bound tells a block that ran tf32 from one
    that ran tf32x3. Its margin shrinks as the contractions grow (tf32's
    rounding errors, of either sign, grow about as the square root of their
    length; the bound's tensor-core sums, which truncate, as their length):
    at (1024, 2816) and T = 74 tf32's worst output was 1.12 of tf32x3's
    bound with single k8 steps (session 40), and 0.78 (session 46) once
    tf32x3's kernels summed groups of 4 (sessions 43 and 45), so the
    control runs at CONTROL_WIDTHS, where every contraction is 16 or 22
    times shorter (tf32_control.py: the same control on a block emulated
    on the CPU)."""
    global D, H
    widths = D, H
    D, H = CONTROL_WIDTHS
    try:
        label, class_name, extra = CASES[0]
        original, config = random_mlp(label, class_name, extra, torch.float32)
        fused, _ = patched(original, config)
        fused.precision = "tf32"
        x = torch.randn(2, 37, D, device="cuda")
        dy = torch.randn(2, 37, D, device="cuda")
        inputs = judge_inputs(original, x, dy)
        judge.poison_free_memory()
        ours = run(fused, x, dy)
        worst = {}
        for contraction in ("tf32", "tf32x3"):
            ref = judge.reference(fused.activation, torch.float32, inputs, 1.0, 1.0,
                                  contraction=contraction)
            worst[contraction] = max(r for r, _ in judged(ref, *ours).values())
        report(f"{label} D={D} H={H} tf32: within tf32's bound", worst["tf32"] <= 1.0,
               f"worst error/bound {worst['tf32']:.2f}")
        report(f"{label} D={D} H={H}: control (tf32 by tf32x3's bound) fails",
               worst["tf32x3"] > 1.0, f"worst error/bound {worst['tf32x3']:.2f}")
    finally:
        D, H = widths


def lean_copies(fused):
    """tf32's rounded weight copies (3 D H floats) are passed, allocated,
    only from the T of their first reader (the runtime's
    fmlp_argument_min_tokens; below, the token variants read the weights
    and round them in their stages): the no-grad forward either side of
    those T gives the same bits as a call passing every workspace, is
    within tf32's bound, and allocates at least the copies' bytes less
    below them (a peak under their bytes, which fails when they are
    allocated anyway)."""
    from fmlp import ops
    fused.precision = "tf32"
    inputs = math_layout(dict(fused.named_parameters()))
    copies = 3 * D * H * 4

    def call(x):
        judge.poison_free_memory()
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        with torch.no_grad():
            y = fused(x)
        torch.cuda.synchronize()
        return y, torch.cuda.max_memory_allocated() - before
    for t in (1, 16, 256, 768, 769, 1100):
        x = torch.randn(t, D, device="cuda")
        lean, lean_peak = call(x)
        # The no-grad plan of this module's tf32 bundle, and its copies'
        # first readers' T.
        [plan] = [p for p in ops._plans.values() if p.kind == "forward_nograd"
                  and any(name == "gate_tf32" for name, *_ in p.arguments)]
        first = [f for (name, *_), f in zip(plan.arguments, plan.unused_below)
                 if name.endswith("_tf32")]
        kept, plan.unused_below = plan.unused_below, (0,) * len(plan.unused_below)
        try:
            full, full_peak = call(x)
        finally:
            plan.unused_below = kept
        report(f"tf32 no-grad T={t}: copies read from T={sorted(set(first))}, same bits",
               torch.equal(lean, full), f"extra peak {lean_peak / 2**20:.1f} MiB, "
               f"{full_peak / 2**20:.1f} with every workspace")
        # The call's own buffers (y, the [T, H] workspace, split-K's) stay
        # under the copies' bytes at these T: a peak of at least the
        # copies' says they were allocated.
        if t < min(first) or t >= max(first):
            report(f"tf32 no-grad T={t}: copies' {copies / 2**20:.0f} MiB "
                   + ("not allocated" if t < min(first) else "allocated"),
                   (lean_peak < copies) == (t < min(first)),
                   f"extra peak {lean_peak / 2**20:.1f} MiB")
        inputs.update(x=x, dy=torch.randn_like(x))
        ref = judge.reference(fused.activation, torch.float32, inputs, 1.0, 1.0,
                              contraction="tf32")
        ratio, nonfinite = judge.worst_ratio(lean, *ref["y"])
        report(f"tf32 no-grad T={t}: y within tf32's bound", ratio <= 1.0 and nonfinite == 0,
               f"worst error/bound {ratio:.3f}")


def autocast():
    """Under torch.autocast (float32 weights, as Hugging Face's Trainer
    with bf16=True or fp16=True keeps them) the fused block runs as the
    original does: every projection in autocast's dtype, so x, weights and
    biases cast to it, y in it, gradients reaching the float32 weights and
    x in float32. Judged by the error bound of a block stored in that
    dtype on the cast inputs (what both implementations multiply), beside
    HF's own autocast run; an x already in the autocast dtype (the output
    of an earlier autocast op) runs the same bits; the no-grad path and
    torch.compile(fullgraph=True) give the same y."""
    for dtype in (torch.bfloat16, torch.float16):
        for case, tokens in ((CASES[0], (2, 37)), (CASES[1], (2, 37)), (CASES[0], (1, 1))):
            label, class_name, extra = case
            name = f"autocast {str(dtype)[6:]} {label} T={tokens[0] * tokens[1]}"
            try:
                original, config = random_mlp(label, class_name, extra, torch.float32)
                fused, _ = patched(original, config)
                x = torch.randn(*tokens, D, device="cuda")
                dy = torch.randn(*tokens, D, device="cuda", dtype=dtype)

                def run_autocast(module, x_in):
                    x_in = x_in.detach().clone().requires_grad_(True)
                    for p in module.parameters():
                        p.grad = None
                    with torch.autocast("cuda", dtype=dtype):
                        y = module(x_in)
                    y.backward(dy)
                    return y.detach(), x_in.grad, {n: p.grad for n, p in module.named_parameters()}

                judge.poison_free_memory()
                ours = run_autocast(fused, x)
                theirs = run_autocast(original, x)
                dtypes = ([ours[0].dtype, ours[1].dtype] + [g.dtype for g in ours[2].values()])
                report(f"{name}: y in {str(dtype)[6:]}, gradients float32 as HF's",
                       dtypes == [dtype] + [torch.float32] * (1 + len(ours[2]))
                       and theirs[0].dtype == dtype, str(dtypes))
                cast = {n: p.detach().to(dtype) for n, p in original.named_parameters()}
                inputs = {"x": x.reshape(-1, D).to(dtype), "dy": dy.reshape(-1, D)}
                inputs.update(math_layout(cast))
                ref = judge.reference(fused.activation, dtype, inputs)
                mine, hf = judged(ref, *ours), judged(ref, *theirs)
                for output, (ratio, nonfinite) in mine.items():
                    report(f"{name}: {output}", ratio <= 1.0 and nonfinite == 0,
                           f"fmlp worst error/bound {ratio:.3f}   (HF autocast {hf[output][0]:.3f})")
                moved = ours[0].clone()
                moved.view(-1)[0] += 0.5
                control = judged(ref, moved, ours[1], ours[2])["y"][0]
                report(f"{name}: control (y moved) fails", control > 1.0,
                       f"worst error/bound {control:.1f}")
                with torch.autocast("cuda", dtype=dtype):
                    y_low = fused(x.to(dtype))
                    with torch.no_grad():
                        y_nograd = fused(x)
                report(f"{name}: x already {str(dtype)[6:]} runs the same bits",
                       torch.equal(y_low.detach(), ours[0]))
                report(f"{name}: no-grad y equals forward y", torch.equal(y_nograd, ours[0]))
                torch._dynamo.reset()
                compiled = torch.compile(fused, fullgraph=True)
                with torch.autocast("cuda", dtype=dtype):
                    y_compiled = compiled(x)
                report(f"{name}: torch.compile(fullgraph=True) y equals eager",
                       torch.equal(y_compiled.detach(), ours[0]))
            except Exception as error:
                report(name, False, f"{type(error).__name__}: {str(error)[:400]}")


def regimes():
    """Ways Hugging Face fine-tuning and serving call the MLP that the
    other modes do not: gradient checkpointing (model.gradient_checkpointing_enable(),
    reentrant and not: the forward runs again inside the backward) gives
    the gradients of the same model without it bit for bit (the kernels
    are deterministic), torch.compile with dynamic shapes (one graph
    for every T) gives eager's y and dx at each T, and so do CUDA graph
    trees (reduce_overhead) and torch.export (exported)."""
    # PyTorch's deterministic kernels for the model around the MLPs (as in
    # train()); HF's own model must then repeat its gradients bit for bit
    # under checkpointing, or the comparison would mean nothing.
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(True)
    tokens = torch.randint(0, 1000, (2, 96), device="cuda")

    def grads(model):
        model.zero_grad(set_to_none=True)
        model(input_ids=tokens, labels=tokens, use_cache=False).loss.backward()
        return [p.grad.clone() for p in model.parameters()]

    hf = small_llama(torch.bfloat16)
    patched_model = copy.deepcopy(hf)
    fmlp.patch_model(patched_model)
    for name, base in (("HF", hf), ("fmlp", patched_model)):
        plain = grads(base)
        for reentrant in (False, True):
            label = f"{name}: gradient checkpointing (use_reentrant={reentrant})"
            try:
                model = copy.deepcopy(base)
                model.train()
                model.gradient_checkpointing_enable(
                    gradient_checkpointing_kwargs={"use_reentrant": reentrant})
                checkpointed = grads(model)
                report(f"{label}: gradients equal the plain run's",
                       all(torch.equal(a, b) for a, b in zip(checkpointed, plain)))
            except Exception as error:
                report(label, False, f"{type(error).__name__}: {str(error)[:400]}")
    # Control: other tokens give other gradients (the comparison can fail).
    first = grads(patched_model)
    tokens = torch.randint(0, 1000, (2, 96), device="cuda")
    report("control: other tokens, other gradients",
           not all(torch.equal(a, b) for a, b in zip(grads(patched_model), first)))
    torch.use_deterministic_algorithms(False)

    torch.manual_seed(0)
    original, config = original_mlp("llama", "LlamaMLP", dict(hidden_act="silu"))
    fused, _ = patched(original.to("cuda", torch.bfloat16), config)
    try:
        torch._dynamo.reset()
        compiled = torch.compile(fused, dynamic=True, fullgraph=True)
        for t in (37, 1, 300, 16):
            x = torch.randn(t, D, device="cuda", dtype=torch.bfloat16)
            dy = torch.randn(t, D, device="cuda", dtype=torch.bfloat16)
            xc, xe = (x.clone().requires_grad_(True) for _ in range(2))
            yc, ye = compiled(xc), fused(xe)
            yc.backward(dy)
            ye.backward(dy)
            report(f"torch.compile(dynamic=True) T={t}: y and dx equal eager's",
                   torch.equal(yc.detach(), ye.detach()) and torch.equal(xc.grad, xe.grad))
    except Exception as error:
        report("torch.compile(dynamic=True)", False, f"{type(error).__name__}: {str(error)[:400]}")
    reduce_overhead(fused)
    exported(fused)


def reduce_overhead(fused):
    """torch.compile(mode="reduce-overhead"): Inductor's CUDA graph trees,
    what serving stacks compile decode with and some trainers use. Each
    call after the warm-up replays a graph on static copies of its inputs,
    and the backward writes dG and dU over saved tensors the graph owns:
    every call's y (and, training, dx and the weight gradients) must equal
    the eager module's bit for bit, with new inputs at every step and T
    changing between steps (a new graph per T)."""
    parameters = list(fused.parameters())

    def step(module, x, dy):
        for p in parameters:
            p.grad = None
        x = x.detach().clone().requires_grad_(True)
        y = module(x)
        y.backward(dy)
        return [y.detach().clone(), x.grad.clone()] + [p.grad.clone() for p in parameters]

    try:
        torch._dynamo.reset()
        compiled = torch.compile(fused, mode="reduce-overhead", fullgraph=True)
        equal, last = [], None
        with torch.no_grad():
            for t in (1, 1, 1, 1, 16, 16, 16, 37, 1):
                x = torch.randn(t, D, device="cuda", dtype=torch.bfloat16)
                y = compiled(x).clone()  # the next replay overwrites its output
                equal.append(torch.equal(y, fused(x)))
                last = (x, y)
        report("reduce-overhead no-grad, T = 1 x 4, 16 x 3, 37, 1: y equals eager's",
               all(equal), str(equal))
        # Control: y of other inputs differs (the comparison can fail).
        x, y = last
        with torch.no_grad():
            report("reduce-overhead control: another x, another y",
                   not torch.equal(y, fused(torch.randn_like(x))))
        torch._dynamo.reset()
        compiled = torch.compile(fused, mode="reduce-overhead", fullgraph=True)
        equal = []
        for t in (74, 74, 74, 74, 16, 16, 16):
            x = torch.randn(t, D, device="cuda", dtype=torch.bfloat16)
            dy = torch.randn(t, D, device="cuda", dtype=torch.bfloat16)
            ours, eager = step(compiled, x, dy), step(fused, x, dy)
            equal.append(all(torch.equal(a, b) for a, b in zip(ours, eager)))
        report("reduce-overhead training, T = 74 x 4, 16 x 3: y, dx, dW equal eager's",
               all(equal), str(equal))
    except Exception as error:
        report("torch.compile(mode='reduce-overhead')", False,
               f"{type(error).__name__}: {str(error)[:400]}")


def exported(fused):
    """torch.export of the no-grad module (what AOTInductor and ExecuTorch
    take): the exported program holds fmlp's op, not a fallback, runs at
    a T other than the example's (T dynamic), and gives eager's y."""
    try:
        example = torch.randn(37, D, device="cuda", dtype=torch.bfloat16)
        tokens = torch.export.Dim("tokens", min=1, max=65536)
        with torch.no_grad():
            program = torch.export.export(fused, (example,), dynamic_shapes=({0: tokens},))
            ops = {str(node.target) for node in program.graph.nodes if node.op == "call_function"}
            report("torch.export: the program calls fmlp's op",
                   any(op.startswith("fmlp.") for op in ops), str(sorted(ops))[:200])
            for t in (37, 1, 300):
                x = torch.randn(t, D, device="cuda", dtype=torch.bfloat16)
                report(f"torch.export T={t}: y equals eager's",
                       torch.equal(program.module()(x), fused(x)))
    except Exception as error:
        report("torch.export", False, f"{type(error).__name__}: {str(error)[:400]}")


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "modules"
    {"modules": modules, "train": train, "graph-callables": graph_callables,
     "graph-step": graph_step, "precisions": precisions, "autocast": autocast,
     "regimes": regimes, "tiny": tiny, "fallbacks": fallbacks}[mode]()
    print(f"{len(failures)} failed")
    sys.exit(1 if failures else 0)
