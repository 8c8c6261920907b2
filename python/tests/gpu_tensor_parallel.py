"""Tensor parallelism of fmlp's module (fmlp.parallel) on GPUs.

  python3 python/tests/gpu_tensor_parallel.py shards
      one GPU: the p shards of a block (H/p hidden units each, bundles
      compiled for H/p) run one after another, their y and dx summed in the
      storage type as an all-reduce would; judged by the error-bound method
      against the unsharded float64 reference, the bound of a sum being the
      sum of the shards' bounds plus the reduction's roundings; every weight
      gradient judged at its shard. Control: a sum missing one shard fails.
  torchrun --nproc-per-node P python/tests/gpu_tensor_parallel.py tp
      P GPUs: the patched block sharded with parallelize_module
      (ColwiseParallel gate_proj/up_proj, RowwiseParallel down_proj),
      judged the same way and against one GPU; DDP and FSDP2 (fully_shard)
      of a patched small Llama: gradients equal one GPU's.
  torchrun --nproc-per-node P python/tests/gpu_tensor_parallel.py bench [--out F]
      training-step time of a stack of (RMSNorm, MLP) residual blocks at
      (D, H) = (4096, 11008), fmlp against HF's LlamaMLP sharded alike, same
      run: strong scaling (B=8, S=4096 at any P) and weak scaling (B=2P).

Bundles come from FMLP_CACHE_DIR (python/tests/make-gpu-cache.sh).
"""
import copy
import json
import math
import os
import statistics
import sys

import torch
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaMLP, LlamaRMSNorm

import fmlp
from fmlp import judge

os.environ.setdefault("FMLP_STRICT", "1")  # fmlp's kernels or an error: never HF's fallback

failures = []


def report(name, ok, detail=""):
    if int(os.environ.get("RANK", "0")) == 0:
        print(f"{'pass' if ok else 'FAIL'}  {name:58s} {detail}", flush=True)
    if not ok:
        failures.append(name)


def block(d, h, dtype, seed=0):
    """A LlamaMLP with weights ~ N(0, 1/fan_in), and its fmlp module."""
    config = LlamaConfig(hidden_size=d, intermediate_size=h, hidden_act="silu")
    torch.manual_seed(seed)
    original = LlamaMLP(config).to("cuda", dtype)
    with torch.no_grad():
        for p in original.parameters():
            p.normal_(0, 1 / math.sqrt(p.shape[1]))
    return original, fmlp.FusedGatedMLP.wrap(original, config)


def shard_weights(module, p, r):
    """Rank r's shards of (gate, up, down) [out, in], dense as a rank holds them."""
    h = module.intermediate_size // p
    rows = slice(r * h, (r + 1) * h)
    return [module.gate_proj.weight[rows].contiguous(), module.up_proj.weight[rows].contiguous(),
            module.down_proj.weight[:, rows].contiguous()]


def sharded_reference(x, dy, weights, p, dtype):
    """Per shard: exact values and bounds of the shard's block. Returns the
    reference of the summed outputs (y, dx: sums of the shards' exact values
    and bounds) and each shard's weight-gradient references."""
    shards = []
    for r in range(p):
        gate, up, down = shard_weights(weights, p, r)
        inputs = {"x": x, "dy": dy, "gate": gate.t(), "up": up.t(), "down": down.t()}
        shards.append(judge.reference("silu", dtype, inputs))
    summed = {n: (sum(s[n][0] for s in shards), sum(s[n][1] for s in shards)) for n in ("y", "dx")}
    return summed, shards


def reduced_bound(bound, magnitude, p, dtype):
    """The bound of a sum of p stored shard outputs, itself summed in the
    storage type (an all-reduce): the shards' bounds summed, plus p - 1
    roundings of partial sums, each at most s * `magnitude` (>= the sum
    of the shards' |outputs|)."""
    s = {torch.bfloat16: 2.0 ** -8, torch.float16: 2.0 ** -11, torch.float32: 2.0 ** -24}[dtype]
    return bound + (p - 1) * s * magnitude


def judge_sum(name, parts, summed, dtype, label):
    """Sums `parts` in the storage type, as an all-reduce does, and judges it."""
    total = parts[0].clone()
    for part in parts[1:]:
        total += part
    exact, bound = summed[name]
    magnitude = sum(part.double().abs() for part in parts).reshape(exact.shape)
    ratio, nonfinite = judge.worst_ratio(
        total, exact, reduced_bound(bound, magnitude, len(parts), dtype))
    report(f"{label}: {name} (sum of shards)", ratio <= 1 and nonfinite == 0,
           f"worst error/bound {ratio:.3f}")


def shards():
    d, h, t = 1024, 2816, 74
    for dtype in (torch.bfloat16, torch.float32):
        original, fused = block(d, h, dtype)
        torch.manual_seed(1)
        x = torch.randn(t, d, device="cuda", dtype=dtype)
        dy = torch.randn(t, d, device="cuda", dtype=dtype)
        for p in (2, 4):
            label = f"shards {str(dtype)[6:]} p={p}"
            summed, refs = sharded_reference(x, dy, fused, p, dtype)
            ys, dxs = [], []
            for r in range(p):
                weights = [w.detach().requires_grad_(True) for w in shard_weights(fused, p, r)]
                xr = x.clone().requires_grad_(True)
                judge.poison_free_memory()
                y = fused.fused(xr, weights)
                y.backward(dy)
                ys.append(y.detach())
                dxs.append(xr.grad)
                grads = {"d_gate": weights[0].grad.t(), "d_up": weights[1].grad.t(),
                         "d_down": weights[2].grad.t()}
                worst = max(judge.worst_ratio(grads[n], *refs[r][n])[0] for n in grads)
                report(f"{label}: shard {r} weight gradients", worst <= 1,
                       f"worst error/bound {worst:.3f}")
            judge_sum("y", ys, summed, dtype, label)
            judge_sum("dx", dxs, summed, dtype, label)
            # The shards' exact sum is the unsharded block's exact value.
            full = judge.reference("silu", dtype, {"x": x, "dy": dy, "gate": fused.gate_proj.weight.t(),
                                                   "up": fused.up_proj.weight.t(),
                                                   "down": fused.down_proj.weight.t()})
            gap = (full["y"][0] - summed["y"][0]).abs().max().item()
            report(f"{label}: shards' exact y sums to the unsharded exact y", gap < 1e-9,
                   f"max difference {gap:.1e}")
            # Control: a sum that misses the last shard must fail.
            ratio = judge.worst_ratio(sum(ys[:-1]), *summed["y"])[0]
            report(f"{label}: control (one shard missing) fails", ratio > 1, f"{ratio:.1f}")


def setup_distributed():
    import torch.distributed as dist
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    from torch.distributed.device_mesh import init_device_mesh
    return dist, rank, world, init_device_mesh("cuda", (world,))


def tensor_parallel():
    from torch.distributed.tensor.parallel import (ColwiseParallel, RowwiseParallel,
                                                   parallelize_module)
    dist, rank, world, mesh = setup_distributed()
    plan = {"gate_proj": ColwiseParallel(), "up_proj": ColwiseParallel(),
            "down_proj": RowwiseParallel()}
    for d, h, t in ((1024, 2816, 74), (4096, 11008, 4096)):
        dtype = torch.bfloat16
        label = f"tp={world} D={d} H={h} T={t}"
        original, fused = block(d, h, dtype)  # same seed: the same weights on every rank
        torch.manual_seed(1)
        x = torch.randn(2, t // 2, d, device="cuda", dtype=dtype)
        dy = torch.randn(2, t // 2, d, device="cuda", dtype=dtype)
        # One GPU: the unsharded block.
        single = copy.deepcopy(fused)
        xs = x.clone().requires_grad_(True)
        ys = single(xs)
        ys.backward(dy)
        # P GPUs.
        sharded = copy.deepcopy(fused)
        parallelize_module(sharded, mesh, plan)
        xt = x.clone().requires_grad_(True)
        yt = sharded(xt)
        yt.backward(dy)
        report(f"{label}: weights sharded (local gate rows = H/P)",
               sharded.gate_proj.weight.to_local().shape[0] == h // world)
        if t <= 128:  # the float64 reference of every shard, on each rank
            summed, refs = sharded_reference(x.reshape(-1, d), dy.reshape(-1, d), fused, world, dtype)
            # NCCL's sum of the ranks' partials, bounded as in the
            # single-GPU check; |partial_r| <= |exact_r| + bound_r.
            for name, value in (("y", yt), ("dx", xt.grad)):
                exact, bound = summed[name]
                magnitude = sum(ref[name][0].abs() + ref[name][1] for ref in refs)
                ratio, nonfinite = judge.worst_ratio(
                    value, exact, reduced_bound(bound, magnitude, world, dtype))
                report(f"{label}: {name} within the shards' bound", ratio <= 1 and nonfinite == 0,
                       f"worst error/bound {ratio:.3f}")
            grads = {"d_gate": sharded.gate_proj.weight.grad.to_local().t(),
                     "d_up": sharded.up_proj.weight.grad.to_local().t(),
                     "d_down": sharded.down_proj.weight.grad.to_local().t()}
            worst = max(judge.worst_ratio(grads[n], *refs[rank][n])[0] for n in grads)
            report(f"{label}: rank {rank}'s weight gradients (its shard)", worst <= 1,
                   f"worst error/bound {worst:.3f}")
        # Against one GPU: the weight gradients are the same computation on
        # the shard (equal), y and dx differ by the reduction's rounding.
        full = {n: getattr(sharded, n).weight.grad.full_tensor() for n in plan}
        same = all(torch.equal(full[n], getattr(single, n).weight.grad) for n in plan)
        report(f"{label}: weight gradients equal one GPU's", same,
               " ".join(f"{n} {(full[n] - getattr(single, n).weight.grad).abs().max().item():.1e}"
                        for n in plan))
        for name, a, b in (("y", yt, ys), ("dx", xt.grad, xs.grad)):
            diff = (a.float() - b.float()).abs().max().item()
            scale = b.float().abs().max().item()
            report(f"{label}: {name} against one GPU", diff <= 2 ** -6 * scale,
                   f"max |difference| {diff:.2e} (max |value| {scale:.2f})")
    data_parallel(dist, rank, world)
    dist.destroy_process_group()


def data_parallel(dist, rank, world):
    """DDP and FSDP2 over a patched small Llama, every rank on the same
    batch: the averaged gradients must equal one GPU's."""
    from torch.distributed.fsdp import fully_shard
    from torch.nn.parallel import DistributedDataParallel
    from transformers import LlamaForCausalLM
    config = LlamaConfig(hidden_size=1024, intermediate_size=2816, num_hidden_layers=2,
                         num_attention_heads=8, num_key_value_heads=8, vocab_size=1000)
    torch.manual_seed(0)
    base = LlamaForCausalLM(config).to("cuda", torch.bfloat16)
    fmlp.patch_model(base)
    tokens = torch.randint(0, 1000, (4, 128), device="cuda")
    single = copy.deepcopy(base)
    single(input_ids=tokens, labels=tokens, use_cache=False).loss.backward()
    expected = {n: p.grad for n, p in single.named_parameters()}

    ddp = DistributedDataParallel(copy.deepcopy(base))
    ddp(input_ids=tokens, labels=tokens, use_cache=False).loss.backward()
    # Equal up to the nondeterminism of HF's attention backward: within
    # 2^-7 of the largest gradient.
    scale = max(g.abs().max().item() for g in expected.values())
    worst = max((p.grad - expected[n.removeprefix("module.")]).abs().max().item()
                for n, p in ddp.named_parameters())
    report(f"DDP x{world}: gradients equal one GPU's (same batch on every rank)",
           worst <= 2 ** -7 * scale, f"max |difference| {worst:.1e} (largest gradient {scale:.2e})")

    sharded = copy.deepcopy(base)
    for layer in sharded.model.layers:
        fully_shard(layer)
    fully_shard(sharded)
    sharded(input_ids=tokens, labels=tokens, use_cache=False).loss.backward()
    worst = max((p.grad.full_tensor() - expected[n]).abs().max().item()
                for n, p in sharded.named_parameters())
    report(f"FSDP2 x{world}: gradients equal one GPU's (same batch on every rank)",
           worst <= 2 ** -7 * scale, f"max |difference| {worst:.1e} (largest gradient {scale:.2e})")


class Stack(torch.nn.Module):
    """`layers` residual (RMSNorm, MLP) blocks: a transformer's MLP half."""

    def __init__(self, mlps, d):
        super().__init__()
        self.norms = torch.nn.ModuleList(LlamaRMSNorm(d) for _ in mlps)
        self.mlps = torch.nn.ModuleList(mlps)

    def forward(self, x):
        for norm, mlp in zip(self.norms, self.mlps):
            x = x + mlp(norm(x))
        return x


def bench():
    from torch.distributed.tensor.parallel import (ColwiseParallel, RowwiseParallel,
                                                   parallelize_module)
    dist, rank, world, mesh = setup_distributed()
    d, h, layers = 4096, 11008, 4
    plan = {"gate_proj": ColwiseParallel(), "up_proj": ColwiseParallel(),
            "down_proj": RowwiseParallel()}
    results = []
    for scaling, batch in (("strong", 8), ("weak", 2 * world)):
        seq = 4096
        x = torch.randn(batch, seq, d, device="cuda", dtype=torch.bfloat16)
        times = {}
        for name in ("HF", "fmlp"):
            mlps = []
            for i in range(layers):
                original, fused = block(d, h, torch.bfloat16, seed=i)
                mlps.append(fused if name == "fmlp" else original)
            model = Stack(mlps, d).to("cuda", torch.bfloat16)
            if world > 1:
                for mlp in model.mlps:
                    parallelize_module(mlp, mesh, plan)
            xg = x.clone().requires_grad_(True)

            def step():
                model(xg).float().square().mean().backward()
            for _ in range(3):
                step()
            samples = []
            for _ in range(10):
                dist.barrier()
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                step()
                end.record()
                end.synchronize()
                samples.append(start.elapsed_time(end))
            times[name] = statistics.median(samples)
            del model, mlps
            torch.cuda.empty_cache()
        tokens = batch * seq
        row = dict(scaling=scaling, gpus=world, batch=batch, seq=seq, d=d, h=h, layers=layers,
                   hf_ms=times["HF"], fmlp_ms=times["fmlp"], ratio=times["fmlp"] / times["HF"],
                   fmlp_tokens_per_s=tokens / times["fmlp"] * 1e3,
                   hf_tokens_per_s=tokens / times["HF"] * 1e3)
        results.append(row)
        if rank == 0:
            print(f"{scaling:6s} P={world} B={batch} S={seq}: HF {times['HF']:.2f} ms, fmlp "
                  f"{times['fmlp']:.2f} ms (ratio {row['ratio']:.3f}); tokens/s HF "
                  f"{row['hf_tokens_per_s']:.0f}, fmlp {row['fmlp_tokens_per_s']:.0f}", flush=True)
    if rank == 0 and "--out" in sys.argv:
        with open(sys.argv[sys.argv.index("--out") + 1], "w") as f:
            json.dump(results, f, indent=1)
    dist.destroy_process_group()


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "shards"
    {"shards": shards, "tp": tensor_parallel, "bench": bench}[mode]()
    if int(os.environ.get("RANK", "0")) == 0:
        print(f"{len(failures)} failed")
    sys.exit(1 if failures else 0)
