"""Session 11: where fmlp's MLP fwd+bwd spends its time from PyTorch
(D=1024, H=2816, T=8192, bf16): torch.profiler over 10 steps, and the
host time of one step measured alone."""
import time
import torch
from torch.profiler import profile, ProfilerActivity
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaMLP
import fmlp

config = LlamaConfig(hidden_size=1024, intermediate_size=2816, hidden_act="silu")
torch.manual_seed(0)
original = LlamaMLP(config).to("cuda", torch.bfloat16)
fused = fmlp.FusedGatedMLP.wrap(original, config)
x = torch.randn(8192, 1024, device="cuda", dtype=torch.bfloat16, requires_grad=True)
dy = torch.randn(8192, 1024, device="cuda", dtype=torch.bfloat16)
def step(m):
    x.grad = None
    for p in original.parameters():
        p.grad = None
    m(x).backward(dy)
for m, name in ((original, "HF eager"), (fused, "fmlp")):
    for _ in range(5):
        step(m)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(20):
        step(m)
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    print(f"{name}: host {1e3 * (t1 - t0) / 20:.3f} ms per step to enqueue, {1e3 * (t2 - t0) / 20:.3f} ms per step with the GPU")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(10):
            step(m)
        torch.cuda.synchronize()
    print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=14, max_name_column_width=60))
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10, max_name_column_width=60))
