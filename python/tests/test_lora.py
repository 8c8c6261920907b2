"""Fused LoRA from Python on the CPU (docs/LoRA.md): the adapters'
matrices as fmlp.lora assembles them, the emulated entry points' adapter
terms against float64 autograd, and fused modules whose projections are
PEFT's LoRA layers against PEFT's own forward and backward: y, x's
gradient and every lora_A's and lora_B's, in both orders (adapt then
patch, patch then adapt), several adapters, rsLoRA, some projections
only, Phi3's gate_up_proj; the guard's decisions on real PEFT layers
(DoRA, dropout, disabled, merged, dtypes), each with its warning; and
negative controls (a scale left out, the adapters left out: caught).

The bundles are real (fmlp-compile, FMLP_BIN_DIR, into one cache for the
module): their manifests and the runtime's fmlp_outputs_needed decide
what is allocated and which gradients a backward is given; only the
kernels are replaced, by test_ops.emulate computing the entry points in
float64. Needs torch, peft and transformers (and fmlp-compile, the
runtime library); skipped without them.

  FMLP_BIN_DIR=build/bin FMLP_RUNTIME_LIB=build/lib/libfmlp_runtime.so \\
  PYTHONPATH=python python3 -m unittest -v test_lora   (in python/tests)
"""
import copy
import importlib.util
import itertools
import os
import tempfile
import unittest
import unittest.mock
import warnings

HAVE_TORCH = importlib.util.find_spec("torch") is not None
HAVE_PEFT = HAVE_TORCH and importlib.util.find_spec("peft") is not None
HAVE_TRANSFORMERS = HAVE_TORCH and importlib.util.find_spec("transformers") is not None

D, H, T = 32, 48, 7
_cache = None  # the module's bundle cache (setUpModule)


def setUpModule():
    global _cache
    _cache = tempfile.TemporaryDirectory(prefix="fmlp-test-lora.")


def tearDownModule():
    _cache.cleanup()


def use_bundles(test):
    """The module's bundle cache and fmlp-compile (FMLP_BIN_DIR) for
    `test`'s duration."""
    saved = dict(os.environ)
    test.addCleanup(lambda: (os.environ.clear(), os.environ.update(saved)))
    os.environ["FMLP_CACHE_DIR"] = _cache.name
    os.environ["PATH"] = os.environ["FMLP_BIN_DIR"] + os.pathsep + os.environ["PATH"]
# f32 against float64: the emulated kernels compute in float64 from the
# f32 operands and round each result to f32 once; the only other
# roundings are A_cat's scaled rows (s A in f32) and autograd's f32 steps
# back to each adapter (the scale; Phi3's B split in halves is exact): a
# few relative 2^-24 each, times the terms' magnitudes. Measured: at most
# 2^-23.6 of a tensor's largest element. 2^-18 leaves 40x room and is
# 2^-18 of what a scale or the adapters left out change (test_controls:
# about 2^0).
TOLERANCE = 2.0 ** -18


@unittest.skipUnless(HAVE_TORCH, "torch is not installed")
class AdapterMatrices(unittest.TestCase):
    """fmlp.lora: A_cat, Bg, Bu (and Ad, Bd) as the op takes them."""

    def setUp(self):
        import torch
        from fmlp import lora
        self.torch, self.lora = torch, lora
        g = torch.Generator().manual_seed(0)
        self.randn = lambda *shape: torch.randn(*shape, generator=g, dtype=torch.float64)  # noqa: E731

    def test_stacked_scaled_and_padded(self):
        torch, lora, randn = self.torch, self.lora, self.randn
        gate = [(randn(4, D), 0.5, randn(H, 4)), (randn(8, D), 3.0, randn(H, 8))]
        up = [(randn(8, D), 2.0, randn(H, 8))]
        down = [(randn(4, H), 0.25, randn(D, 4))]
        a_cat, bg, bu, ad, bd = lora.block_adapters(gate, up, down, D, H)
        # R = 4 + 8 + 8 = 20, padded to 32; Rd = 4 to 16.
        self.assertEqual((a_cat.shape, bg.shape, bu.shape), ((32, D), (H, 32), (H, 32)))
        self.assertEqual((ad.shape, bd.shape), ((16, H), (D, 16)))
        self.assertEqual(lora.ranks((a_cat, bg, bu, ad, bd)), (32, 16))
        rows = [(0, 4), (4, 12), (12, 20)]
        for (a, s, b), (first, last) in zip(gate + up, rows):
            self.assertTrue(torch.equal(a_cat[first:last], a * s))
        self.assertTrue(torch.equal(bg[:, 0:4], gate[0][2]) and torch.equal(bg[:, 4:12], gate[1][2]))
        self.assertTrue(torch.equal(bu[:, 12:20], up[0][2]))
        # Zeros: up's columns of Bg, the gate's of Bu, the padding.
        for t in (a_cat[20:], bg[:, 12:], bu[:, :12], bu[:, 20:], ad[4:], bd[:, 4:]):
            self.assertEqual(t.abs().max().item(), 0.0)
        self.assertTrue(torch.equal(ad[:4], down[0][0] * 0.25) and torch.equal(bd[:, :4], down[0][2]))
        # The sums they stand for.
        x = randn(T, D)
        z = x @ a_cat.t()
        for stacked, terms in ((bg, gate), (bu, up)):
            expected = sum(s * (x @ a.t()) @ b.t() for a, s, b in terms)
            self.assertLess((z @ stacked.t() - expected).abs().max().item(), 1e-12)

    def test_exact_ranks_scale_one_and_absent_groups(self):
        lora, randn = self.lora, self.randn
        a = randn(16, D)
        a_cat, bg, bu, ad, bd = lora.block_adapters([], [(a, 1.0, randn(H, 16))], [], D, H)
        self.assertIs(a_cat, a)  # rank 16: no padding; scale 1: no product
        self.assertEqual(bg.abs().max().item(), 0.0)
        self.assertIsNone(ad)
        self.assertIsNone(bd)
        self.assertEqual(lora.ranks((a_cat, bg, bu, ad, bd)), (16, 0))
        self.assertEqual(lora.block_adapters([], [], [], D, H), (None,) * 5)
        self.assertEqual([lora.padded(r) for r in (1, 15, 16, 17, 48)], [16, 16, 16, 32, 48])

    def test_stack_of_interleaved_outputs(self):
        # Zero columns before, between and after an output's Bs (stack's
        # general form; block_adapters lays the gate's before up's).
        torch, lora, randn = self.torch, self.lora, self.randn
        a = [randn(r, D) for r in (2, 3, 5, 7)]
        b = [randn(H, r) for r in (2, 3, 5, 7)]
        terms = [(a[0], 1.0, (None, b[0])), (a[1], 2.0, (b[1], None)), (a[2], 1.0, (None, b[2])),
                 (a[3], 0.5, (b[3], None))]
        a_cat, (first, second) = lora.stack(terms, (H, H))
        self.assertEqual((a_cat.shape, first.shape, second.shape), ((32, D), (H, 32), (H, 32)))
        expected_first = torch.zeros(H, 32, dtype=torch.float64)
        expected_first[:, 2:5], expected_first[:, 10:17] = b[1], b[3]
        expected_second = torch.zeros(H, 32, dtype=torch.float64)
        expected_second[:, 0:2], expected_second[:, 5:10] = b[0], b[2]
        self.assertTrue(torch.equal(first, expected_first))
        self.assertTrue(torch.equal(second, expected_second))
        self.assertTrue(torch.equal(a_cat[:17], torch.cat([a[0], 2 * a[1], a[2], 0.5 * a[3]])))
        self.assertEqual(a_cat[17:].abs().max().item(), 0.0)
        # An output no adapter adds to: zeros.
        _, (none,) = lora.stack([(a[0], 1.0, (None,))], (H,))
        self.assertTrue(torch.equal(none, torch.zeros(H, 16, dtype=torch.float64)))

    def test_gradients_reach_each_adapter(self):
        torch, lora, randn = self.torch, self.lora, self.randn
        a1, b1 = randn(4, D).requires_grad_(), randn(H, 4).requires_grad_()
        a2, b2 = randn(8, D).requires_grad_(), randn(H, 8).requires_grad_()
        a_cat, bg, bu, _, _ = lora.block_adapters([(a1, 0.5, b1)], [(a2, 2.0, b2)], [], D, H)
        ga, gg, gu = randn(16, D), randn(H, 16), randn(H, 16)
        ((a_cat * ga).sum() + (bg * gg).sum() + (bu * gu).sum()).backward()
        self.assertTrue(torch.equal(a1.grad, 0.5 * ga[:4]) and torch.equal(a2.grad, 2.0 * ga[4:12]))
        self.assertTrue(torch.equal(b1.grad, gg[:, :4]) and torch.equal(b2.grad, gu[:, 4:12]))


def block(x, params, adapters, gelu=False, gate_multiplier=1.0, down_multiplier=1.0):
    """The block with adapter terms in float64 by torch (autograd's
    reference for test_ops.emulate): params gate, up, down[, biases];
    adapters (A_cat, Bg, Bu, Ad, Bd) with None for an absent group; SiLU
    or GELU (tanh), Falcon-H1's multipliers (as FalconH1MLP.forward
    applies them to gate_proj's and down_proj's outputs)."""
    import torch
    F = torch.nn.functional
    gate, up, down, *biases = params
    bg_, bu_, bd_ = biases or (None, None, None)
    a_cat, b_g, b_u, a_d, b_d = adapters
    g, u = F.linear(x, gate, bg_), F.linear(x, up, bu_)
    if a_cat is not None:
        z = x @ a_cat.t()
        g, u = g + z @ b_g.t(), u + z @ b_u.t()
    g = gate_multiplier * g
    a = (F.gelu(g, approximate="tanh") if gelu else F.silu(g)) * u
    y = F.linear(a, down, bd_)
    if a_d is not None:
        y = y + (a @ a_d.t()) @ b_d.t()
    return down_multiplier * y


@unittest.skipUnless(HAVE_TORCH, "torch is not installed")
class EmulatedAdapterTerms(unittest.TestCase):
    """test_ops.emulate's adapter terms (forward, saved layout, every
    gradient) against float64 autograd of the block, each group alone and
    both, with and without biases, SiLU, and GELU with multipliers (read
    from the bundle's key)."""

    def test_against_autograd(self):
        import torch
        from test_ops import emulate
        g = torch.Generator().manual_seed(1)
        randn = lambda *shape: torch.randn(*shape, generator=g, dtype=torch.float64)  # noqa: E731
        blocks = {"block": {}, "fmlp-d32-h48-f32-gelu_tanh-sm_90a-gm0.5-dm0.25": dict(
            gelu=True, gate_multiplier=0.5, down_multiplier=0.25)}
        for (path, keywords), bias, (r, rd) in itertools.product(
                blocks.items(), (False, True), ((16, 32), (16, 0), (0, 16))):
            with self.subTest(path=path, bias=bias, r=r, rd=rd):
                params = [randn(H, D), randn(H, D), randn(D, H)]
                params += [randn(H), randn(H), randn(D)] if bias else []
                adapters = [randn(r, D), randn(H, r), randn(H, r)] if r else [None] * 3
                adapters += [randn(rd, H), randn(D, rd)] if rd else [None] * 2
                names = ["gate", "up", "down"] + (["gate_bias", "up_bias", "down_bias"]
                                                  if bias else [])
                adapter_names = ["lora_a", "gate_lora_b", "up_lora_b", "down_lora_a",
                                 "down_lora_b"]
                x, dy = randn(T, D), randn(T, D)
                given = dict(zip(names, params), x=x)
                given.update({n: t for n, t in zip(adapter_names, adapters) if t is not None})
                # The forward, saved A | G | U | Z | Zd.
                args = dict(given, y=torch.empty(T, D, dtype=torch.float64),
                            saved=torch.empty(T, 3 * H + r + rd, dtype=torch.float64))
                emulate(path, "forward", args)
                leaves = [t.clone().requires_grad_() for t in [x] + params]
                adapter_leaves = [None if t is None else t.clone().requires_grad_()
                                  for t in adapters]
                y = block(leaves[0], leaves[1:], adapter_leaves, **keywords)
                self.assertLess((args["y"] - y).abs().max().item(), 1e-10)
                saved = args["saved"]
                if r:
                    self.assertLess((saved[:, 3 * H:3 * H + r] - x @ adapters[0].t())
                                    .abs().max().item(), 1e-10)
                y.backward(dy)
                # The backward, every gradient wanted.
                grads = ["dx"] + ["d_" + n for n in names] + [
                    "d_" + n for n, t in zip(adapter_names, adapters) if t is not None]
                args = dict(given, dy=dy, saved=saved)
                shaped = {"dx": x, **dict(zip(["d_" + n for n in names], params)),
                          **{"d_" + n: t for n, t in zip(adapter_names, adapters)
                             if t is not None}}
                for n in grads:
                    args[n] = torch.empty_like(shaped[n])
                emulate(path, "backward", args)
                expected = {"dx": leaves[0].grad,
                            **{"d_" + n: t.grad for n, t in zip(names, leaves[1:])},
                            **{"d_" + n: t.grad for n, t in zip(adapter_names, adapter_leaves)
                               if t is not None}}
                for n in grads:
                    scale = expected[n].abs().max().item()
                    self.assertLess((args[n] - expected[n]).abs().max().item(),
                                    1e-10 * max(scale, 1.0), n)


@unittest.skipUnless(HAVE_TORCH, "torch is not installed")
class LoraOps(unittest.TestCase):
    """fmlp::forward_lora, forward_nograd_lora and backward_lora on
    compiled bundles: registration (opcheck: schema, fake
    kernels against the real ones, autograd), gradients only where asked
    (the backward given only the outputs its closure needs), a group
    absent (None), torch.compile(fullgraph)."""

    def setUp(self):
        import torch
        from fmlp import ops, spec
        from test_ops import record_launches
        self.torch, self.ops = torch, ops
        use_bundles(self)
        self.bundles = {(r, rd): str(spec.find_or_compile(
            spec.BlockSpec(D, H, "f32", lora_rank=r, down_lora_rank=rd)))
            for r, rd in ((16, 16), (0, 16), (16, 0))}
        record_launches(self)
        torch = self.torch
        g = torch.Generator().manual_seed(2)
        randn = lambda *shape: torch.randn(*shape, generator=g) / 4  # noqa: E731
        self.x, self.dy = randn(T, D), randn(T, D)
        self.weights = [randn(H, D), randn(H, D), randn(D, H)]
        self.adapters = [randn(16, D), randn(H, 16), randn(H, 16), randn(16, H), randn(D, 16)]

    def arguments(self, r, rd, grad=()):
        """x, then the LoRA ops' eleven parameters for ranks (r, rd), those
        named in `grad` (x, gate, ..., lora_a, ...) requiring grad."""
        names = ["gate", "up", "down", "lora_a", "gate_lora_b", "up_lora_b", "down_lora_a",
                 "down_lora_b"]
        tensors = [t.clone().requires_grad_(n in grad)
                   for n, t in zip(names, self.weights + self.adapters)]
        adapters = tensors[3:6] if r else [None] * 3
        adapters += tensors[6:] if rd else [None] * 2
        x = self.x.clone().requires_grad_("x" in grad)
        return x, self.ops.parameters(tensors[:3], adapters)

    def test_opcheck(self):
        torch = self.torch
        for (r, rd), path in self.bundles.items():
            with self.subTest(r=r, rd=rd):
                x, params = self.arguments(r, rd)
                torch.library.opcheck(torch.ops.fmlp.forward_nograd_lora, (path, x, *params))
                torch.library.opcheck(torch.ops.fmlp.forward_lora, (path, x, *params))
                _, saved = torch.ops.fmlp.forward_lora(path, x, *params)
                wanted = [True, False, False, False, False, False, False] + [True] * 5
                torch.library.opcheck(torch.ops.fmlp.backward_lora,
                                      (path, x, *params, self.dy, saved, wanted))
                x, params = self.arguments(r, rd, grad=("x", "lora_a", "down_lora_b"))
                torch.library.opcheck(torch.ops.fmlp.forward_lora, (path, x, *params),
                                      test_utils=("test_schema", "test_autograd_registration",
                                                  "test_faketensor"))

    def step(self, r, rd, grad, compiled=False):
        """One forward and backward through fmlp::forward_lora with `grad`
        requiring grad; returns the gradients by name (None where not
        wanted) and the outputs the backward was given."""
        torch = self.torch
        path = self.bundles[r, rd]
        x, params = self.arguments(r, rd, grad)

        def forward(x, *params):
            return torch.ops.fmlp.forward_lora(path, x, *params)[0]
        if compiled:
            torch._dynamo.reset()
            forward = torch.compile(forward, fullgraph=True, backend="aot_eager")
        self.calls.clear()
        forward(x, *params).backward(self.dy)
        names = ["x", "gate", "up", "down", "gate_bias", "up_bias", "down_bias", "lora_a",
                 "gate_lora_b", "up_lora_b", "down_lora_a", "down_lora_b"]
        grads = {n: (t.grad if t is not None else None) for n, t in zip(names, (x, *params))}
        backward = [args for kind, args in self.calls if kind == "backward"]
        self.assertEqual(len(backward), 1)
        return grads, backward[0]

    def test_gradients_only_where_asked(self):
        every = ("x", "gate", "up", "down", "lora_a", "gate_lora_b", "up_lora_b", "down_lora_a",
                 "down_lora_b")
        reference, _ = self.step(16, 16, every)
        for grad, given, absent in (
                # A frozen base: neither weight-gradient kernel's outputs.
                (("x", "lora_a", "gate_lora_b", "up_lora_b", "down_lora_a", "down_lora_b"),
                 {"dx", "d_lora_a", "d_gate_lora_b", "d_up_lora_b", "d_down_lora_a",
                  "d_down_lora_b"}, {"d_gate", "d_up", "d_down"}),
                # Down's adapters alone trainable, x not.
                (("down_lora_a", "down_lora_b"), {"d_down_lora_a", "d_down_lora_b"},
                 {"dx", "d_gate", "d_up", "d_down", "d_lora_a", "d_gate_lora_b", "d_up_lora_b"}),
                # up's B: its kernel writes the gate's too (the closure).
                (("up_lora_b",), {"d_gate_lora_b", "d_up_lora_b"}, {"dx", "d_lora_a"})):
            with self.subTest(grad=grad):
                grads, backward = self.step(16, 16, grad)
                self.assertTrue(given <= backward, backward)
                self.assertFalse(absent & backward, backward)
                for name, g in grads.items():
                    if name in grad:
                        self.assertTrue(self.torch.equal(g, reference[name]), name)
                    else:
                        self.assertIsNone(g, name)

    def test_compiled_fullgraph(self):
        grad = ("x", "lora_a", "up_lora_b", "down_lora_b")
        for r, rd in self.bundles:
            with self.subTest(r=r, rd=rd):
                eager, _ = self.step(r, rd, grad)
                compiled, backward = self.step(r, rd, grad, compiled=True)
                self.assertFalse({"d_gate", "d_up", "d_down"} & backward)
                for name in grad:
                    if eager[name] is not None:
                        self.assertTrue(self.torch.equal(compiled[name], eager[name]), name)
                    else:
                        self.assertIsNone(compiled[name], name)

    def test_torch_func_grad(self):
        # torch.func.grad through fmlp::forward_lora (x's and the adapters'
        # gradients, the base frozen): the eager step's, bit for bit; only
        # those gradients computed.
        torch = self.torch
        grad = ("x", "lora_a", "gate_lora_b", "up_lora_b", "down_lora_a", "down_lora_b")
        eager, _ = self.step(16, 16, grad)
        path = self.bundles[16, 16]
        x, params = self.arguments(16, 16)

        def loss(x, *params):
            return (torch.ops.fmlp.forward_lora(path, x, *params)[0] * self.dy).sum()
        self.calls.clear()
        got = torch.func.grad(loss, argnums=(0, 7, 8, 9, 10, 11))(x, *params)
        for name, g in zip(grad, got):
            self.assertTrue(torch.equal(g, eager[name]), name)
        [backward] = [args for kind, args in self.calls if kind == "backward"]
        self.assertFalse({"d_gate", "d_up", "d_down"} & backward)

    def test_parameters(self):
        w = self.weights
        self.assertEqual(len(self.ops.parameters(w, [None] * 5)), 11)
        with self.assertRaisesRegex(ValueError, "5 adapter matrices"):
            self.ops.parameters(w, [None] * 3)


class _Stand_ins:
    """The GPU stood in for (test_ops.NoKernelsHereTest's way): an x on the
    CPU passes the input check, block_spec skips its CUDA-only checks,
    and the kernels are emulated (recording each call's kind and
    arguments)."""

    def stand_in(self, test):
        import torch
        from fmlp import modules
        from test_ops import block_spec_on_sm90a, gpu_stand_ins, record_launches
        use_bundles(test)
        os.environ.pop("FMLP_STRICT", None)
        record_launches(test)
        kept = dict(modules._paths)
        modules._paths.clear()
        test.addCleanup(lambda: (modules._paths.clear(), modules._paths.update(kept)))

        def block_spec(*args, **kwargs):
            test.specs.append(block_spec_on_sm90a(*args, **kwargs))
            return test.specs[-1]
        test.specs = []
        for patcher in gpu_stand_ins(block_spec):
            patcher.start()
            test.addCleanup(patcher.stop)
        return torch


def _randomize_adapters(model, seed):
    """Every lora_B random (PEFT initializes B = 0, which would hide a
    missing adapter term) and every lora_A redrawn, of the sizes of the
    base terms."""
    import torch
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_A" in name or "lora_B" in name:
                p.copy_(torch.randn(p.shape, generator=g, dtype=p.dtype) / p.shape[-1] ** 0.5)


def _model(mlp, config):
    """A model of one MLP (its forward calls it), as PEFT and patch_model
    take one."""
    import torch

    class Model(torch.nn.Module):
        def forward(self, x):
            return self.mlp(x)
    model = Model()
    model.mlp, model.config = mlp, config
    return model


class _PeftCase(_Stand_ins):
    """A tiny Llama MLP (D = 32, H = 48, f32), PEFT's adapters on it, and
    the comparisons."""

    def setUp(self):
        self.torch = self.stand_in(self)
        import fmlp
        import peft
        self.fmlp, self.peft = fmlp, peft

    def llama(self, bias=False):
        from transformers import LlamaConfig
        from transformers.models.llama.modeling_llama import LlamaMLP
        config = LlamaConfig(hidden_size=D, intermediate_size=H, hidden_act="silu",
                             mlp_bias=bias, num_attention_heads=4, num_key_value_heads=4)
        self.torch.manual_seed(0)
        return _model(LlamaMLP(config), config), config

    def adapt(self, model, adapters, active=None):
        """get_peft_model with `adapters` (name -> LoraConfig keywords), all
        active (or `active`), A and B random."""
        peft = self.peft
        configs = iter(adapters.items())
        name, keywords = next(configs)
        adapted = peft.get_peft_model(model, peft.LoraConfig(**keywords), adapter_name=name)
        for name, keywords in configs:
            adapted.add_adapter(name, peft.LoraConfig(**keywords))
        adapted.base_model.set_adapter(active or list(adapters))
        _randomize_adapters(adapted, 7)
        return adapted

    def run_model(self, model, x, dy):
        """y, x's gradient and every trainable parameter's gradient (by
        name) of one forward and backward."""
        x = x.clone().requires_grad_(True)
        y = model(x)
        y.backward(dy)
        grads = {n: p.grad for n, p in model.named_parameters() if p.requires_grad}
        model.zero_grad(set_to_none=True)
        return y.detach(), x.grad, grads

    def peft_run(self, model, x, dy=None):
        """PEFT's own y (and with dy, gradients as run_model's) of a copy of
        `model` (in float64 for an x in float64): fmlp's modules in it run
        Hugging Face's forward (FusedGatedMLP.unfused), calling PEFT's
        layers."""
        from fmlp import modules
        model = copy.deepcopy(model)
        if x.dtype == self.torch.float64:
            model.double()
        unfused = lambda module, x, *args, **kwargs: module.unfused(x)  # noqa: E731
        with unittest.mock.patch.object(modules.FusedGatedMLP, "forward", unfused):
            if dy is None:
                return model(x)
            return self.run_model(model, x, dy)

    def assertClose(self, got, expected, what, tolerance=TOLERANCE):
        error = (got.double() - expected.double()).abs().max().item()
        self.assertLessEqual(error, tolerance * expected.abs().max().item(), what)

    def compare(self, fused_model, reference):
        """The fused model's y, x's and every trainable parameter's
        gradient against the reference model's in float64 (the reference
        is copied to float64 here); returns the backward's arguments."""
        torch = self.torch
        g = torch.Generator().manual_seed(3)
        x = torch.randn(2, T, D, generator=g)
        dy = torch.randn(2, T, D, generator=g)
        self.calls.clear()
        y, dx, grads = self.run_model(fused_model, x, dy)
        ry, rdx, rgrads = self.peft_run(reference, x.double(), dy.double())
        self.assertEqual(set(grads), set(rgrads))
        self.assertTrue(any("lora_A" in n for n in grads))
        self.assertClose(y, ry, "y")
        self.assertClose(dx, rdx, "dx")
        for name, grad in grads.items():
            self.assertClose(grad, rgrads[name], name)
        return [args for kind, args in self.calls if kind == "backward"]

    def fused_run(self, backward, r, rd):
        """The fused op ran with adapter groups of ranks (r, rd), and its
        backward was not asked for the frozen base's gradients."""
        self.assertEqual(len(backward), 1)
        self.assertEqual(("lora_a" in backward[0], "down_lora_a" in backward[0]), (r > 0, rd > 0))
        self.assertFalse({"d_gate", "d_up", "d_down"} & backward[0])
        wanted = {"dx"} | ({"d_lora_a", "d_gate_lora_b", "d_up_lora_b"} if r else set()) | (
            {"d_down_lora_a", "d_down_lora_b"} if rd else set())
        self.assertTrue(wanted <= backward[0], backward[0])
        self.assertEqual(self.specs[-1].lora_rank, r)
        self.assertEqual(self.specs[-1].down_lora_rank, rd)


@unittest.skipUnless(HAVE_PEFT and HAVE_TRANSFORMERS, "needs torch, peft and transformers")
class FusedPeftLora(_PeftCase, unittest.TestCase):
    """Fused modules over PEFT's LoRA layers against PEFT in float64."""

    def test_two_adapters_adapt_then_patch(self):
        # a: r = 4 on gate, up, down; b: r = 8, rsLoRA, on gate and down
        # only (up's layer skips it, as PEFT does). R = 4 + 8 + 4 = 16,
        # Rd = 4 + 8 = 12, padded to 16. With biases (the base's, frozen).
        model, config = self.llama(bias=True)
        adapted = self.adapt(model, {
            "a": dict(r=4, lora_alpha=8, target_modules=["gate_proj", "up_proj", "down_proj"]),
            "b": dict(r=8, lora_alpha=16, use_rslora=True,
                      target_modules=["gate_proj", "down_proj"])})
        self.assertEqual(adapted.base_model.model.mlp.up_proj.active_adapters, ["a", "b"])
        self.assertNotEqual(adapted.base_model.model.mlp.gate_proj.scaling["b"], 2.0)  # rsLoRA
        reference = copy.deepcopy(adapted)
        with warnings.catch_warnings():
            warnings.simplefilter("error", self.fmlp.UnfusedWarning)
            self.assertEqual(self.fmlp.patch_model(adapted, config), 1)
            self.assertIsInstance(adapted.base_model.model.mlp, self.fmlp.FusedGatedMLP)
            self.fused_run(self.compare(adapted, reference), 16, 16)

    def test_two_ranks_everywhere_patch_then_adapt(self):
        # r = 4 and r = 8 on every projection: R = 24 -> 32, Rd = 12 -> 16.
        model, config = self.llama()
        self.assertEqual(self.fmlp.patch_model(model, config), 1)
        targets = ["gate_proj", "up_proj", "down_proj"]
        adapted = self.adapt(model, {"a": dict(r=4, lora_alpha=8, target_modules=targets),
                                     "b": dict(r=8, lora_alpha=4, target_modules=targets)})
        reference = copy.deepcopy(adapted)
        with warnings.catch_warnings():
            warnings.simplefilter("error", self.fmlp.UnfusedWarning)
            self.fused_run(self.compare(adapted, reference), 32, 16)
            # No-grad: the no-grad LoRA op, the same y.
            self.calls.clear()
            with self.torch.no_grad():
                adapted(self.torch.randn(T, D))
            self.assertEqual([kind for kind, _ in self.calls], ["forward_nograd"])
            self.assertIn("lora_a", self.calls[0][1])

    def test_some_projections(self):
        # gate and down only: Bu all zero; down only: no gate/up group; up
        # only: no down group.
        for targets, r, rd in ((["gate_proj", "down_proj"], 16, 16), (["down_proj"], 0, 16),
                               (["up_proj"], 16, 0)):
            with self.subTest(targets=targets):
                model, config = self.llama()
                self.fmlp.patch_model(model, config)
                adapted = self.adapt(model, {"default": dict(r=8, lora_alpha=16,
                                                             target_modules=targets)})
                reference = copy.deepcopy(adapted)
                self.fused_run(self.compare(adapted, reference), r, rd)

    def test_trainable_base_too(self):
        # Base weights trainable as well (modules_to_save-like): every
        # gradient computed, the base's too.
        model, config = self.llama()
        self.fmlp.patch_model(model, config)
        adapted = self.adapt(model, {"default": dict(r=8, lora_alpha=8, target_modules=[
            "gate_proj", "up_proj", "down_proj"])})
        for name, p in adapted.named_parameters():
            if "base_layer" in name:
                p.requires_grad_(True)
        reference = copy.deepcopy(adapted)
        backward = self.compare(adapted, reference)
        self.assertTrue({"d_gate", "d_up", "d_down", "d_lora_a", "d_down_lora_b"} <= backward[0])

    def test_phi3_gate_up_proj(self):
        # One adapter on gate_up_proj ([2 H, r] B: the gate's rows, then
        # up's) enters A_cat once, its B's halves in Bg and Bu.
        from transformers import Phi3Config
        from transformers.models.phi3.modeling_phi3 import Phi3MLP
        config = Phi3Config(hidden_size=D, intermediate_size=H, hidden_act="silu",
                            num_attention_heads=4, num_key_value_heads=4)
        self.torch.manual_seed(0)
        model = _model(Phi3MLP(config), config)
        self.assertEqual(self.fmlp.patch_model(model, config), 1)
        adapted = self.adapt(model, {"default": dict(r=8, lora_alpha=16, target_modules=[
            "gate_up_proj", "down_proj"])})
        reference = copy.deepcopy(adapted)
        with warnings.catch_warnings():
            warnings.simplefilter("error", self.fmlp.UnfusedWarning)
            self.fused_run(self.compare(adapted, reference), 16, 16)

    def test_memory_report_counts_the_adapters(self):
        # fmlp-compile's plan with the adapters' Z and Zd saved beside A,
        # G, U: T (R + Rd) more f32 elements (R = 16, Rd = 16 here).
        model, config = self.llama()
        self.fmlp.patch_model(model, config)
        plain = model.mlp.memory_report(100)
        adapted = self.adapt(model, {"default": dict(r=8, lora_alpha=16, target_modules=[
            "gate_proj", "up_proj", "down_proj"])})
        report = adapted.base_model.model.mlp.memory_report(100)
        self.assertEqual(report["saved_bytes"] - plain["saved_bytes"], 100 * (16 + 16) * 4)

    def test_refused_block_falls_back_before_building_adapters(self):
        # A LoRA block fmlp-compile refuses (a stand-in refusal) runs
        # PEFT's forward with one warning naming the compiler's error, and
        # the adapters' matrices are never built; FMLP_STRICT=1 raises.
        from fmlp import lora, spec
        refuse = unittest.mock.patch.object(spec, "find_or_compile", unittest.mock.Mock(
            side_effect=spec.CompileFailed("fmlp-compile ... failed:\nstand-in refusal")))
        built = unittest.mock.patch.object(lora, "block_adapters", unittest.mock.Mock(
            side_effect=AssertionError("built")))
        model, config = self.llama()
        self.fmlp.patch_model(model, config)
        adapted = self.adapt(model, {"default": dict(r=8, lora_alpha=16, target_modules=[
            "gate_proj", "up_proj", "down_proj"])})
        x = self.torch.randn(T, D)
        with refuse, built, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = adapted(x)
            adapted(x)
            os.environ["FMLP_STRICT"] = "1"
            with self.assertRaisesRegex(spec.CompileFailed, "stand-in refusal"):
                adapted(x)
        warned = [str(w.message) for w in caught if issubclass(w.category, self.fmlp.UnfusedWarning)]
        self.assertEqual(len(warned), 1, warned)
        self.assertIn("stand-in refusal", warned[0])
        self.assertEqual(self.calls, [])
        self.assertTrue(self.torch.equal(y, self.peft_run(adapted, x)))

    def test_controls(self):
        """The comparison catches a scale left out of A_cat and adapters
        left out (the module run without their terms)."""
        from fmlp import lora, modules
        model, config = self.llama()
        self.fmlp.patch_model(model, config)
        adapted = self.adapt(model, {"default": dict(r=8, lora_alpha=32, target_modules=[
            "gate_proj", "up_proj", "down_proj"])})
        reference = copy.deepcopy(adapted)
        unscaled = lambda terms, widths, stack=lora.stack: stack(  # noqa: E731
            [(a, 1.0, b) for a, _, b in terms], widths)
        with unittest.mock.patch.object(lora, "stack", unscaled):
            with self.assertRaises(AssertionError):
                self.compare(adapted, reference)
        without = lambda self, x, params, found, *rest: self.fused(x, params, *rest)  # noqa: E731
        with unittest.mock.patch.object(modules.FusedGatedMLP, "fused_lora", without):
            with self.assertRaises(AssertionError):
                self.compare(adapted, reference)


@unittest.skipUnless(HAVE_PEFT and HAVE_TRANSFORMERS, "needs torch, peft and transformers")
class PeftGuardDecisions(_PeftCase, unittest.TestCase):
    """What the guard decides on real PEFT layers, with its warning, and
    that the decision gives PEFT's result."""

    def test_class_attributes_named_like_the_fast_paths_reads(self):
        """The LoRA fast path reads lora_A etc. from nn.Module's dicts, which
        getattr reaches only after the class: a class attribute of that name,
        None included, leaves the class to the full guard, as does a data
        descriptor named like an attribute it reads."""
        from fmlp import modules
        linear = self.peft.tuners.lora.layer.Linear
        self.assertTrue(modules._lora_layout_known(linear))
        for shadows in ({"lora_A": None}, {"base_layer": self.torch.nn.Identity()},
                        {"scaling": property(lambda layer: {})}):
            shadowed = type("Shadowed", (linear,), shadows)
            self.assertFalse(modules._lora_layout_known(shadowed), shadows)

    def unfused_warnings(self, call):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = call()
        return result, [str(w.message) for w in caught
                        if issubclass(w.category, self.fmlp.UnfusedWarning)]

    def patched(self, adapters=None, dtype=None, **keywords):
        model, config = self.llama()
        if dtype is not None:
            model.to(dtype)
        self.fmlp.patch_model(model, config)
        adapted = self.adapt(model, adapters or {"default": dict(
            r=8, lora_alpha=16, target_modules=["gate_proj", "up_proj", "down_proj"],
            **keywords)})
        return adapted, adapted.base_model.model.mlp

    def assert_falls_back(self, adapted, *phrases):
        """One UnfusedWarning with `phrases`, no fmlp op, PEFT's y."""
        reference = copy.deepcopy(adapted)
        self.calls.clear()
        x = self.torch.randn(T, D, dtype=next(adapted.parameters()).dtype)
        self.torch.manual_seed(5)  # the same dropout masks, where PEFT draws them
        y, warned = self.unfused_warnings(lambda: adapted(x))
        self.assertEqual(len(warned), 1, warned)
        for phrase in phrases:
            self.assertIn(phrase, warned[0])
        self.assertEqual(self.calls, [])
        self.torch.manual_seed(5)
        self.assertTrue(self.torch.equal(y, self.peft_run(reference, x)))
        return warned[0]

    def test_dora_falls_back(self):
        adapted, _ = self.patched(use_dora=True)
        self.assert_falls_back(adapted, "gate_proj is a PEFT LoRA layer whose adapter 'default'",
                               "LoRA variant", "Dora")

    def assert_fuses_in_eval(self, adapted):
        """In eval mode PEFT's dropout is the identity: one fused forward,
        no warning, PEFT's y."""
        adapted.eval()
        x = self.torch.randn(T, D)
        self.calls.clear()
        y, warned = self.unfused_warnings(lambda: adapted(x))
        self.assertEqual(warned, [])
        self.assertEqual([kind for kind, _ in self.calls], ["forward"])
        self.assertClose(y, self.peft_run(adapted, x.double()), "y")

    def test_dropout(self):
        adapted, _ = self.patched(lora_dropout=0.1)
        self.assert_falls_back(adapted, "dropout p = 0.1 in training mode")
        self.assert_fuses_in_eval(adapted)

    def test_dropout_patched_in_training_mode(self):
        # PEFT first (get_peft_model leaves the model in training mode),
        # then patch_model: training-mode dropout is a condition of each
        # call, so the MLP is patched (judged as in eval mode, its modules'
        # modes restored); it falls back in training mode and fuses in eval.
        model, config = self.llama()
        adapted = self.adapt(model, {"default": dict(
            r=8, lora_alpha=16, lora_dropout=0.1,
            target_modules=["gate_proj", "up_proj", "down_proj"])})
        modes = [m.training for m in adapted.modules()]
        self.assertTrue(all(modes))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.assertEqual(self.fmlp.patch_model(adapted, config), 1)
        self.assertEqual([str(w.message) for w in caught], [])
        self.assertEqual([m.training for m in adapted.modules()], modes)
        self.assert_falls_back(adapted, "dropout p = 0.1 in training mode")
        self.assert_fuses_in_eval(adapted)

    def test_disabled_adapters_fuse_without_terms(self):
        adapted, _ = self.patched()
        x = self.torch.randn(T, D)
        with adapted.disable_adapter():
            self.calls.clear()
            y, warned = self.unfused_warnings(lambda: adapted(x))
            reference = self.peft_run(adapted, x.double())
        self.assertEqual(warned, [])
        self.assertEqual(len(self.calls), 1)
        self.assertFalse({"lora_a", "down_lora_a"} & self.calls[0][1])  # the plain op
        self.assertClose(y, reference, "y")

    def test_merged(self):
        # Every active adapter merged: the base weights hold them, the
        # plain op runs, PEFT's y (merged and, within rounding, unmerged).
        adapted, _ = self.patched()
        x = self.torch.randn(T, D)
        unmerged = self.peft_run(adapted, x.double())
        adapted.merge_adapter()
        self.calls.clear()
        with self.torch.no_grad():
            y, warned = self.unfused_warnings(lambda: adapted(x))
            merged = self.peft_run(adapted, x.double())
        self.assertEqual(warned, [])
        self.assertFalse({"lora_a", "down_lora_a"} & self.calls[0][1])
        self.assertClose(y, merged, "y")
        self.assertClose(y, unmerged, "y")  # W + s B A rounded to f32 once more
        # One of two active adapters merged: a mix, left to PEFT.
        adapted.unmerge_adapter()
        targets = ["gate_proj", "up_proj", "down_proj"]
        mixed, _ = self.patched({"a": dict(r=4, lora_alpha=8, target_modules=targets),
                                 "b": dict(r=4, lora_alpha=8, target_modules=targets)})
        mixed.base_model.merge_adapter(["a"])
        self.assert_falls_back(mixed, "with adapters ['a'] merged and active adapters ['b'] not")

    def test_adapters_of_another_dtype(self):
        # PEFT keeps the adapters of a bf16 model in float32
        # (autocast_adapter_dtype=True): cast to bf16 per call and fused,
        # their gradients float32; y, dx and every LoRA gradient within
        # lora_criterion of PEFT's own bf16 run (which multiplies them in
        # float32) from float64.
        from lora_criterion import UNIT, worst_ratio
        torch = self.torch
        adapted, mlp = self.patched(dtype=torch.bfloat16)
        self.assertEqual(mlp.gate_proj.lora_A["default"].weight.dtype, torch.float32)
        g = torch.Generator().manual_seed(4)
        x, dy = (torch.randn(2, T, D, generator=g).to(torch.bfloat16) for _ in range(2))
        self.calls.clear()
        (y, dx, grads), warned = self.unfused_warnings(lambda: self.run_model(adapted, x, dy))
        self.assertEqual(warned, [])
        self.assertEqual([kind for kind, _ in self.calls], ["forward", "backward"])
        self.assertIn("lora_a", self.calls[0][1])
        self.assertEqual({grad.dtype for grad in grads.values()}, {torch.float32})
        fused = {"y": y, "dx": dx, **grads}
        theirs, exact = ({"y": run[0], "dx": run[1], **run[2]} for run in (
            self.peft_run(adapted, x, dy), self.peft_run(adapted, x.double(), dy.double())))
        self.assertEqual(set(fused), set(exact))
        worst, where = worst_ratio(fused, theirs, exact, UNIT[torch.bfloat16])
        self.assertLessEqual(worst, 1.0, where)
        # The switch: PEFT's forward, its float32 adapter math.
        mlp.cast_adapters = False
        self.assert_falls_back(adapted, "lora_A weight is torch.float32 over a torch.bfloat16 "
                               "base weight", "cast_adapters")
        # Under torch.autocast PEFT's projections run in bf16 all the same:
        # fused, within bf16's rounding of PEFT's float64 result.
        self.calls.clear()
        x = x[0]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y, warned = self.unfused_warnings(lambda: adapted(x))
        self.assertEqual(warned, [])
        self.assertIn("lora_a", self.calls[-1][1])
        self.assertEqual(y.dtype, torch.bfloat16)
        reference = self.peft_run(adapted, x.double())
        # bf16 operands (x, weights, A_cat, and Z, A as the kernels would
        # not round them here): a relative 2^-8 each through two products.
        self.assertClose(y, reference, "y", 2.0 ** -5)

    def test_adapters_of_lower_precision_are_refused(self):
        # bf16 adapters over an f32 model: PEFT multiplies them in bf16,
        # fmlp's f32 block would not; left to PEFT, with its warning.
        adapted, _ = self.patched()
        with self.torch.no_grad():
            for name, p in adapted.named_parameters():
                if "lora_" in name:
                    p.data = p.data.to(self.torch.bfloat16)
        self.assert_falls_back(adapted, "lora_A weight is torch.bfloat16 over a torch.float32 "
                               "base weight")

    def test_adapter_weights_not_dense_in_place(self):
        # r = 16 and scale 1: one adapter's A reaches the kernels as it is
        # (A_cat, no padding, no product), so it must be dense row-major in
        # place as the base weights are; a transposed copy seen through .t()
        # ran fused (the runtime's layout check raised on a GPU). Now PEFT's
        # forward, one warning naming it; patch_model leaves it alone.
        targets = ["gate_proj", "up_proj", "down_proj"]
        adapted, mlp = self.patched({"default": dict(r=16, lora_alpha=16,
                                                     target_modules=targets)})
        weight = mlp.up_proj.lora_A["default"].weight
        weight.data = weight.data.t().contiguous().t()
        reason = ("up_proj's adapter 'default' lora_A weight is not contiguous "
                  f"(shape (16, {D}), strides (1, 16))")
        self.assert_falls_back(adapted, reason)
        model, config = self.llama()
        adapted = self.adapt(model, {"default": dict(r=16, lora_alpha=16,
                                                     target_modules=targets)})
        weight = adapted.base_model.model.mlp.down_proj.lora_B["default"].weight
        weight.data = weight.data.t().contiguous().t()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.assertEqual(self.fmlp.patch_model(adapted, config), 0)
        self.assertIn("down_proj's adapter 'default' lora_B weight is not contiguous",
                      str(caught[-1].message))

    def test_adapter_without_lora_b_bias(self):
        adapted, _ = self.patched(lora_bias=True)
        self.assert_falls_back(adapted, "lora_B has a bias")

    def test_adapters_added_after_patching_and_removed(self):
        # The guard runs at every forward: a plain module, then adapters,
        # then adapters gone (unload), each run as it is.
        model, config = self.llama()
        self.fmlp.patch_model(model, config)
        x = self.torch.randn(T, D)
        self.calls.clear()
        model(x)
        adapted = self.adapt(model, {"default": dict(r=8, lora_alpha=16, target_modules=[
            "gate_proj"])})
        adapted(x)
        base = adapted.unload()
        base(x)
        self.assertEqual([("lora_a" in args) for _, args in self.calls], [False, True, False])


@unittest.skipUnless(HAVE_PEFT and HAVE_TRANSFORMERS, "needs torch, peft and transformers")
class KeptAdapterMatrices(_PeftCase, unittest.TestCase):
    """FusedGatedMLP.reuse_adapters (opt-in): fused_lora's matrices kept
    from call to call where autograd records nothing, while
    modules._adapter_key is the same. A kept call gives the LoRA op the
    inputs a build gives, bit for bit; every write that moves a version
    counter or replaces a weight, a new scale, other active adapters are
    seen (control: a key without the version misses the in-place writes);
    writes through .data and a fused optimizer's step are not (why the
    switch is off by default), except after a call through the module
    that records autograd; under grad (trainable adapters) nothing is
    kept."""

    ADAPTERS = ("lora_a", "gate_lora_b", "up_lora_b", "down_lora_a", "down_lora_b")
    TARGETS = ["gate_proj", "up_proj", "down_proj"]

    def setUp(self):
        super().setUp()
        from fmlp import lora, modules, ops
        from test_ops import emulate
        self.modules, self.lora = modules, lora
        self.inputs = []

        def recording(path, kind, args):  # the op's adapter inputs, copied
            self.inputs.append({n: args[n].clone() for n in self.ADAPTERS if n in args})
            emulate(path, kind, args)
        ops.emulate = recording

    def model(self, dtype=None, adapters=None, reuse=True):
        """A patched, adapted tiny Llama MLP (LoRA r = 8, alpha 16 on gate,
        up, down unless `adapters`), reuse_adapters as `reuse`; and x."""
        model, config = self.llama()
        if dtype is not None:
            model.to(dtype)
        self.fmlp.patch_model(model, config)
        adapted = self.adapt(model, adapters or {"default": dict(
            r=8, lora_alpha=16, target_modules=self.TARGETS)})
        mlp = adapted.base_model.model.mlp
        mlp.reuse_adapters = reuse
        x = self.torch.randn(T, D, generator=self.torch.Generator().manual_seed(2)).to(
            mlp.gate_proj.base_layer.weight.dtype)
        return adapted, mlp, x

    def op_inputs(self, adapted, x):
        """The adapter matrices the LoRA op is given in a no-grad call."""
        self.inputs.clear()
        with self.torch.no_grad():
            adapted(x)
        self.assertEqual(len(self.inputs), 1)
        return self.inputs[0]

    def built(self, mlp, x):
        """The matrices a build gives now, by name."""
        found = self.modules.projections(mlp, mlp._linears())
        with self.torch.no_grad():
            matrices = mlp._cast_adapters(found, x.dtype)
        return {n: m for n, m in zip(self.ADAPTERS, matrices) if m is not None}

    def assertSame(self, got, expected, what):
        self.assertEqual(set(got), set(expected), what)
        for name in got:
            self.assertEqual(got[name].dtype, expected[name].dtype, f"{what}: {name}")
            self.assertTrue(self.torch.equal(got[name], expected[name]), f"{what}: {name}")

    def assertDiffer(self, got, expected, what):
        self.assertFalse(set(got) == set(expected) and all(
            self.torch.equal(got[n], expected[n]) for n in got), f"{what}: unchanged")

    def test_kept_matrices_are_a_builds_bit_for_bit(self):
        # f32; a bf16 model's float32 adapters (the cast kept too); two
        # adapters, one rsLoRA on gate and down only.
        torch = self.torch
        for label, dtype, adapters in (
                ("f32", None, None), ("bf16, f32 adapters", torch.bfloat16, None),
                ("two adapters", None, {
                    "a": dict(r=4, lora_alpha=8, target_modules=self.TARGETS),
                    "b": dict(r=8, lora_alpha=4, use_rslora=True,
                              target_modules=["gate_proj", "down_proj"])})):
            adapted, mlp, x = self.model(dtype, adapters)
            first = self.op_inputs(adapted, x)
            self.assertIn("_fmlp_adapters", mlp.__dict__, label)
            built = self.built(mlp, x)
            never = unittest.mock.patch.object(self.lora, "block_adapters", unittest.mock.Mock(
                side_effect=AssertionError("built again")))
            with never:
                kept = self.op_inputs(adapted, x)
                # Adapters disabled (the plain op), then enabled again: kept.
                adapted.base_model.disable_adapter_layers()
                with torch.no_grad():
                    adapted(x)
                adapted.base_model.enable_adapter_layers()
                again = self.op_inputs(adapted, x)
            for what, inputs in (("first", first), ("kept", kept), ("again", again)):
                self.assertSame(inputs, built, f"{label}, {what}")

    def test_off_by_default(self):
        adapted, mlp, x = self.model()
        del mlp.reuse_adapters
        self.assertFalse(mlp.reuse_adapters)
        self.op_inputs(adapted, x)
        self.assertNotIn("_fmlp_adapters", mlp.__dict__)

    # Writes to up_proj's lora_B (or others) and changes that a kept call
    # must see: (label, change(adapted, mlp)).
    def changes(self):
        torch = self.torch

        def lora_b(mlp):
            return mlp.up_proj.lora_B["default"].weight

        def step(optimizer, **keywords):
            def change(adapted, mlp):
                p = lora_b(mlp)
                p.grad = torch.randn_like(p)
                optimizer([p], lr=0.1, **keywords).step()
                p.grad = None
            return change

        def no_grad(write):
            def change(adapted, mlp):
                with torch.no_grad():
                    write(mlp)
            return change

        def state_dict(adapted, mlp):
            layer = mlp.up_proj.lora_B["default"]
            layer.load_state_dict({"weight": torch.randn_like(layer.weight)})

        def other_adapter(adapted, mlp):
            adapted.add_adapter("other", self.peft.LoraConfig(
                r=8, lora_alpha=16, target_modules=self.TARGETS))
            _randomize_adapters(adapted, 11)
            adapted.base_model.set_adapter("other")

        return [
            ("an optimizer step (SGD)", step(torch.optim.SGD)),
            ("an optimizer step (AdamW, foreach)", step(torch.optim.AdamW, foreach=True)),
            ("p.add_ under no_grad", no_grad(lambda mlp: lora_b(mlp).add_(1.0))),
            ("p.copy_ under no_grad", no_grad(lambda mlp: lora_b(mlp).copy_(
                torch.randn_like(lora_b(mlp))))),
            ("a write to a view of p", no_grad(lambda mlp: lora_b(mlp)[0].zero_())),
            ("lora_A of down, p.mul_", no_grad(
                lambda mlp: mlp.down_proj.lora_A["default"].weight.mul_(2.0))),
            ("load_state_dict", state_dict),
            ("nn.init.normal_", lambda adapted, mlp: torch.nn.init.normal_(lora_b(mlp))),
            ("p.data = a new tensor", lambda adapted, mlp: setattr(
                lora_b(mlp), "data", torch.randn_like(lora_b(mlp)))),
            ("PEFT's set_scale", lambda adapted, mlp: mlp.gate_proj.set_scale("default", 0.5)),
            ("a scale assigned", lambda adapted, mlp: mlp.down_proj.scaling.__setitem__(
                "default", 3.0)),
            ("other active adapters", other_adapter),
        ]

    def check_seen(self, change, dtype=None):
        """A kept call after `change` gives the LoRA op a build's inputs,
        not the kept ones."""
        adapted, mlp, x = self.model(dtype)
        before = self.op_inputs(adapted, x)
        change(adapted, mlp)
        after = self.op_inputs(adapted, x)
        self.assertDiffer(after, before, "the change")
        self.assertSame(after, self.built(mlp, x), "after the change")

    def test_changes_are_seen(self):
        for label, change in self.changes():
            with self.subTest(label):
                self.check_seen(change)
        # A bf16 model's float32 adapters: the cast ones are kept.
        self.check_seen(self.changes()[2][1], self.torch.bfloat16)

    def test_control_a_key_without_the_version(self):
        # The same checks with a key that leaves out _version: the in-place
        # writes are missed, and check_seen fails on each.
        from fmlp import modules
        versionless = lambda w: (id(w), w.data_ptr(), w.dtype, w.shape, w.stride())  # noqa: E731
        missed = []
        with unittest.mock.patch.object(modules, "_weight_key", versionless):
            for label, change in self.changes():
                try:
                    self.check_seen(change)
                except AssertionError:
                    missed.append(label)
        self.assertEqual(missed, [label for label, _ in self.changes()[:7]] + ["nn.init.normal_"])

    def test_writes_that_move_no_version(self):
        # Writes through .data (PEFT's hotswap_adapter writes so) and a
        # fused optimizer's step leave the key as it was: a kept call
        # gives the stale matrices (why reuse_adapters is off by default);
        # with it off, a build's.
        torch = self.torch

        def data_add(mlp):
            mlp.up_proj.lora_B["default"].weight.data.add_(1.0)

        def fused_adamw(mlp):
            p = mlp.up_proj.lora_B["default"].weight
            p.grad = torch.randn_like(p)
            torch.optim.AdamW([p], lr=0.1, fused=True).step()
            p.grad = None
        for label, write in (("p.data.add_", data_add), ("AdamW(fused=True)", fused_adamw)):
            with self.subTest(label):
                adapted, mlp, x = self.model()
                before = self.op_inputs(adapted, x)
                write(mlp)
                self.assertSame(self.op_inputs(adapted, x), before, f"{label}: kept (stale)")
                mlp.reuse_adapters = False
                after = self.op_inputs(adapted, x)
                self.assertDiffer(after, before, label)
                self.assertSame(after, self.built(mlp, x), label)

    def test_a_training_step_between_evaluations(self):
        # A training step through the module (autograd records: the kept
        # matrices dropped) with a fused AdamW between two no-grad calls:
        # the second builds anew; likewise a step through PEFT's forward
        # (the fallback: dropout in training mode), evaluated in eval mode.
        torch = self.torch
        for dropout in (0.0, 0.1):
            with self.subTest(dropout=dropout):
                adapted, mlp, x = self.model(adapters={"default": dict(
                    r=8, lora_alpha=16, lora_dropout=dropout, target_modules=self.TARGETS)})
                adapted.eval()
                before = self.op_inputs(adapted, x)
                adapted.train()
                trainable = [p for p in adapted.parameters() if p.requires_grad]
                optimizer = torch.optim.AdamW(trainable, lr=0.1, fused=True)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # the fallback's warning
                    adapted(x).square().sum().backward()
                optimizer.step()
                adapted.eval()
                after = self.op_inputs(adapted, x)
                self.assertDiffer(after, before, "the step")
                self.assertSame(after, self.built(mlp, x), "after the step")

    def test_nothing_kept_under_grad(self):
        # Trainable adapters with grad enabled: built at every call (their
        # graph reaches lora_A and lora_B), any kept ones dropped; frozen
        # adapters with grad enabled: kept (autograd records nothing of
        # them), also when x asks for its gradient.
        adapted, mlp, x = self.model()
        builds = unittest.mock.Mock(side_effect=self.lora.block_adapters)
        with unittest.mock.patch.object(self.lora, "block_adapters", builds):
            self.op_inputs(adapted, x)
            self.assertIn("_fmlp_adapters", mlp.__dict__)
            for _ in range(2):
                adapted(x).sum().backward()
            self.assertEqual(builds.call_count, 3)
            self.assertNotIn("_fmlp_adapters", mlp.__dict__)
            grads = [p.grad for n, p in adapted.named_parameters() if "lora_" in n]
            self.assertTrue(grads and all(g is not None and g.abs().sum() > 0 for g in grads))
            adapted.requires_grad_(False)
            xx = x.clone().requires_grad_(True)
            adapted(xx).sum().backward()
            adapted(xx).sum().backward()
            self.assertEqual(builds.call_count, 4)
            self.assertIsNotNone(xx.grad)

    def test_inference_mode_kept_apart(self):
        # Matrices kept under torch.inference_mode are inference tensors: a
        # later call whose backward would save them builds its own.
        torch = self.torch
        adapted, mlp, x = self.model()
        adapted.requires_grad_(False)
        with torch.inference_mode():
            adapted(x)
        self.assertIn("_fmlp_adapters", mlp.__dict__)  # kept under inference mode
        xx = x.clone().requires_grad_(True)
        adapted(xx).sum().backward()
        self.assertIsNotNone(xx.grad)

    def test_replaced_weights_never_alias_the_kept_address(self):
        # p.data = t keeps p's id and version: the key tells the new
        # weights by their address, so the kept entry holds the old
        # memory, which no later p.data = t can then reuse (without it,
        # the CPU allocator gave the original address back within a few
        # replacements and the kept call returned the old weights'
        # matrices; session 27's second reading).
        torch = self.torch
        adapted, mlp, x = self.model()
        p = mlp.up_proj.lora_B["default"].weight
        for step in range(20):
            self.op_inputs(adapted, x)
            address = p.data_ptr()
            p.data = torch.empty_like(p).normal_()
            held = [t.data_ptr() for t in mlp.__dict__["_fmlp_adapters"][1]]
            self.assertIn(address, held, f"the kept entry holds the old memory ({step})")
            self.assertSame(self.op_inputs(adapted, x), self.built(mlp, x),
                            f"after replacement {step}")

    def test_unload_drops_the_kept_matrices(self):
        adapted, mlp, x = self.model()
        self.op_inputs(adapted, x)
        self.assertIn("_fmlp_adapters", mlp.__dict__)
        base = adapted.unload()
        with self.torch.no_grad():
            base(x)
        self.assertNotIn("_fmlp_adapters", mlp.__dict__)


if __name__ == "__main__":
    unittest.main()
