# One forward + backward of the (1024, 2816) bf16 block at T=8192 through
# fmlp.ops (for ncu to profile one kernel of it).
import torch, fmlp
from fmlp import ops
spec = fmlp.BlockSpec(1024, 2816, "bf16")
bundle = str(fmlp.find_or_compile(spec))
T = 8192
x = torch.randn(T, 1024, device="cuda", dtype=torch.bfloat16)
params = [torch.randn(2816, 1024, device="cuda", dtype=torch.bfloat16) * 0.03,
          torch.randn(2816, 1024, device="cuda", dtype=torch.bfloat16) * 0.03,
          torch.randn(1024, 2816, device="cuda", dtype=torch.bfloat16) * 0.02]
dy = torch.randn_like(x)
for _ in range(2):
    y, saved = torch.ops.fmlp.forward(bundle, x, params)
    grads = torch.ops.fmlp.backward(bundle, x, params, dy, saved)
torch.cuda.synchronize()
print("done")
