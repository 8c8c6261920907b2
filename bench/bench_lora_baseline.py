#!/usr/bin/env python3
"""What fused LoRA (issue 25) has to beat, measured before it exists: the
training step (module forward + backward, x requiring grad, every .grad set
to None first) of

  peft_eager    HF's LlamaMLP with PEFT's LoRA (r = 16, alpha = 32, dropout
                0) on gate, up and down, base frozen: PEFT's own modules;
  peft_compile  the same under torch.compile;
  hf_frozen_compile  HF's LlamaMLP, frozen, no adapters, torch.compile;
  fmlp_frozen   fmlp's fused module, frozen, no adapters: the floor a fused
                LoRA adds its adapter terms to (a few T D R and T H R flops
                and one more read of A and of [dG dU]: docs/LoRA.md).

The issue asks fused LoRA for <= 0.95x peft_compile's step. All modules over
one set of weights, eager against eager and compiled against compiled,
alternated round by round.

  FMLP_CACHE_DIR=... python3 bench/bench_lora_baseline.py [--shape 4096x11008] [--tokens 8192]
"""
import argparse
import copy
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_sweep  # noqa: E402  (same directory: make_modules, Timer)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--shape", default="4096x11008")
    p.add_argument("--tokens", type=int, default=8192)
    p.add_argument("--rank", type=int, default=16)
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    from peft import LoraConfig, inject_adapter_in_model

    d, h = map(int, args.shape.split("x"))
    device = torch.device("cuda")
    modules, original, x, dy = bench_sweep.make_modules(
        d, h, args.tokens, device, torch.bfloat16, ["fmlp"])
    for parameter in original.parameters():
        parameter.requires_grad_(False)
    adapted = inject_adapter_in_model(
        LoraConfig(r=args.rank, lora_alpha=2 * args.rank, lora_dropout=0.0,
                   target_modules=["gate_proj", "up_proj", "down_proj"]),
        copy.deepcopy(original))
    with torch.no_grad():  # B drawn (PEFT starts it at zero): a real step's values
        for name, parameter in adapted.named_parameters():
            if "lora_B" in name:
                parameter.normal_(0.0, 0.02)
    trainable = [q for q in adapted.parameters() if q.requires_grad]
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}; bf16, (D, H) = "
          f"({d}, {h}), T = {args.tokens}, LoRA r = {args.rank} on gate, up, down "
          f"({sum(q.numel() for q in trainable)} trainable parameters); "
          f"ms per step, medians of {args.rounds} rounds", flush=True)
    steps = {
        "peft_eager": adapted,
        "peft_compile": torch.compile(adapted, dynamic=False),
        "hf_frozen_compile": torch.compile(original, dynamic=False),
        "fmlp_frozen": modules["fmlp"],
    }

    def step_of(module):
        def step():
            x.grad = None
            for q in trainable:
                q.grad = None
            module(x).backward(dy)
        return step

    calls = {name: step_of(module) for name, module in steps.items()}
    timer = bench_sweep.Timer(device, 50.0, 50, False)
    for call in calls.values():
        for _ in range(3):
            call()
    samples = {name: [] for name in calls}
    for _ in range(args.rounds):
        for name, call in calls.items():
            samples[name].append(statistics.median(
                timer.samples(call, timer.calls_per_sample(call), 3, 2.0)))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    for name, ms in medians.items():
        print(f"  {name:18s} {ms:8.3f} ms   / peft_compile {ms / medians['peft_compile']:.3f}",
              flush=True)


if __name__ == "__main__":
    main()
