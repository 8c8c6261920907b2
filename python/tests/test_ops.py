"""fmlp's torch ops on the CPU (no GPU): gradients only where asked, the
ops' registration (schema, fake kernels, autograd, the mutation of
`saved`), and Hugging Face's forward for an x the kernels cannot take
(with transformers). The bundles are real (fmlp-compile, FMLP_BIN_DIR), their
manifests and the runtime's fmlp_outputs_needed decide what is allocated;
only the kernels are replaced, by fmlp.ops.emulate computing the entry
points in float64 (and writing only the outputs it is given, as the
runtime's skipped kernels would not). Needs torch; skipped without it.

  FMLP_BIN_DIR=build/bin FMLP_RUNTIME_LIB=build/lib/libfmlp_runtime.so \\
  PYTHONPATH=python python3 -m unittest -v test_ops   (in python/tests)
"""
import importlib.util
import os
import tempfile
import unittest
import unittest.mock

D, H, T = 64, 128, 5

HAVE_TORCH = importlib.util.find_spec("torch") is not None


def _block_of(path):
    """(activation, m_g, m_d) of the bundle at `path`, from its key
    (spec.BlockSpec.key: an activation part, gm<m_g>, dm<m_d>); SiLU and
    1.0 for a path without them."""
    parts = os.path.basename(path).split("-")
    activation = next((p for p in parts if p in ("silu", "gelu_tanh", "relu")), "silu")
    multiplier = lambda prefix: next((float(p[2:]) for p in parts  # noqa: E731
                                      if p.startswith(prefix) and p[2:3].isdigit()), 1.0)
    return activation, multiplier("gm"), multiplier("dm")


def _derivative(activation, g):
    """act'(g), elementwise (no autograd: an op's implementation runs
    below it)."""
    import torch
    if activation == "silu":
        s = torch.sigmoid(g)
        return s * (1 + g * (1 - s))
    if activation == "relu":
        return (g > 0).to(g.dtype)
    # gelu_tanh: act(g) = g (1 + tanh(k)) / 2, k = c (g + 0.044715 g^3).
    c = (2 / torch.pi) ** 0.5
    t = torch.tanh(c * (g + 0.044715 * g ** 3))
    return (1 + t) / 2 + g * (1 - t * t) * c * (1 + 3 * 0.044715 * g * g) / 2


def emulate(path, kind, args):
    """The entry point `kind` in float64: the bundle's activation and
    multipliers (its key, _block_of); the LoRA adapters' terms where the
    bundle takes them (lora_a, gate_lora_b, up_lora_b; down_lora_a,
    down_lora_b: docs/LoRA.md); saved = A | G | U, G | U, U or nothing as
    the bundle's memory policy has it (its width), then Z and Zd; an output
    absent from `args` (not needed) is not computed. With
    G = m_g (x Wg^T + Z Bg^T), U = x Wu^T + Z Bu^T, A = act(G) U and
    y = m_d (A Wd^T + Zd Bd^T) (biases inside the brackets), Z = x A_cat^T
    and Zd = A Ad^T, the backward's terms are, with dY = m_d dy:

      dZd = dY Bd                 dA = dY Wd + dZd Ad
      dG = m_g dA U act'(G)       dU = dA act(G)
      dZ = dG Bg + dU Bu          dx = dG Wg + dU Wu + dZ A_cat
      d_lora_a = dZ^T x           d_gate_lora_b = dG^T Z    d_up_lora_b = dU^T Z
      d_down_lora_a = dZd^T A     d_down_lora_b = dY^T Zd

    (test_lora.py holds them to float64 autograd)."""
    import torch
    F = torch.nn.functional
    activation, gate_multiplier, down_multiplier = _block_of(path)
    act = {"silu": F.silu, "gelu_tanh": lambda g: F.gelu(g, approximate="tanh"),
           "relu": F.relu}[activation]

    def get(n):
        return args[n].double() if n in args else None
    x, gate, up, down = (get(n) for n in ("x", "gate", "up", "down"))
    gate_bias, up_bias, down_bias = (get(n) for n in ("gate_bias", "up_bias", "down_bias"))
    a_cat, b_g, b_u, a_d, b_d = (get(n) for n in ("lora_a", "gate_lora_b", "up_lora_b",
                                                  "down_lora_a", "down_lora_b"))
    z = x @ a_cat.t() if a_cat is not None else None
    g = F.linear(x, gate, gate_bias)
    u = F.linear(x, up, up_bias)
    if z is not None:
        g, u = g + z @ b_g.t(), u + z @ b_u.t()
    g = gate_multiplier * g
    a = act(g) * u
    zd = a @ a_d.t() if a_d is not None else None
    adapters = [t for t in (z, zd) if t is not None]
    h = gate.shape[0]
    if kind in ("forward", "forward_nograd"):
        y = F.linear(a, down, down_bias)
        if zd is not None:
            y = y + zd @ b_d.t()
        args["y"].copy_(down_multiplier * y)
        if kind == "forward" and "saved" in args:
            width = args["saved"].shape[1] - sum(t.shape[1] for t in adapters)
            kept = {3 * h: [a, g, u], 2 * h: [g, u], h: [u]}[width]
            args["saved"].copy_(torch.cat(kept + adapters, dim=1))
        return
    saved, dy = args.get("saved"), down_multiplier * args["dy"].double()
    dzd = dy @ b_d if b_d is not None else None
    da = dy @ down if dzd is None else dy @ down + dzd @ a_d
    dg, du = gate_multiplier * da * u * _derivative(activation, g), da * act(g)
    dz = dg @ b_g + du @ b_u if z is not None else None
    results = {"dx": lambda: dg @ gate + du @ up + (dz @ a_cat if dz is not None else 0),
               "d_gate": lambda: dg.t() @ x, "d_up": lambda: du.t() @ x,
               "d_down": lambda: dy.t() @ a,
               "d_gate_bias": lambda: dg.sum(0), "d_up_bias": lambda: du.sum(0),
               "d_down_bias": lambda: dy.sum(0),
               "d_lora_a": lambda: dz.t() @ x, "d_gate_lora_b": lambda: dg.t() @ z,
               "d_up_lora_b": lambda: du.t() @ z,
               "d_down_lora_a": lambda: dzd.t() @ a, "d_down_lora_b": lambda: dy.t() @ zd}
    for name, result in results.items():
        if name in args:
            args[name].copy_(result())
    # dG, dU over G, U: the 2 H columns before Z and Zd (save=x: an empty
    # stand-in, the bundle's backward has no saved argument; save=u keeps
    # no G to write over).
    end = (saved.shape[1] - sum(t.shape[1] for t in adapters)
           if saved is not None and saved.numel() else 0)
    if end >= 2 * h:
        saved[:, end - 2 * h:end].copy_(torch.cat([dg, du], dim=1))


def off_boundary(t):
    """A copy of t one element past a 16-byte boundary (a view into a
    flat buffer): off the boundary for every dtype fmlp takes."""
    import torch
    view = torch.empty(t.numel() + 1, dtype=t.dtype, device=t.device)[1:].view(t.shape)
    assert view.data_ptr() % 16, "one element past an allocation is off its boundary"
    return view.copy_(t)


def record_launches(test):
    """fmlp's launches emulated (emulate) for `test`'s duration, each
    recorded in test.calls as (kind, the names of its arguments)."""
    from fmlp import ops
    test.calls = []

    def recording(path, kind, args):
        test.calls.append((kind, set(args)))
        emulate(path, kind, args)
    ops.emulate = recording
    test.addCleanup(setattr, ops, "emulate", None)


def block_spec_on_sm90a(module, x, params=None, memory_policy=None, precision=None,
                        lora_ranks=(0, 0)):
    """FusedGatedMLP.block_spec where the GPU is stood in for: the spec the
    module asks for on an H200 (chip sm_90a; the memory policy and
    precision resolved as there), without block_spec's CUDA-only checks."""
    from fmlp import ops, policy
    params = module._params() if params is None else params
    return module._spec(params, ops.DTYPES[x.dtype], "sm_90a",
                        policy.resolve(memory_policy, module.memory_policy),
                        module._precision(x.dtype, precision), lora_ranks)


def gpu_stand_ins(block_spec=block_spec_on_sm90a):
    """Patchers (not started) that stand in for an H200 where there is
    none: FusedGatedMLP.block_spec is `block_spec`, and an x on the CPU
    passes the fused path's input check when the kernels take its dtype
    (float64 still runs Hugging Face's forward). The launches are the
    caller's to emulate (ops.emulate)."""
    from fmlp import modules, ops
    check = modules._why_not_fused_input

    def input_check(x):
        return None if x.dtype in ops.DTYPES else check(x)
    return [unittest.mock.patch.object(modules.FusedGatedMLP, "block_spec", block_spec),
            unittest.mock.patch.object(modules, "_why_not_fused_input", input_check)]


@unittest.skipUnless(HAVE_TORCH, "torch is not installed")
class GradientsOnlyWhereAsked(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import torch
        from fmlp import ops, spec
        cls.torch, cls.ops = torch, ops
        cls.cache = tempfile.TemporaryDirectory()
        os.environ["FMLP_CACHE_DIR"] = cls.cache.name
        os.environ["PATH"] = os.environ["FMLP_BIN_DIR"] + os.pathsep + os.environ["PATH"]
        cls.bundles = {bias: str(spec.find_or_compile(spec.BlockSpec(D, H, "bf16", bias=bias)))
                       for bias in (False, True)}

    def setUp(self):
        record_launches(self)
        g = self.torch.Generator().manual_seed(len(self.id()))
        randn = lambda *shape: self.torch.randn(*shape, generator=g).to(self.torch.bfloat16)  # noqa: E731
        self.x, self.dy = randn(T, D), randn(T, D)
        self.weights = [randn(H, D) / 4, randn(H, D) / 4, randn(D, H) / 4]
        self.biases = [randn(H), randn(H), randn(D)]

    def run_block(self, bias, frozen=(), x_grad=True):
        """One forward and backward through fmlp::forward; the parameters
        named in `frozen` (gate, up, down, gate_bias, ...) do not require
        grad. Returns x and the parameters (their .grad set by autograd)
        and the outputs the backward's emulation was given."""
        names = ["gate", "up", "down"] + (["gate_bias", "up_bias", "down_bias"] if bias else [])
        params = [t.clone().requires_grad_(name not in frozen)
                  for name, t in zip(names, self.weights + (self.biases if bias else []))]
        x = self.x.clone().requires_grad_(x_grad)
        y, _ = self.torch.ops.fmlp.forward(self.bundles[bias], x, *self.ops.parameters(params))
        y.backward(self.dy)
        backward = [args for kind, args in self.calls if kind == "backward"]
        self.assertEqual(len(backward), 1)
        return x, dict(zip(names, params)), backward[0]

    def reference(self, bias):
        """x's and every parameter's gradient with every one wanted (the
        control below holds it to float64 autograd)."""
        self.calls.clear()
        x, params, _ = self.run_block(bias)
        self.calls.clear()
        return [x.grad] + [p.grad for p in params.values()]

    def assertGradients(self, bias, x, params, frozen, x_grad=True):
        """The gradients wanted are those of a backward wanting all (the
        same float64 emulation, bit for bit); the others None."""
        expected = self.reference(bias)
        got = [x.grad] + [p.grad for p in params.values()]
        wants = [x_grad] + [name not in frozen for name in params]
        for name, want, grad, ref in zip(["x"] + list(params), wants, got, expected):
            if not want:
                self.assertIsNone(grad, name)
                continue
            self.assertIsNotNone(grad, name)
            self.assertTrue(self.torch.equal(grad, ref), name)

    def test_everything_wanted(self):
        # The control: every gradient computed, every output passed, each
        # as float64 autograd of the block gives it to within bf16's
        # rounding of the results and of the saved G, U (a relative 2^-8
        # each; 2^-5 of the largest element leaves room for their
        # propagation through two products, and catches a wrong or
        # missing gradient, which is off by O(1)).
        torch = self.torch
        F = torch.nn.functional
        for bias in (False, True):
            self.calls.clear()
            x, params, given = self.run_block(bias)
            self.assertTrue({"dx", "d_gate", "d_up", "d_down"} <= given)
            ts = [t.double().requires_grad_(True)
                  for t in [self.x] + self.weights + (self.biases if bias else [])]
            xr, wg, wu, wd, *b = ts
            y = F.linear(F.silu(F.linear(xr, wg, b[0] if b else None)) *
                         F.linear(xr, wu, b[1] if b else None), wd, b[2] if b else None)
            y.backward(self.dy.double())
            for name, got, ref in zip(["x"] + list(params), [x.grad] + [p.grad for p in
                                      params.values()], [t.grad for t in ts]):
                error = (got.double() - ref).abs().max().item()
                self.assertLessEqual(error, 2 ** -5 * ref.abs().max().item(), name)

    def test_frozen_weights(self):
        frozen = ("gate", "up", "down")
        x, params, given = self.run_block(False, frozen)
        self.assertIn("dx", given)
        self.assertFalse({"d_gate", "d_up", "d_down"} & given)
        self.assertGradients(False, x, params, frozen)

    def test_x_without_gradient(self):
        x, params, given = self.run_block(False, x_grad=False)
        self.assertNotIn("dx", given)
        self.assertGradients(False, x, params, (), x_grad=False)

    def test_gate_frozen_up_trainable(self):
        # One GEMM writes dWg and dWu: d_gate is computed (the runtime's
        # closure), autograd still gets None for it.
        x, params, given = self.run_block(False, ("gate", "down"))
        self.assertTrue({"d_gate", "d_up"} <= given)
        self.assertNotIn("d_down", given)
        self.assertGradients(False, x, params, ("gate", "down"))

    def test_frozen_biases(self):
        frozen = ("gate_bias", "up_bias", "down_bias")
        x, params, given = self.run_block(True, frozen)
        self.assertFalse({"d_gate_bias", "d_up_bias", "d_down_bias"} & given)
        self.assertTrue({"dx", "d_gate", "d_up", "d_down"} <= given)
        self.assertGradients(True, x, params, frozen)

    def test_only_the_down_bias(self):
        frozen = ("gate", "up", "down", "gate_bias", "up_bias")
        x, params, given = self.run_block(True, frozen, x_grad=False)
        self.assertEqual({n for n in given if n.startswith("d_") or n == "dx"}, {"d_down_bias"})
        self.assertGradients(True, x, params, frozen, x_grad=False)

    def test_wanted_from_needs_input_grad(self):
        # needs_input_grad of (bundle, x, gate, up, down, gate_bias,
        # up_bias, down_bias): an absent bias has False.
        self.assertEqual(self.ops.wanted_gradients((False, True, False, True, False) + (False,) * 3),
                         [True, False, True, False, False, False, False])
        self.assertEqual(self.ops.wanted_gradients((False, False) + (True,) * 6),
                         [False] + [True] * 6)

    def test_backward_op_results_follow_wanted(self):
        torch = self.torch
        params = self.ops.parameters([w.clone() for w in self.weights])
        _, saved = torch.ops.fmlp.forward(self.bundles[False], self.x, *params)
        version = saved._version
        # A bias's flag set for a block without biases: still empty.
        grads = torch.ops.fmlp.backward(self.bundles[False], self.x, *params, self.dy, saved,
                                        [True, False, True, False, True, False, False])
        self.assertEqual([tuple(g.shape) for g in grads],
                         [(T, D), (0,), (H, D), (0,), (0,), (0,), (0,)])
        # The schema's mutation of saved reaches autograd's version counter.
        self.assertGreater(saved._version, version)

    def test_opcheck(self):
        # Schema, fake kernels against the real ones, autograd
        # registration, AOT dispatch: for each op, gradients partly wanted.
        torch = self.torch
        for bias in (False, True):
            params = self.ops.parameters(
                [t.clone() for t in self.weights + (self.biases if bias else [])])
            path = self.bundles[bias]
            torch.library.opcheck(torch.ops.fmlp.forward_nograd, (path, self.x, *params))
            torch.library.opcheck(torch.ops.fmlp.forward, (path, self.x, *params))
            wanted = [False, True, False, False, False, bias, False]
            _, saved = torch.ops.fmlp.forward(path, self.x, *params)
            torch.library.opcheck(torch.ops.fmlp.backward,
                                  (path, self.x, *params, self.dy, saved, wanted))
        # With gradients: schema, autograd registration, fake kernels.
        x = self.x.clone().requires_grad_(True)
        params = self.ops.parameters([w.clone().requires_grad_(True) for w in self.weights])
        torch.library.opcheck(torch.ops.fmlp.forward, (self.bundles[False], x, *params),
                              test_utils=("test_schema", "test_autograd_registration",
                                          "test_faketensor"))

    def test_compiled_fullgraph_with_frozen_weights(self):
        # torch.compile(fullgraph) traces the fake kernels and
        # needs_input_grad; the compiled step gives the same gradients.
        torch = self.torch
        path = self.bundles[False]
        params = [w.clone().requires_grad_(i == 2) for i, w in enumerate(self.weights)]
        x = self.x.clone().requires_grad_(True)

        @torch.compile(fullgraph=True, backend="aot_eager")
        def step(x, params):
            return torch.ops.fmlp.forward(path, x, *self.ops.parameters(params))[0]
        step(x, params).backward(self.dy)
        backward = [args for kind, args in self.calls if kind == "backward"]
        self.assertEqual(len(backward), 1)
        self.assertFalse({"d_gate", "d_up"} & backward[0])
        self.assertGradients(False, x, dict(zip(["gate", "up", "down"], params)), ("gate", "up"))

    def test_torch_func_grad_and_vjp(self):
        # torch.func.grad and vjp through fmlp::forward: eager autograd's
        # gradients bit for bit (the same emulated backward, given dy:
        # (y * dy).sum()'s gradient of y). A second derivative raises, as
        # eager create_graph=True does: grad of grad, and a backward through
        # the gradients grad returned.
        torch = self.torch
        path, func = self.bundles[True], torch.func
        params = [t.clone() for t in self.weights + self.biases]
        expected = self.reference(True)

        def y_of(x, *params):
            return torch.ops.fmlp.forward(path, x, *params)[0]

        def loss(x, *params):
            return (y_of(x, *params) * self.dy).sum()
        grads = func.grad(loss, argnums=tuple(range(7)))(self.x, *params)
        _, vjp = func.vjp(y_of, self.x, *params)
        for got in (grads, vjp(self.dy)):
            self.assertEqual(len(got), len(expected))
            for name, grad, ref in zip(["x", "gate", "up", "down", "gate_bias", "up_bias",
                                        "down_bias"], got, expected):
                self.assertTrue(torch.equal(grad, ref), name)
        with self.assertRaisesRegex(RuntimeError, "double backward is not supported"):
            func.grad(lambda x: func.grad(loss)(x, *params).float().sum())(self.x)
        x = self.x.clone().requires_grad_(True)
        with self.assertRaisesRegex(RuntimeError, "double backward is not supported"):
            func.grad(loss)(x, *params).float().sum().backward()
        # Eager: refused at once (the control).
        y = y_of(x, *params)
        with self.assertRaisesRegex(RuntimeError, r"double backward \(create_graph=True\)"):
            torch.autograd.grad(y, x, self.dy, create_graph=True)

    def test_forward_mode_ad_refused(self):
        # fmlp's ops have no forward derivative: a tangent reaching one
        # (torch.func.jvp, torch.autograd.forward_ad) raises, where PyTorch
        # would otherwise give y a zero tangent without a word. Under a dual
        # level with no tangent on its arguments, fmlp::forward runs (the
        # control: its check looks at the arguments); fmlp::forward_nograd,
        # which has no derivative of either mode, refuses under any.
        torch, fwad = self.torch, self.torch.autograd.forward_ad
        path = self.bundles[False]
        params = self.ops.parameters([t.clone() for t in self.weights])

        def y_of(x, gate=params[0]):
            return torch.ops.fmlp.forward(path, x, gate, *params[1:])[0]

        def y_nograd(x):
            return torch.ops.fmlp.forward_nograd(path, x, *params)
        expected = y_nograd(self.x)
        tangent = torch.randn_like(self.x)
        for f in (y_of, y_nograd):
            with self.assertRaisesRegex(RuntimeError, "forward-mode AD .* not supported"):
                torch.func.jvp(f, (self.x,), (tangent,))
            with fwad.dual_level():
                with self.assertRaisesRegex(RuntimeError, "forward-mode AD"):
                    f(fwad.make_dual(self.x, tangent))
        with self.assertRaisesRegex(RuntimeError, "forward-mode AD"):  # a weight's tangent
            torch.func.jvp(lambda w: y_of(self.x, w), (params[0],), (torch.randn_like(params[0]),))
        with fwad.dual_level():
            self.assertTrue(torch.equal(y_of(self.x), expected))
            with self.assertRaisesRegex(RuntimeError, "forward-mode AD"):
                y_nograd(self.x)

    def test_inputs_off_the_boundary_copied(self):
        # A weight, bias, x or dy whose pointer is not on the boundary the
        # entry point asks (16 bytes where kernels read it in pieces; a view
        # into a flat buffer, as under torch.compile, where the modules'
        # guard sees no pointers): the op passes an aligned copy of it,
        # with a warning, and gives the bits of the aligned call. The
        # emulated launches check every pointer against the manifest.
        torch = self.torch
        from fmlp import ops
        path = self.bundles[True]
        misaligned = []

        def checking(path, kind, args):
            boundary = {a["name"]: a["alignment"] for a in ops._manifest(path).entry(kind).arguments}
            misaligned.extend(name for name, t in args.items() if t.data_ptr() % boundary[name])
            emulate(path, kind, args)
        ops.emulate = checking

        def step(x, weights, dy):
            params = [w.clone().requires_grad_(True) for w in weights]
            params = [off_boundary(p.detach()).requires_grad_(True) if shifted else p
                      for p, shifted in zip(params, moved)]
            y, _ = torch.ops.fmlp.forward(path, x, *params)
            y.backward(dy)
            return y, [p.grad for p in params]
        moved = [False] * 6
        expected = step(self.x, self.weights + self.biases, self.dy)
        self.assertEqual(misaligned, [])
        moved = [True, False, True, False, True, False]
        with self.assertWarnsRegex(UserWarning, "not on a 16-byte boundary"):
            got = step(off_boundary(self.x), self.weights + self.biases, off_boundary(self.dy))
        self.assertEqual(misaligned, [])
        self.assertTrue(torch.equal(got[0], expected[0]))
        for a, b in zip(got[1], expected[1]):
            self.assertTrue(torch.equal(a, b))

    def test_launch_copies_after_the_runtimes_refusal(self):
        # The launch path (no emulation) checks no pointer itself: the
        # runtime refuses one off its boundary before launching anything
        # (FMLP_ERROR_ALIGNMENT, stood in for here by the manifest's
        # check), and the call then passes aligned copies of the inputs
        # and launches again. An argument it does not copy (the saved
        # activations, which the backward writes) keeps the error.
        torch = self.torch
        from fmlp import ops, runtime
        path = self.bundles[True]
        launched = []

        def plan(kind):
            made = ops._Plan(ops._manifest(path), kind, launch=False)
            arguments = ops._manifest(path).entry(kind).arguments

            def launch(tensors, stream):
                for i, a in enumerate(arguments):
                    if tensors.array[i].data % a["alignment"]:
                        raise runtime.AlignmentError(f"{a['name']} must be aligned")
                launched.append({a["name"]: tensors.array[i].data
                                 for i, a in enumerate(arguments)})
            made._launch = launch
            return made

        params = [off_boundary(w) for w in self.weights] + self.biases
        given = ops._named(params, self.x)
        with unittest.mock.patch.object(ops, "emulate", None), \
                unittest.mock.patch.object(torch._C, "_cuda_getCurrentRawStream", lambda d: 0):
            with self.assertWarnsRegex(UserWarning, "gate is not on a 16-byte boundary"):
                plan("forward_nograd").run(self.x, given)
            self.assertEqual(len(launched), 1)
            self.assertFalse([n for n, p in launched[0].items() if p % 16])
            for name in ("gate", "up", "down"):
                self.assertEqual(launched[0][name], given[name].data_ptr())
                self.assertTrue(torch.equal(given[name], self.weights[["gate", "up", "down"]
                                                                     .index(name)]))
            given = ops._named(self.weights + self.biases, self.x)
            given["dy"], given["saved"] = self.dy, off_boundary(torch.randn(T, 2 * H).bfloat16())
            with self.assertRaisesRegex(runtime.AlignmentError, "saved must be aligned"):
                plan("backward").run(self.x, given)
            self.assertEqual(len(launched), 1)

@unittest.skipUnless(HAVE_TORCH, "torch is not installed")
class WorkspacesOnlyWhereUsed(unittest.TestCase):
    """tf32's rounded weight copies (gate_tf32, up_tf32, down_tf32: 3 D H
    floats) are read only by the kernels of larger T; below, the token
    variants read the weights themselves. A call passes (allocates) each
    copy only from the T its first reader serves (the runtime's
    fmlp_argument_min_tokens), every other argument at every T."""

    @classmethod
    def setUpClass(cls):
        import torch
        from fmlp import runtime, spec
        cls.torch = torch
        cls.cache = tempfile.TemporaryDirectory()
        os.environ["FMLP_CACHE_DIR"] = cls.cache.name
        os.environ["PATH"] = os.environ["FMLP_BIN_DIR"] + os.pathsep + os.environ["PATH"]
        cls.path = str(spec.find_or_compile(spec.BlockSpec(1024, 2816, "f32", precision="tf32")))
        bundle = runtime.Bundle(cls.path)
        cls.first_use = {a["name"]: a["min_tokens"]
                         for a in bundle.entry("forward_nograd").arguments}
        cls.backward_first_use = {a["name"]: a["min_tokens"]
                                  for a in bundle.entry("backward").arguments}

    def setUp(self):
        record_launches(self)

    def passed(self, tokens, kind="forward_nograd"):
        """The arguments a call at T = tokens passes: a no-grad one, or
        the backward of a training step."""
        torch = self.torch
        g = torch.Generator().manual_seed(tokens)
        weights = [torch.randn(2816, 1024, generator=g), torch.randn(2816, 1024, generator=g),
                   torch.randn(1024, 2816, generator=g)]
        x = torch.randn(tokens, 1024, generator=g)
        self.calls.clear()
        if kind == "forward_nograd":
            torch.ops.fmlp.forward_nograd(self.path, x, *weights, None, None, None)
        else:
            weights = [w.requires_grad_() for w in weights]
            y, _ = torch.ops.fmlp.forward(self.path, x, *weights, None, None, None)
            y.backward(torch.randn(tokens, 1024, generator=g))
        [args] = [args for called, args in self.calls if called == kind]
        return args

    def test_copies_from_their_first_reader(self):
        copies = ("gate_tf32", "up_tf32", "down_tf32")
        first = [self.first_use[c] for c in copies]
        # The bundle's kernels of few T round in their stages: each copy
        # is first read at some T > 1 (769 at this shape).
        self.assertTrue(all(1 < f < 2**62 for f in first), first)
        self.assertEqual(first[0], first[1])
        for tokens in sorted({1, 2, first[0] - 1, first[0], first[2] - 1, first[2], first[2] + 5}):
            args = self.passed(tokens)
            for copy, f in zip(copies, first):
                self.assertEqual(copy in args, tokens >= f, f"{copy} at T = {tokens}")
            # Every other argument, whatever T (the plan's workspace and
            # split-K's among them).
            others = set(self.first_use) - set(copies)
            self.assertLessEqual(others - {"y"}, args, f"T = {tokens}")

    def test_backward_transposed_copies_from_their_first_reader(self):
        # The backward's K3 and K4 variants of few T transpose the weights
        # in their stages: the K-major copies are first read at 513.
        copies = ("down_transposed", "gate_transposed", "up_transposed")
        first = {self.backward_first_use[c] for c in copies}
        self.assertEqual(first, {513})
        for tokens in (1, 512, 513, 600):
            args = self.passed(tokens, "backward")
            for copy in copies:
                self.assertEqual(copy in args, tokens >= 513, f"{copy} at T = {tokens}")


@unittest.skipUnless(HAVE_TORCH, "torch is not installed")
class ModuleKeepsItsBundle(unittest.TestCase):
    """FusedGatedMLP._bundle: block_spec's checks and the bundle lookup run
    once, then again whenever what the spec is made of changes (x's dtype,
    a parameter's dtype, the activation); never a stale bundle. block_spec
    is replaced by a counting one without its CUDA-only checks."""

    def setUp(self):
        import types
        import torch
        from fmlp import modules, ops, policy
        self.torch, self.modules, self.policy = torch, modules, policy
        ops.emulate = emulate
        self.addCleanup(setattr, ops, "emulate", None)
        self.cache = tempfile.TemporaryDirectory()
        self.addCleanup(self.cache.cleanup)
        saved = dict(os.environ)
        self.addCleanup(lambda: (os.environ.clear(), os.environ.update(saved)))
        os.environ["FMLP_CACHE_DIR"] = self.cache.name
        os.environ["PATH"] = os.environ["FMLP_BIN_DIR"] + os.pathsep + os.environ["PATH"]
        self.specs = []

        def block_spec(module, x, params=None, *args):
            params = module._params() if params is None else params
            for p in params:
                if p.dtype != x.dtype:
                    raise TypeError(f"x is {x.dtype}, a parameter is {p.dtype}")
            made = block_spec_on_sm90a(module, x, params, *args)
            self.specs.append(made)
            return made
        patcher = unittest.mock.patch.object(modules.FusedGatedMLP, "block_spec", block_spec)
        patcher.start()
        self.addCleanup(patcher.stop)
        # The kernels are emulated here: an x on the CPU takes the fused path.
        patcher = unittest.mock.patch.object(
            modules, "_why_not_fused_input",
            lambda x: None if x.dtype in ops.DTYPES else f"x is {x.dtype}")
        patcher.start()
        self.addCleanup(patcher.stop)
        config = types.SimpleNamespace(hidden_size=D, intermediate_size=H, hidden_act="silu",
                                       mlp_bias=False)
        torch.manual_seed(0)
        self.module = modules.FusedGatedMLP(config).to(torch.bfloat16)
        self.x = torch.randn(T, D).to(torch.bfloat16)

    def test_spec_once_then_again_on_change(self):
        torch, module = self.torch, self.module
        with torch.no_grad():
            y = module(self.x)
            self.assertTrue(torch.equal(module(self.x), y))
            self.assertEqual(len(self.specs), 1)
            # A parameter of another dtype: checked again, refused.
            module.up_proj.weight.data = module.up_proj.weight.data.float()
            with self.assertRaisesRegex(TypeError, "a parameter is torch.float32"):
                module(self.x)
            # Back to bf16: the spec kept (the refused call made none).
            module.up_proj.weight.data = module.up_proj.weight.data.to(torch.bfloat16)
            self.assertTrue(torch.equal(module(self.x), y))
            self.assertEqual(len(self.specs), 1)
            # Another activation module: another spec (and bundle).
            module.act_fn = torch.nn.GELU(approximate="tanh")
            module(self.x)
            self.assertEqual([s.activation for s in self.specs], ["silu", "gelu_tanh"])
            # x of another dtype: checked again, refused.
            with self.assertRaisesRegex(TypeError, "x is torch.float32"):
                module(self.x.float())

    def test_a_copy_looks_its_bundle_up_again(self):
        # A pickled or deep-copied module carries no bundle path (a file of
        # this machine's cache, for its chip and fmlp version): its first
        # call checks the spec and finds the bundle again, giving the same
        # y; the original keeps its own.
        import copy
        import pickle
        torch, module = self.torch, self.module
        with torch.no_grad():
            y = module(self.x)
            self.assertIn("_fmlp_bundle", module.__dict__)
            for made in (pickle.loads(pickle.dumps(module)), copy.deepcopy(module)):
                self.assertNotIn("_fmlp_bundle", made.__dict__)
                specs = len(self.specs)
                self.assertTrue(torch.equal(made(self.x), y))
                self.assertEqual(len(self.specs), specs + 1)
                self.assertTrue(torch.equal(module(self.x), y))
                self.assertEqual(len(self.specs), specs + 1)

    def test_lora_ranks_are_in_the_key(self):
        """A block with adapters of ranks (R, Rd) (fused_lora's lora_ranks)
        is another spec, kept while the ranks are the same; back to none,
        the plain one again (one bundle kept at a time)."""
        module, params = self.module, self.module._params()
        # The bundles' paths memo (modules._paths) as it was: this test's
        # cache is removed after it, and no launch here reads a manifest.
        kept = dict(self.modules._paths)
        self.addCleanup(lambda: (self.modules._paths.clear(), self.modules._paths.update(kept)))
        plain = module._bundle(self.x, params)
        lora = module._bundle(self.x, params, None, None, (16, 16))
        self.assertNotEqual(plain, lora)
        self.assertEqual(module._bundle(self.x, params, None, None, (16, 16)), lora)
        self.assertEqual(module._bundle(self.x, params), plain)
        self.assertEqual([(s.lora_rank, s.down_lora_rank) for s in self.specs],
                         [(0, 0), (16, 16), (0, 0)])

    def test_precision_is_for_fp32_blocks(self):
        """A 16-bit block's products are exact: a call's precision does not
        make another spec (precision.py)."""
        self.module(self.x.clone(), precision="tf32")
        self.assertEqual(self.specs[-1].precision, "ieee")
        with self.assertRaisesRegex(ValueError, "precision must be one of"):
            self.module(self.x.clone(), precision="3xtf32")

    def test_memory_policy_picks_the_bundle(self):
        """The policy a call resolves to (call, module, scope, default)
        makes the spec; a change of any level makes another; each trains
        to the same gradients (float64 emulation: the policies differ in
        what is kept, not in the math)."""
        torch, module, policy = self.torch, self.module, self.policy
        MemoryPolicy = policy.MemoryPolicy
        x = self.x.clone().requires_grad_(True)
        dy = torch.randn(T, D).to(torch.bfloat16)

        def step(**call):
            x.grad = None
            for p in module.parameters():
                p.grad = None
            module(x, **call).backward(dy)
            return [x.grad] + [p.grad for p in module.parameters()]

        reference = step(memory_policy=MemoryPolicy(save="agu"))
        self.assertEqual(self.specs[-1].save, "agu")
        with policy.memory_policy(save="x"):
            for grad, ref in zip(step(), reference):
                self.assertTrue(torch.equal(grad, ref))
            self.assertEqual(self.specs[-1].save, "x")
            other = next(s for s in ("agu", "gu") if s != policy.DEFAULT.save)
            module.memory_policy = MemoryPolicy(save=other)
            step()
            self.assertEqual(self.specs[-1].save, other)
            self.assertIn(f"save={other}", repr(module))
            self.assertIn("; module)", repr(module))
        module.memory_policy = None
        for grad, ref in zip(step(), reference):
            self.assertTrue(torch.equal(grad, ref))
        self.assertEqual(self.specs[-1].save, policy.DEFAULT.save)
        self.assertIn(f"save={policy.DEFAULT.save}", repr(module))
        self.assertEqual([s.save for s in self.specs], ["agu", "x", other, policy.DEFAULT.save])


@unittest.skipUnless(HAVE_TORCH, "needs torch")
class AutocastTest(unittest.TestCase):
    """modules.autocast_inputs: what the fused block multiplies under
    torch.autocast is what F.linear would (on the CPU's autocast here; the
    GPU's is gpu_modules.py autocast)."""

    def test_cast_as_f_linear_would_and_differentiable(self):
        import torch
        from fmlp.modules import autocast_inputs
        x = torch.randn(3, D, requires_grad=True)
        w = torch.randn(H, D, requires_grad=True)
        b64 = torch.randn(H, dtype=torch.float64)
        same_x, same = autocast_inputs(x, [w, b64])
        self.assertIs(same_x, x)  # outside autocast: the tensors themselves
        self.assertIs(same[0], w)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            cast_x, (cast_w, cast_b) = autocast_inputs(x, [w, b64])
            linear = torch.nn.functional.linear(x, w)
        self.assertEqual(linear.dtype, torch.bfloat16)
        self.assertEqual((cast_x.dtype, cast_w.dtype), (linear.dtype, linear.dtype))
        self.assertTrue(torch.equal(cast_x, x.to(torch.bfloat16)))
        self.assertEqual(cast_b.dtype, torch.float64)  # autocast leaves float64
        (cast_x.float().sum() + 2 * cast_w.float().sum()).backward()
        self.assertEqual((x.grad.dtype, w.grad.dtype), (torch.float32, torch.float32))
        self.assertTrue(torch.equal(w.grad, torch.full_like(w, 2.0)))
        # Control: outside autocast nothing is cast, so a float32 x stays.
        self.assertEqual(autocast_inputs(x, [w])[0].dtype, torch.float32)


HAVE_TRANSFORMERS = importlib.util.find_spec("transformers") is not None


@unittest.skipUnless(HAVE_TORCH and HAVE_TRANSFORMERS, "needs torch and transformers")
class UnfusedInputTest(unittest.TestCase):
    """An x the fused kernels cannot take (on the CPU; float64) runs Hugging
    Face's forward with one UnfusedWarning saying why, giving the unpatched
    module's y and gradients bit for bit (the same projections called);
    gpu_modules.py fallbacks checks the same on a GPU, float64 on CUDA too."""

    def test_cpu_and_float64_run_hugging_faces_forward(self):
        import copy
        import warnings
        import torch
        from transformers import LlamaConfig
        from transformers.models.llama.modeling_llama import LlamaMLP
        import fmlp
        config = LlamaConfig(hidden_size=D, intermediate_size=H, hidden_act="silu",
                             num_attention_heads=8, num_key_value_heads=8)
        torch.manual_seed(0)
        for dtype in (torch.bfloat16, torch.float32, torch.float64):
            original = LlamaMLP(config).to(dtype)
            wrapper = torch.nn.Module()
            wrapper.mlp = copy.deepcopy(original)
            self.assertEqual(fmlp.patch_model(wrapper, config), 1)
            x = torch.randn(2, T, D, dtype=dtype)
            dy = torch.randn_like(x)
            runs = []
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                for module in (wrapper.mlp, wrapper.mlp, original):
                    xx = x.clone().requires_grad_(True)
                    y = module(xx)
                    y.backward(dy)
                    runs.append((y.detach(), xx.grad,
                                 [p.grad.clone() for p in module.parameters()]))
                    module.zero_grad(set_to_none=True)
            unfused = [str(w.message) for w in caught if issubclass(w.category, fmlp.UnfusedWarning)]
            self.assertEqual(len(unfused), 1, unfused)  # once per module and reason
            self.assertIn("x is on cpu", unfused[0])
            ours, theirs = runs[0], runs[2]
            self.assertTrue(torch.equal(ours[0], theirs[0]) and torch.equal(ours[1], theirs[1]))
            for mine, hf in zip(ours[2], theirs[2]):
                self.assertTrue(torch.equal(mine, hf))



@unittest.skipUnless(HAVE_TORCH and HAVE_TRANSFORMERS, "needs torch and transformers")
class ActivationKeyTest(unittest.TestCase):
    """Each fused module built from a config (patch_classes' way) applies
    the activation its Hugging Face class does: from the config key that
    class reads (transformers 5: Gemma2's and Gemma3's MLPs
    hidden_activation, the others hidden_act, Gemma's too), with a config
    carrying both keys, each naming another activation."""

    def test_the_key_hugging_faces_class_reads(self):
        import importlib
        from transformers import AutoConfig
        from fmlp import modules
        model_types = {"llama4": "llama4_text", "gemma3": "gemma3_text"}
        for name, (package, fused) in modules.SUPPORTED.items():
            for act, other in (("silu", "gelu_pytorch_tanh"), ("gelu_pytorch_tanh", "silu")):
                with self.subTest(name=name, hidden_act=act):
                    config = AutoConfig.for_model(model_types.get(package, package),
                                                  hidden_size=D, intermediate_size=H,
                                                  num_attention_heads=8, num_key_value_heads=8)
                    config.hidden_act, config.hidden_activation = act, other
                    hf = getattr(importlib.import_module(
                        f"transformers.models.{package}.modeling_{package}"), name)(config)
                    theirs = getattr(hf, "act_fn", None) or hf.activation_fn
                    module = fused(config)
                    self.assertIs(type(getattr(module, module.act_name)), type(theirs))


class StandInGPU(unittest.TestCase):
    """A patched Llama MLP (self.wrapper.mlp, bf16) beside its original,
    where the GPU is stood in for: torch.cuda's capability is patched, an x
    on the CPU passes the input check, block_spec skips its CUDA-only
    checks and the kernels are emulated (ops.emulate, recorded in
    self.fused_calls). No tests of its own."""

    def setUp(self):
        import copy
        import torch
        from transformers import LlamaConfig
        from transformers.models.llama.modeling_llama import LlamaMLP
        import fmlp
        from fmlp import modules, ops, policy
        self.torch, self.fmlp, self.modules = torch, fmlp, modules
        saved = dict(os.environ)
        self.addCleanup(lambda: (os.environ.clear(), os.environ.update(saved)))
        self.cache = tempfile.TemporaryDirectory()
        self.addCleanup(self.cache.cleanup)
        os.environ["FMLP_CACHE_DIR"] = self.cache.name
        os.environ["PATH"] = os.environ["FMLP_BIN_DIR"] + os.pathsep + os.environ["PATH"]
        os.environ.pop("FMLP_STRICT", None)
        self.fused_calls = []

        def recording(path, kind, args):
            self.fused_calls.append(kind)
            emulate(path, kind, args)
        ops.emulate = recording
        self.addCleanup(setattr, ops, "emulate", None)
        # Fresh chip and bundle memos (module globals), restored after.
        for memo in (modules._chips, modules._paths):
            kept = dict(memo)
            memo.clear()
            self.addCleanup(lambda memo=memo, kept=kept: (memo.clear(), memo.update(kept)))
        self.capability = (9, 0)

        def block_spec(module, x, params=None, memory_policy=None, precision=None,
                       lora_ranks=(0, 0)):
            params = module._params() if params is None else params
            return module._spec(params, ops.DTYPES[x.dtype], modules.chip_of(x.device),
                                policy.resolve(memory_policy, module.memory_policy),
                                module._precision(x.dtype, precision), lora_ranks)
        for target, name, value in (
                (modules.FusedGatedMLP, "block_spec", block_spec),
                (modules, "_why_not_fused_input", lambda x: None),
                (torch.cuda, "current_device", lambda: 0),
                (torch.cuda, "get_device_capability", lambda index=None: self.capability),
                (torch.cuda, "get_device_name", lambda index=None: "Stand-in GPU")):
            patcher = unittest.mock.patch.object(target, name, value)
            patcher.start()
            self.addCleanup(patcher.stop)
        config = LlamaConfig(hidden_size=D, intermediate_size=H, hidden_act="silu",
                             num_attention_heads=8, num_key_value_heads=8)
        torch.manual_seed(0)
        self.original = LlamaMLP(config).to(torch.bfloat16)
        self.wrapper = torch.nn.Module()
        self.wrapper.mlp = copy.deepcopy(self.original)
        self.assertEqual(fmlp.patch_model(self.wrapper, config), 1)
        self.x = torch.randn(2, T, D, dtype=torch.bfloat16)

    def run_twice(self):
        """y of the patched module, called twice under torch.no_grad, and
        the UnfusedWarnings it gave."""
        import warnings
        with warnings.catch_warnings(record=True) as caught, self.torch.no_grad():
            warnings.simplefilter("always")
            ys = [self.wrapper.mlp(self.x.clone()) for _ in range(2)]
        self.assertTrue(self.torch.equal(ys[0], ys[1]))
        return ys[0], [str(w.message) for w in caught
                       if issubclass(w.category, self.fmlp.UnfusedWarning)]

    def assert_unfused(self, expected_reason):
        y, warned = self.run_twice()
        self.assertEqual(len(warned), 1, warned)  # once per module and reason
        self.assertIn(expected_reason, warned[0])
        with self.torch.no_grad():
            self.assertTrue(self.torch.equal(y, self.original(self.x.clone())))
        self.assertEqual(self.fused_calls, [])
        return warned[0]

    def assert_patches(self, wrapper, config, count, reason=None):
        """patch_model(wrapper, config) patches `count` modules; its last
        warning names `reason` where one is given (a module left alone)."""
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.assertEqual(self.fmlp.patch_model(wrapper, config), count)
        if reason is not None:
            self.assertIn(reason, str(caught[-1].message))



@unittest.skipUnless(HAVE_TORCH and HAVE_TRANSFORMERS, "needs torch and transformers")
class NoKernelsHereTest(StandInGPU):
    """A block fmlp has no kernels for on the GPU at hand (a compute
    capability the chip table lacks; a block fmlp-compile refuses) runs
    Hugging Face's forward with one UnfusedWarning saying why, the
    unpatched module's y bit for bit; FMLP_STRICT=1 raises spec.Unavailable
    instead; with kernels (the control) the fused path runs, unwarned, and
    torch.export keeps it."""

    def test_a_gpu_the_chip_table_lacks(self):
        self.capability = (7, 5)
        self.assert_unfused("no kernels for Stand-in GPU (compute capability 7.5)")
        os.environ["FMLP_STRICT"] = "1"
        with self.assertRaisesRegex(self.fmlp.Unavailable, "compute capability 7.5"):
            self.wrapper.mlp(self.x.clone())

    def test_a_block_fmlp_compile_refuses(self):
        # A stand-in fmlp-compile first on PATH that refuses every block and
        # counts its runs.
        fake = os.path.join(self.cache.name, "bin")
        os.makedirs(fake)
        runs = os.path.join(self.cache.name, "runs")
        with open(os.path.join(fake, "fmlp-compile"), "w") as script:
            script.write(f"#!/bin/sh\necho run >> {runs}\n"
                         "echo 'mlp.mlir:3:8: error: stand-in refusal' >&2\nexit 1\n")
        os.chmod(os.path.join(fake, "fmlp-compile"), 0o755)
        os.environ["PATH"] = fake + os.pathsep + os.environ["PATH"]
        self.capability = (8, 7)  # Jetson Orin: sm_86's kernels (their PTX)
        warning = self.assert_unfused("error: stand-in refusal")
        self.assertIn("--chip=sm_86", warning)
        with open(runs) as counted:
            self.assertEqual(len(counted.read().split()), 1)  # not tried again
        os.environ["FMLP_STRICT"] = "1"
        with self.assertRaisesRegex(self.fmlp.CompileFailed, "stand-in refusal"):
            self.wrapper.mlp(self.x.clone())

    def test_control_with_kernels_runs_fused(self):
        y, warned = self.run_twice()
        self.assertEqual(warned, [])
        self.assertEqual(self.fused_calls, ["forward_nograd"] * 2)
        with self.torch.no_grad():
            reference = self.original.double()(self.x.double())
        # The emulated kernels (float64, y rounded once) against HF's float64.
        self.assertLess((y.double() - reference).abs().max().item(),
                        2 ** -7 * reference.abs().max().item())

    def test_torch_export_keeps_the_fused_op(self):
        # torch.export (non-strict) runs this Python on FakeTensor weights:
        # the guard takes them as the plain weights they stand for, so the
        # program calls fmlp's op at any T (it ran HF's forward before).
        torch = self.torch
        tokens = torch.export.Dim("tokens", min=1, max=4096)
        with torch.no_grad():
            program = torch.export.export(self.wrapper.mlp, (self.x[0],),
                                          dynamic_shapes=({0: tokens},))
        targets = [str(node.target) for node in program.graph.nodes
                   if node.op == "call_function"]
        self.assertIn("fmlp.forward_nograd.default", targets)
        self.assertNotIn("aten.linear.default", targets)  # HF's forward's
        with torch.no_grad():
            for t in (T, 3):
                x = torch.randn(t, D, dtype=torch.bfloat16)
                self.assertTrue(torch.equal(program.module()(x), self.wrapper.mlp(x)))


@unittest.skipUnless(HAVE_TORCH and HAVE_TRANSFORMERS, "needs torch and transformers")
class NotTheFusedBlockTest(StandInGPU):
    """A module whose block is not the one the fused kernels would compute
    runs Hugging Face's forward with one UnfusedWarning saying why, the
    unpatched module's y bit for bit (found by session 46's probe: these
    ran fused and wrong): biases on some projections only; an activation
    module with a hook. An activation module replaced by another that fmlp
    fuses runs fused with that activation (the control: with kernels, the
    fused path). Copies warn each on their own; bad overrides raise on
    every path; Phi3 with a bias is left alone by patch_model."""

    def test_biases_on_some_projections_only(self):
        torch = self.torch
        bias = torch.randn(D, dtype=torch.bfloat16)
        for module in (self.wrapper.mlp, self.original):
            module.down_proj.bias = torch.nn.Parameter(bias.clone())
        self.assert_unfused("only down of its projections have a bias")

    def test_a_hooked_activation(self):
        for module in (self.wrapper.mlp, self.original):
            module.act_fn.register_forward_hook(lambda m, args, out: 2 * out)
        self.assert_unfused("has hooks or a forward of its own")

    def test_a_weight_not_dense_in_place(self):
        # A weight the kernels cannot read in place (not dense row-major: a
        # transposed copy seen through .t(), a strided slice; or dense from
        # an offset off a 16-byte boundary) ran fused, and the runtime's
        # layout check raised at forward on a GPU. Now HF's forward, one
        # warning naming it; patch_model leaves such a module alone, saying
        # why; a dense weight fuses again (the control).
        import copy
        torch = self.torch
        w = self.original.up_proj.weight.detach()
        transposed = w.t().contiguous().t()
        strided = torch.empty(H, 2 * D, dtype=w.dtype)[:, ::2]
        misaligned = torch.empty(H * D + 1, dtype=w.dtype)[1:].view(H, D)
        for t in (strided, misaligned):
            t.copy_(w)
        for weight, reason in (
                (transposed, f"up_proj's weight is not contiguous (shape ({H}, {D}), "
                             f"strides (1, {H}))"),
                (strided, f"strides ({2 * D}, 2)"),
                (misaligned, "up_proj's weight begins 1 elements into its storage, not on a "
                             "16-byte boundary")):
            with self.subTest(reason=reason):
                self.assertTrue(torch.equal(weight, w))
                parameter = torch.nn.Parameter(weight)
                for module in (self.wrapper.mlp, self.original):
                    module.up_proj.weight = parameter
                self.assert_unfused(reason)
                wrapper = torch.nn.Module()
                wrapper.mlp = copy.deepcopy(self.original)
                wrapper.mlp.up_proj.weight = parameter  # deepcopy copies it
                self.assert_patches(wrapper, None, 0, reason)
        self.wrapper.mlp.up_proj.weight = torch.nn.Parameter(w.clone())
        self.run_twice()
        self.assertEqual(self.fused_calls, ["forward_nograd"] * 2)

    def test_phi3_halves_not_on_a_boundary(self):
        # Phi3's gate and up weights are gate_up_proj's row halves: up's
        # begins H D elements in, off a 16-byte boundary where H D is odd
        # (bf16). Left alone by patch_model, saying so; the control fuses.
        from transformers import Phi3Config
        from transformers.models.phi3.modeling_phi3 import Phi3MLP
        for h, fused in ((H + 1, 0), (H, 1)):
            config = Phi3Config(hidden_size=D + 1, intermediate_size=h, hidden_act="silu",
                                num_attention_heads=1, num_key_value_heads=1)
            wrapper = self.torch.nn.Module()
            wrapper.mlp = Phi3MLP(config).to(self.torch.bfloat16)
            self.assert_patches(
                wrapper, config, fused,
                None if fused else f"gate_up_proj's up rows begin {h * (D + 1)} elements "
                                   "into its weight, not on a 16-byte boundary")

    def test_another_fused_activation_runs_fused(self):
        torch = self.torch
        self.wrapper.mlp.act_fn = torch.nn.ReLU()
        y, warned = self.run_twice()
        self.assertEqual(warned, [])
        self.assertEqual(self.wrapper.mlp.activation, "relu")
        self.assertEqual(self.fused_calls, ["forward_nograd"] * 2)
        with torch.no_grad():
            silu = self.original.double()(self.x.double())
            self.original.act_fn = torch.nn.ReLU()
            relu = self.original(self.x.double())
        # Nearer ReLU's block than SiLU's everywhere it matters: the worst.
        self.assertLess((y.double() - relu).abs().max(), (y.double() - silu).abs().max())

    def test_each_copy_warns_on_its_own(self):
        import copy
        import gc
        import warnings
        self.wrapper.mlp.down_proj.bias = self.torch.nn.Parameter(
            self.torch.randn(D, dtype=self.torch.bfloat16))
        for _ in range(6):  # copies made where others died: ids reused
            module = copy.deepcopy(self.wrapper.mlp)
            with warnings.catch_warnings(record=True) as caught, self.torch.no_grad():
                warnings.simplefilter("always")
                module(self.x.clone())
            self.assertEqual(len([w for w in caught
                                  if issubclass(w.category, self.fmlp.UnfusedWarning)]), 1)
            del module
            gc.collect()

    def test_bad_overrides_raise_on_every_path(self):
        mlp = self.wrapper.mlp
        for x in (self.x, self.x.double()):  # fused, and HF's forward (float64)
            with self.assertRaisesRegex(ValueError, "precision must be one of"):
                mlp(x.clone(), precision="fp32")
            with self.assertRaisesRegex(TypeError, "memory_policy must be an fmlp.MemoryPolicy"):
                mlp(x.clone(), memory_policy="x")
            mlp.memory_policy = {"save": "x"}
            with self.assertRaisesRegex(TypeError, "the module's memory_policy must be"):
                mlp(x.clone())
            mlp.memory_policy = None
        self.assertEqual(self.fused_calls, [])

    def test_phi3_with_a_bias_left_alone(self):
        from transformers import Phi3Config
        from transformers.models.phi3.modeling_phi3 import Phi3MLP
        config = Phi3Config(hidden_size=D, intermediate_size=H, hidden_act="silu",
                            num_attention_heads=8, num_key_value_heads=8)
        wrapper = self.torch.nn.Module()
        wrapper.mlp = Phi3MLP(config)
        wrapper.mlp.down_proj.bias = self.torch.nn.Parameter(self.torch.zeros(D))
        self.assert_patches(wrapper, config, 0, "Phi3's MLP with biases is not fused")
        del wrapper.mlp.down_proj.bias
        wrapper.mlp.down_proj.register_parameter("bias", None)
        self.assertEqual(self.fmlp.patch_model(wrapper, config), 1)  # the control
        self.assertEqual(type(wrapper.mlp).__name__, "FusedPhi3MLP")
        self.assertIs(type(wrapper.mlp.activation_fn), type(Phi3MLP(config).activation_fn))


@unittest.skipUnless(HAVE_TORCH and HAVE_TRANSFORMERS, "needs torch and transformers")
class TorchFuncTest(StandInGPU):
    """torch.func.grad over a patched module (torch.func.functional_call)
    runs the fused path, forward and backward, and gives eager autograd's
    gradients through it bit for bit."""

    def test_grad_of_a_patched_module(self):
        torch, mlp = self.torch, self.wrapper.mlp
        params = {name: p.detach() for name, p in mlp.named_parameters()}
        dy = torch.randn_like(self.x)

        def loss(params, x):
            return (torch.func.functional_call(mlp, params, (x,)) * dy).sum()
        grads, dx = torch.func.grad(loss, argnums=(0, 1))(params, self.x)
        self.assertEqual(self.fused_calls, ["forward", "backward"])
        x = self.x.clone().requires_grad_(True)
        mlp(x).backward(dy)
        self.assertTrue(torch.equal(dx, x.grad))
        for name, p in mlp.named_parameters():
            self.assertTrue(torch.equal(grads[name], p.grad), name)


    def test_jvp_of_a_patched_module_runs_unfused(self):
        # Forward-mode AD (which fmlp's ops refuse) through a patched
        # module: Hugging Face's forward, with one UnfusedWarning, gives the
        # original module's tangents bit for bit; the fused path resumes
        # outside the dual level.
        import warnings
        torch, mlp = self.torch, self.wrapper.mlp
        tangent = torch.randn_like(self.x)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = torch.func.jvp(mlp, (self.x,), (tangent,))
        expected = torch.func.jvp(self.original, (self.x,), (tangent,))
        for a, b in zip(got, expected):
            self.assertTrue(torch.equal(a, b))
        self.assertGreater(expected[1].abs().max().item(), 0)
        warned = [str(w.message) for w in caught if issubclass(w.category, self.fmlp.UnfusedWarning)]
        self.assertEqual(len(warned), 1, warned)
        self.assertIn("forward-mode AD is active", warned[0])
        self.assertEqual(self.fused_calls, [])
        with torch.no_grad():
            mlp(self.x)
        self.assertEqual(self.fused_calls, ["forward_nograd"])

if __name__ == "__main__":
    unittest.main()
