"""fmlp's PyTorch modules on a GPU, against Hugging Face's originals
(transformers): outputs and every gradient, opcheck, torch.compile with
fullgraph, CUDA-graph capture, the no-grad path, the second-backward error,
and a small LlamaForCausalLM trained 30 steps with and without the patch.

  FMLP_CACHE_DIR=... python3 python/tests/gpu_modules.py

Bundles come from the cache (compiled where fmlp is built; see
python/tests/make-gpu-cache.sh). Judging: the worst |error| of fmlp and of
the original in the same dtype, each against the original run in float64,
and their ratio (fmlp / original; the same rounding budget gives ~1).
Prints one line per check and exits non-zero if any fails.
"""
import copy
import sys

import torch
from transformers import AutoConfig

import fmlp

D, H = 1024, 2816
failures = []


def report(name, ok, detail):
    print(f"{'pass' if ok else 'FAIL'}  {name:48s} {detail}", flush=True)
    if not ok:
        failures.append(name)


def config_of(model_type, **extra):
    return AutoConfig.for_model(model_type, hidden_size=D, intermediate_size=H,
                                num_attention_heads=8, num_key_value_heads=8,
                                **extra)


def mlp_class(model_type):
    module = __import__(f"transformers.models.{model_type}.modeling_{model_type}",
                        fromlist=["x"])
    return {"llama": "LlamaMLP", "qwen2": "Qwen2MLP", "mistral": "MistralMLP",
            "phi3": "Phi3MLP", "gemma": "GemmaMLP", "falcon_h1": "FalconH1MLP"}[model_type], module


def run(module, x, dy):
    x = x.detach().clone().requires_grad_(True)
    for p in module.parameters():
        p.grad = None
    y = module(x)
    y.backward(dy)
    return [y.detach(), x.grad] + [p.grad for p in module.parameters()]


def compare(label, original, config, dtype, tokens=(2, 37)):
    torch.manual_seed(0)
    original = original.to("cuda", dtype)
    with torch.no_grad():
        for p in original.parameters():
            p.normal_(0, 0.02) if p.dim() == 2 else p.normal_(0, 0.1)
    fused = copy.deepcopy(original)
    wrapper = torch.nn.Module()
    wrapper.mlp = fused
    replaced = fmlp.patch_model(wrapper, config)
    report(f"{label} {dtype}: patched", replaced == 1, f"{replaced} module(s) replaced")
    fused = wrapper.mlp
    x = torch.randn(*tokens, D, device="cuda", dtype=dtype)
    dy = torch.randn(*tokens, D, device="cuda", dtype=dtype)
    reference = copy.deepcopy(original).double()
    ref = run(reference, x.double(), dy.double())
    ours = run(fused, x, dy)
    theirs = run(original, x, dy)
    names = ["y", "dx"] + [n for n, _ in original.named_parameters()]
    for name, r, a, b in zip(names, ref, ours, theirs):
        e_ours = (a.double() - r).abs().max().item()
        e_theirs = (b.double() - r).abs().max().item()
        ratio = e_ours / max(e_theirs, 1e-30)
        finite = torch.isfinite(a).all().item()
        report(f"{label} {dtype}: {name}", finite and ratio <= 4.0,
               f"fmlp err {e_ours:.3e}  HF err {e_theirs:.3e}  ratio {ratio:.2f}")
    # No-grad: the same y, nothing saved.
    with torch.no_grad():
        y_nograd = fused(x)
    report(f"{label} {dtype}: no-grad y equals forward y", torch.equal(y_nograd, ours[0]), "")
    return fused, x, dy



def main():
    if sys.argv[1:] == ["train"]:
        train()
        print(f"{len(failures)} failed")
        sys.exit(1 if failures else 0)
    cases = [
        ("llama", config_of("llama", hidden_act="silu", mlp_bias=False)),
        ("llama+bias", config_of("llama", hidden_act="silu", mlp_bias=True)),
        ("qwen2", config_of("qwen2", hidden_act="silu")),
        ("phi3", config_of("phi3", hidden_act="silu")),
        ("gemma", config_of("gemma", hidden_act="gelu_pytorch_tanh",
                            hidden_activation="gelu_pytorch_tanh", head_dim=128)),
        ("falcon_h1", config_of("falcon_h1", hidden_act="silu", mlp_multipliers=[0.5, 0.25])),
    ]
    fused = x = None
    for label, config in cases:
        model_type = label.split("+")[0]
        name, module = mlp_class(model_type)
        for dtype in (torch.bfloat16, torch.float32):
            try:
                original = getattr(module, name)(config)
                original.config = config
                f, xx, dy = compare(label, original, config, dtype)
                if label == "llama" and dtype == torch.bfloat16:
                    fused, x, dy_llama = f, xx, dy
            except Exception as error:  # reported, then the next case
                report(f"{label} {dtype}", False, f"{type(error).__name__}: {error}")

    # Checkpoint keys unchanged.
    report("state_dict keys unchanged", list(fused.state_dict()) ==
           ["gate_proj.weight", "up_proj.weight", "down_proj.weight"], str(list(fused.state_dict())))
    # Weights used in place.
    bundle = str(fmlp.modules._bundle_for(fused.block_spec(x)))
    params = fused._params()
    rows = x.reshape(-1, D)
    try:
        torch.library.opcheck(torch.ops.fmlp.forward, (bundle, rows.requires_grad_(True), params))
        torch.library.opcheck(torch.ops.fmlp.forward_nograd, (bundle, rows.detach(), params))
        report("opcheck fmlp::forward, fmlp::forward_nograd", True, "")
    except Exception as error:
        report("opcheck", False, f"{type(error).__name__}: {error}")
    # Second backward through one forward: refused.
    xx = x.detach().clone().requires_grad_(True)
    y = fused(xx)
    y.backward(dy_llama, retain_graph=True)
    try:
        y.backward(dy_llama)
        report("second backward refused", False, "no error")
    except RuntimeError as error:
        report("second backward refused", True, str(error).splitlines()[0][:100])
    # torch.compile with fullgraph: no graph break.
    try:
        compiled = torch.compile(fused, fullgraph=True)
        xx = x.detach().clone().requires_grad_(True)
        yc = compiled(xx)
        yc.backward(dy_llama)
        y_eager = fused(x.detach())
        report("torch.compile(fullgraph=True) forward+backward", torch.equal(yc.detach(), y_eager.detach()), "")
    except Exception as error:
        report("torch.compile(fullgraph=True)", False, f"{type(error).__name__}: {str(error)[:300]}")
    train()
    # CUDA graph of forward + backward (last: a failed capture leaves the
    # process's CUDA state unusable).
    try:
        graphed = torch.cuda.make_graphed_callables(fused, (x.detach().clone().requires_grad_(True),))
        xx = x.detach().clone().requires_grad_(True)
        yg = graphed(xx)
        yg.backward(dy_llama)
        x2 = x.detach().clone().requires_grad_(True)
        ye = fused(x2)
        ye.backward(dy_llama)
        report("CUDA graph forward+backward", torch.equal(yg, ye) and torch.equal(xx.grad, x2.grad), "")
    except Exception as error:
        report("CUDA graph", False, f"{type(error).__name__}: {str(error)[:300]}")
    print(f"{len(failures)} failed")
    sys.exit(1 if failures else 0)


def train(steps=30):
    from transformers import LlamaConfig, LlamaForCausalLM
    for dtype in (torch.float32, torch.bfloat16):
        config = LlamaConfig(hidden_size=D, intermediate_size=H, num_hidden_layers=2,
                             num_attention_heads=8, num_key_value_heads=8, vocab_size=1000,
                             max_position_embeddings=256)
        torch.manual_seed(0)
        base = LlamaForCausalLM(config).to("cuda", dtype)
        tokens = torch.randint(0, 1000, (steps, 4, 128), device="cuda")
        losses = {}
        for patched in (False, True):
            model = copy.deepcopy(base)
            if patched:
                fmlp.patch_model(model)
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
            run = []
            for step in range(steps):
                loss = model(input_ids=tokens[step], labels=tokens[step]).loss
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
                run.append(loss.item())
            losses[patched] = run
        diff = max(abs(a - b) for a, b in zip(losses[False], losses[True]))
        eps = torch.finfo(dtype).eps
        print(f"train {dtype}: losses HF {losses[False][0]:.4f} -> {losses[False][-1]:.4f}, "
              f"fmlp {losses[True][0]:.4f} -> {losses[True][-1]:.4f}, worst step difference {diff:.2e} "
              f"(dtype eps {eps:.1e})")
        print("  per step HF  :", " ".join(f"{v:.4f}" for v in losses[False]))
        print("  per step fmlp:", " ".join(f"{v:.4f}" for v in losses[True]))
        report(f"train {dtype}: 30 steps track HF", diff < 0.05 * losses[False][0], f"{diff:.2e}")


if __name__ == "__main__":
    main()
