#!/usr/bin/env bash
# Session 14, call 7: save=gu against agu at (1024, 2816), T = 8192, the one
# cell where bench_policies (eager) measured gu over 1.03x: the same
# training step (module through autograd, gradients set to None) eager and
# graph-replayed (bench_sweep's capture), per-kernel under torch.profiler.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench FMLP_CACHE_DIR=$PWD/.device/fmlp-cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 150 python3 - <<'PY' 2>&1 | tee "$R/gu-1024.log"
import statistics, torch, fmlp, bench_sweep
from torch.profiler import profile, ProfilerActivity
d, h, t = 1024, 2816, 8192
modules, original, x, dy = bench_sweep.make_modules(d, h, t, torch.device("cuda"), torch.bfloat16, ["fmlp"])
params = list(original.parameters())
timer = bench_sweep.Timer(torch.device("cuda"), 50.0, 100, False)
calls = {}
for save in ("agu", "gu"):
    m = fmlp.FusedGatedMLP.wrap(original, original.config)
    m.memory_policy = fmlp.MemoryPolicy(save=save)
    def step(m=m):
        x.grad = None
        for p in params:
            p.grad = None
        m(x).backward(dy)
    calls[("eager", save)] = step
    calls[("graph", save)] = bench_sweep.capture(step)
rounds = {k: [] for k in calls}
for _ in range(5):
    for k, fn in calls.items():
        rounds[k].append(statistics.median(timer.samples(fn, timer.calls_per_sample(fn), 3, 1.0)))
for launch in ("eager", "graph"):
    a, g = (statistics.median(rounds[(launch, s)]) for s in ("agu", "gu"))
    print(f"{launch}: agu {a:.4f} ms  gu {g:.4f} ms  gu/agu {g / a:.3f}")
for save in ("agu", "gu"):
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            calls[("eager", save)]()
        torch.cuda.synchronize()
    print(f"-- {save}: kernels, us per step")
    for e in sorted(prof.key_averages(), key=lambda e: -e.device_time_total)[:8]:
        print(f"   {e.key[:60]:60s} {e.device_time_total / 5:9.1f}")
PY
