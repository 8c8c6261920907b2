import statistics, sys, torch
sys.path.insert(0, "bench"); sys.path.insert(0, "python")
from bench_mlp import launcher, median_ms
from fmlp import runtime
for d, h in ((4096, 11008), (1024, 2816)):
    t, dt = 8192, torch.bfloat16
    x = torch.randn(t, d, device="cuda", dtype=dt)
    wg, wu = (torch.randn(h, d, device="cuda", dtype=dt) * 0.02 for _ in range(2))
    wd = torch.randn(d, h, device="cuda", dtype=dt) * 0.02
    y, saved = torch.empty_like(x), torch.empty(t, 3 * h, device="cuda", dtype=dt)
    b = runtime.Bundle(f".device/bundles/mlp-bf16-{d}-{h}.bundle"); b.load()
    fwd = b.entry("forward"); args = [x, wg, wu, wd, y, saved]
    run = launcher(fwd)
    k1 = lambda: run(args, kernel=0)
    k2 = lambda: run(args, kernel=1)
    f = lambda: run(args)
    def seq():
        s, m, e = (torch.cuda.Event(enable_timing=True) for _ in range(3))
        out = []
        for _ in range(13):
            s.record(); k1(); m.record(); k2(); e.record(); e.synchronize()
            out.append((s.elapsed_time(m), m.elapsed_time(e)))
        return [round(statistics.median(v[i] for v in out[3:]), 3) for i in (0, 1)]
    for _ in range(2):
        print(d, "forward", round(median_ms(f), 3), "K1", round(median_ms(k1), 3), "K2", round(median_ms(k2), 3),
              "K1;K2", round(median_ms(lambda: (k1(), k2())), 3), "in sequence", seq(), flush=True)
