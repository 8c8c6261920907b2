"""fmlp from PyTorch, timed against Hugging Face eager and torch.compile in
the same run (CUDA events, median of repetitions; ratios, not absolute
times, are the result):

  - a training step (forward, backward, AdamW) of a small LlamaForCausalLM,
    unpatched and patched with fmlp.patch_model, each eager and compiled;
  - the MLP alone (LlamaMLP vs fmlp's module over the same weights):
    forward+backward and no-grad forward.

Peak memory: torch.cuda.max_memory_allocated over a step, minus what was
allocated before it (weights, optimizer state, inputs); gradients are set
to None before each step, as zero_grad(set_to_none=True) does.

  FMLP_CACHE_DIR=... python3 bench/bench_torch.py [--out results.json]
"""
import argparse
import copy
import json

import torch
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.models.llama.modeling_llama import LlamaMLP

import fmlp
from bench_mlp import median_ms  # noqa: E402  (same directory: one timing method)


def peak_extra_bytes(fn):
    fn()  # allocations made once (optimizer state, compile caches) excluded
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    fn()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - before


def measure(name, fn, results, **info):
    ms = median_ms(fn)
    peak = peak_extra_bytes(fn)
    results.append(dict(name=name, ms=ms, peak_extra_mib=peak / 2**20, **info))
    print(f"  {name:28s} {ms:9.3f} ms   peak extra {peak / 2**20:8.0f} MiB", flush=True)
    return ms


def model_step(layers, batch, seq, d, h, results):
    config = LlamaConfig(hidden_size=d, intermediate_size=h, num_hidden_layers=layers,
                         num_attention_heads=d // 128, num_key_value_heads=d // 128,
                         vocab_size=32000, max_position_embeddings=seq)
    torch.manual_seed(0)
    base = LlamaForCausalLM(config).to("cuda", torch.bfloat16)
    tokens = torch.randint(0, 32000, (batch, seq), device="cuda")
    print(f"LlamaForCausalLM training step: {layers} layers, D={d}, H={h}, B={batch}, S={seq}, bf16")
    times = {}
    for patched in (False, True):
        for compiled in (False, True):
            model = copy.deepcopy(base)
            if patched:
                fmlp.patch_model(model)
            forward = torch.compile(model) if compiled else model
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)

            def step():
                forward(input_ids=tokens, labels=tokens, use_cache=False).loss.backward()
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
            name = ("fmlp" if patched else "HF") + (" + torch.compile" if compiled else " eager")
            times[name] = measure(name, step, results, kind="model_step", layers=layers,
                                  batch=batch, seq=seq, d=d, h=h)
            del model, forward, optimizer
            torch._dynamo.reset()
    for name in ("fmlp eager", "fmlp + torch.compile"):
        print(f"  ratio {name} / HF + torch.compile: {times[name] / times['HF + torch.compile']:.3f}, "
              f"/ HF eager: {times[name] / times['HF eager']:.3f}")


def mlp_alone(tokens, d, h, results):
    config = LlamaConfig(hidden_size=d, intermediate_size=h, hidden_act="silu")
    torch.manual_seed(0)
    original = LlamaMLP(config).to("cuda", torch.bfloat16)
    fused = fmlp.FusedGatedMLP.wrap(original, config)
    x = torch.randn(tokens, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    dy = torch.randn(tokens, d, device="cuda", dtype=torch.bfloat16)
    print(f"MLP alone: D={d}, H={h}, T={tokens}, bf16")
    times = {}
    compiled = torch.compile(original)
    for name, module in (("HF eager", original), ("HF + torch.compile", compiled),
                         ("fmlp", fused)):
        def step():
            # As a training step does (zero_grad(set_to_none=True)): the
            # gradients are made, not accumulated into old ones.
            x.grad = None
            for p in original.parameters():
                p.grad = None
            module(x).backward(dy)

        def nograd():
            with torch.no_grad():
                module(x)
        times[name] = measure(f"{name} fwd+bwd", step, results, kind="mlp_step", tokens=tokens, d=d, h=h)
        times[name + " nograd"] = measure(f"{name} no-grad", nograd, results, kind="mlp_nograd",
                                          tokens=tokens, d=d, h=h)
    torch._dynamo.reset()
    for suffix in ("", " nograd"):
        print(f"  ratio fmlp{suffix} / HF + torch.compile{suffix}: "
              f"{times['fmlp' + suffix] / times['HF + torch.compile' + suffix]:.3f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out")
    args = parser.parse_args()
    results = []
    print(torch.cuda.get_device_name(), "torch", torch.__version__)
    mlp_alone(8192, 4096, 11008, results)
    mlp_alone(8192, 1024, 2816, results)
    model_step(4, 8, 1024, 1024, 2816, results)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
