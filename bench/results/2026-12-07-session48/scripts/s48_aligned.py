"""Session 48: an input off its 16-byte boundary on the GPU (the runtime's
FMLP_ERROR_ALIGNMENT, then the op's aligned copies and a second launch):
the op's y and gradients equal those of the aligned call bit for bit, and
a compiled patched module whose up weight is a misaligned view runs (it
raised before). Prints `pass`/`FAIL` lines and a final count."""
import copy
import warnings

import torch
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaMLP

import fmlp

D, H, T = 1024, 2816, 37
torch.manual_seed(0)
failed = passed = 0


def check(ok, what):
    global failed, passed
    print(("pass " if ok else "FAIL ") + what, flush=True)
    passed += bool(ok)
    failed += not ok


def off_boundary(t):
    view = torch.empty(t.numel() + 1, dtype=t.dtype, device=t.device)[1:].view(t.shape)
    return view.copy_(t)


config = LlamaConfig(hidden_size=D, intermediate_size=H, hidden_act="silu",
                     num_attention_heads=8, num_key_value_heads=8)
holder = torch.nn.Module()
holder.mlp = LlamaMLP(config).to("cuda", torch.bfloat16)
fmlp.patch_model(holder, config)
mlp = holder.mlp
bundle = str(mlp._bundle(torch.empty(T, D, device="cuda", dtype=torch.bfloat16),
                         mlp._params()))
weights = [p.detach() for p in mlp._params()]
x = torch.randn(T, D, device="cuda", dtype=torch.bfloat16)
dy = torch.randn(T, D, device="cuda", dtype=torch.bfloat16)

with torch.no_grad():
    y = torch.ops.fmlp.forward_nograd(bundle, x, *fmlp.ops.parameters(weights))
    shifted = [off_boundary(w) if i != 1 else w for i, w in enumerate(weights)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y2 = torch.ops.fmlp.forward_nograd(bundle, off_boundary(x), *fmlp.ops.parameters(shifted))
    check(torch.equal(y, y2), "no-grad: misaligned x, gate, down give the aligned call's y")
    check(len([w for w in caught if "byte boundary" in str(w.message)]) == 3,
          f"no-grad: one warning per copied input ({len(caught)})")


def step(params, x):
    params = [p.clone().requires_grad_(True) if not p.requires_grad else p for p in params]
    y, _ = torch.ops.fmlp.forward(bundle, x, *fmlp.ops.parameters(params))
    y.backward(dy)
    return y, [p.grad for p in params]


ya, ga = step(weights, x)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    leaves = [off_boundary(w.clone()).requires_grad_(True) for w in weights]
    yb, gb = step(leaves, x)
check(torch.equal(ya, yb) and all(torch.equal(a, b) for a, b in zip(ga, gb)),
      "training: misaligned weights give the aligned call's y and gradients")

# A compiled patched module over a misaligned up weight (its guard checks
# only the layout while compiling): against the same module, aligned.
aligned = copy.deepcopy(holder)
holder.mlp.up_proj.weight = torch.nn.Parameter(off_boundary(holder.mlp.up_proj.weight.detach()))
check(holder.mlp.up_proj.weight.data_ptr() % 16 != 0, "the up weight is off its boundary")
compiled = torch.compile(holder.mlp, fullgraph=True)
with torch.no_grad(), warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
        got = compiled(x)
        check(torch.equal(got, aligned.mlp(x)), "compiled, misaligned up weight: the aligned y")
    except Exception as error:  # noqa: BLE001
        check(False, f"compiled, misaligned up weight raised {type(error).__name__}: {error}")
print(f"{passed} passed, {failed} failed")
