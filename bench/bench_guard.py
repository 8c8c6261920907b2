"""What the projection guard (python/fmlp/guard.py) costs a fused module's
eager call, measured as an A/B in one run: the same FusedGatedMLP with the
guard as shipped and with the guard's check replaced by one that always
allows, alternated round by round, beside Hugging Face's LlamaMLP eager over
the same weights. Module calls through autograd with gradients set to None
each step (fwd+bwd), and no-grad forwards; eager only, since under
torch.compile the check becomes dynamo guards and costs nothing per call.
Also the check alone, per call (timeit).

  FMLP_CACHE_DIR=... python3 bench/bench_guard.py [--rounds 3]
"""
import argparse
import statistics
import timeit

import torch
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaMLP

import fmlp
from fmlp import modules
from bench_mlp import median_ms  # noqa: E402  (same directory: one timing method)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(torch.cuda.get_device_name(), "torch", torch.__version__, "fmlp", fmlp.__version__)
    d, h = 1024, 2816
    config = LlamaConfig(hidden_size=d, intermediate_size=h, hidden_act="silu")
    torch.manual_seed(0)
    original = LlamaMLP(config).to("cuda", torch.bfloat16)
    fused = fmlp.FusedGatedMLP.wrap(original, config)

    shipped = modules.why_not_fusable
    per_call = min(timeit.repeat(lambda: shipped(fused, fused._linears()), number=10000, repeat=5))
    print(f"the check alone: {per_call / 10000 * 1e6:.2f} us per call")

    def with_guard(on):
        modules.why_not_fusable = shipped if on else (lambda module, names: None)

    for tokens in (1, 8192):
        x = torch.randn(tokens, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        dy = torch.randn(tokens, d, device="cuda", dtype=torch.bfloat16)

        def step(module):
            x.grad = None
            for p in original.parameters():
                p.grad = None
            module(x).backward(dy)

        def nograd(module):
            with torch.no_grad():
                module(x)
        times = {}
        for _ in range(args.rounds):
            for name, module, guard_on in (("HF eager", original, True), ("fmlp, guard", fused, True),
                                           ("fmlp, no guard", fused, False)):
                with_guard(guard_on)
                for kind, fn in (("fwd+bwd", step), ("no-grad", nograd)):
                    times.setdefault((kind, name), []).append(median_ms(lambda: fn(module)))
        with_guard(True)
        print(f"D={d}, H={h}, T={tokens}, bf16, eager (median of {args.rounds} rounds, ms):")
        for kind in ("fwd+bwd", "no-grad"):
            row = {name: statistics.median(times[(kind, name)])
                   for name in ("HF eager", "fmlp, guard", "fmlp, no guard")}
            print(f"  {kind:8s} " + "  ".join(f"{n} {t:.4f}" for n, t in row.items()) +
                  f"  guard/no guard {row['fmlp, guard'] / row['fmlp, no guard']:.3f}"
                  f"  fmlp/HF {row['fmlp, guard'] / row['HF eager']:.3f}")


if __name__ == "__main__":
    main()
