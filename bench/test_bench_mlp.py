"""bench_mlp.py's unfused counterparts of fmlp's no-grad forward and
training step compute what autograd computes for the SwiGLU MLP (float64,
on the CPU, random inputs), so that the step ratio compares the same work;
a wrong derivative (the negative control) is caught. Needs torch.

  python3 -m unittest -v bench/test_bench_mlp.py   (from the repository root)
"""
import importlib.util
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


@unittest.skipUnless(importlib.util.find_spec("torch"), "torch is not installed")
class UnfusedStep(unittest.TestCase):
    def setUp(self):
        import torch
        import bench_mlp
        self.torch, self.bench = torch, bench_mlp
        g = torch.Generator().manual_seed(1)
        t, d, h = 37, 16, 24
        self.x, self.dy = (torch.randn(t, d, generator=g, dtype=torch.float64) for _ in range(2))
        self.wg, self.wu = (torch.randn(h, d, generator=g, dtype=torch.float64) for _ in range(2))
        self.wd = torch.randn(d, h, generator=g, dtype=torch.float64)

    def reference(self):
        """y, dX, [dWg; dWu], dWd by autograd through LlamaMLP's math."""
        F = self.torch.nn.functional
        x, wg, wu, wd = (v.clone().requires_grad_(True) for v in (self.x, self.wg, self.wu, self.wd))
        y = F.linear(F.silu(F.linear(x, wg)) * F.linear(x, wu), wd)
        y.backward(self.dy)
        return y.detach(), x.grad, self.torch.cat([wg.grad, wu.grad]), wd.grad

    def unfused(self, down_grad_job):
        wgu = self.torch.cat([self.wg, self.wu])
        return self.bench.unfused_step(self.x, self.dy, wgu, self.wd, self.bench.gate_up_unfused,
                                       down_grad_job)

    def test_step_matches_autograd(self):
        for name, ours, ref in zip(("y", "dX", "dWgu", "dWd"), self.unfused(self.bench.down_grad_unfused),
                                   self.reference()):
            with self.subTest(name):
                self.torch.testing.assert_close(ours, ref, rtol=1e-12, atol=1e-12)

    def test_nograd_matches(self):
        wgu = self.torch.cat([self.wg, self.wu])
        self.torch.testing.assert_close(
            self.bench.unfused_nograd(self.x, wgu, self.wd, self.bench.gate_up_unfused), self.reference()[0],
            rtol=1e-12, atol=1e-12)

    def test_wrong_derivative_caught(self):
        torch = self.torch

        def sigmoid_as_derivative(dy, wd, g, u):  # silu'(g) taken as sigmoid(g): wrong
            da = dy @ wd
            s = torch.sigmoid(g)
            return torch.cat([da * u * s, da * g * s], dim=-1)
        _, dx, _, _ = self.unfused(sigmoid_as_derivative)
        self.assertFalse(torch.allclose(dx, self.reference()[1], rtol=1e-6, atol=1e-6))


if __name__ == "__main__":
    unittest.main()
