#!/usr/bin/env python3
"""Regenerates fmlp's frontend corpus (test/Frontends/*.mlir) with the real
frontend tools from PyPI. Not run by CI: it needs a multi-GB virtual
environment (see README.md in this directory for its setup).

For each case (frontend x model family x dtype x shape kind) it exports a
Hugging Face-style MLP (or a whole small model), lowers it with the
frontend's own tools, rewrites what MLIR 22 cannot parse (IREE's util/hal ABI
ops: rewrite_iree_for_mlir22 below; the `-generic` frontends instead keep
IREE's output as iree-compile prints it in generic form, which fmlp reads
with --allow-unregistered-dialect), and writes <case>.mlir with a lit header
whose expectations come from the model's configuration (how many blocks,
which activation, the widths, biases, weight layouts and multipliers), not
from fmlp's output.

  python3 generate.py [--out DIR] [--only SUBSTRING] [--list]
"""
import argparse
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
BIN = pathlib.Path(sys.executable).parent
D, H = 64, 160  # small widths: the corpus stays small

#===----------------------------------------------------------------------===#
# Models
#===----------------------------------------------------------------------===#


def make_mlp(family, dtype, bias):
    """The family's MLP module from transformers, with small widths."""
    import torch
    import transformers as tf

    common = dict(hidden_size=D, intermediate_size=H)
    if family == "llama":
        module = tf.models.llama.modeling_llama.LlamaMLP(
            tf.LlamaConfig(**common, hidden_act="silu", mlp_bias=bias))
    elif family == "qwen2":
        module = tf.models.qwen2.modeling_qwen2.Qwen2MLP(
            tf.Qwen2Config(**common, hidden_act="silu"))
    elif family == "mistral":
        module = tf.models.mistral.modeling_mistral.MistralMLP(
            tf.MistralConfig(**common, hidden_act="silu"))
    elif family == "gemma":
        module = tf.models.gemma.modeling_gemma.GemmaMLP(
            tf.GemmaConfig(**common, hidden_act="gelu_pytorch_tanh",
                           hidden_activation="gelu_pytorch_tanh"))
    elif family == "phi3":
        module = tf.models.phi3.modeling_phi3.Phi3MLP(
            tf.Phi3Config(**common, hidden_act="silu"))
    elif family == "falcon_h1":
        module = FalconH1StyleMLP(bias)
    else:
        raise ValueError(family)
    return module.to(getattr(torch, dtype)).eval()


def FalconH1StyleMLP(bias):
    """Falcon-H1's MLP: y = down(silu(gate(x) * gate_multiplier) * up(x)) *
    down_multiplier (transformers' FalconH1MLP, written out so that the
    corpus does not depend on its presence in the installed version)."""
    import torch

    class Mlp(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gate_proj = torch.nn.Linear(D, H, bias=bias)
            self.up_proj = torch.nn.Linear(D, H, bias=bias)
            self.down_proj = torch.nn.Linear(H, D, bias=bias)
            self.gate_multiplier, self.down_multiplier = 0.75, 1.5

        def forward(self, x):
            g = torch.nn.functional.silu(self.gate_proj(x) * self.gate_multiplier)
            return self.down_proj(g * self.up_proj(x)) * self.down_multiplier

    return Mlp()


def make_decoder(dtype, layers=2):
    """A whole Llama decoder (transformers' LlamaModel: `layers` decoder
    layers, rotary embeddings, final RMSNorm; small widths), from hidden
    states to hidden states. Its layers are called directly with a causal
    mask made here: LlamaModel.forward builds its mask with torch.diff
    (packed-sequence detection), which IREE 3.13's torch input does not
    lower. Eager attention, so that attention is matmuls and a softmax."""
    import torch
    import transformers as tf

    config = tf.LlamaConfig(hidden_size=D, intermediate_size=H, num_hidden_layers=layers,
                            num_attention_heads=2, num_key_value_heads=2, vocab_size=32,
                            max_position_embeddings=4096, attn_implementation="eager")
    model = tf.LlamaModel(config).to(getattr(torch, dtype)).eval()

    class Decoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, x):
            tokens = x.shape[1]
            positions = torch.arange(tokens).unsqueeze(0)
            rotary = self.model.rotary_emb(x, positions)
            mask = torch.full((tokens, tokens), float("-inf"), dtype=x.dtype).triu(1)[None, None]
            h = x
            for layer in self.model.layers:
                h = layer(h, attention_mask=mask, position_ids=positions,
                          position_embeddings=rotary)
                h = h[0] if isinstance(h, tuple) else h
            return self.model.norm(h)

    return Decoder()


def expectation(frontend, family, bias):
    """What fmlp-compile must report for one block of `family`."""
    activation = "gelu_tanh" if family == "gemma" else "silu"
    multipliers = ", gate multiplier 7.500000e-01, down multiplier 1.500000e+00" if family == "falcon_h1" else ""
    if frontend.startswith("turbine") and family in ("qwen2", "mistral", "gemma", "phi3"):
        bias = False  # transformers' MLPs of these families have no bias option
    return activation + multipliers, bias


#===----------------------------------------------------------------------===#
# Frontends
#===----------------------------------------------------------------------===#


def run(args, **kwargs):
    print("  $", " ".join(str(a) for a in args), file=sys.stderr)
    subprocess.run([str(a) for a in args], check=True, **kwargs)


def sample_input(dtype, shape_kind):
    import torch
    return torch.randn(2, 8, D, dtype=getattr(torch, dtype))


def dynamic_shapes(shape_kind):
    import torch
    if shape_kind == "static":
        return None
    # Positional, so that it holds whatever the module names its input.
    return ({1: torch.export.Dim("tokens", min=2, max=4096)},)


def export_turbine(module, dtype, shape_kind, path, weights):
    """iree-turbine's aot.export to the torch dialect. weights: 'constants'
    (turbine's default: inlined as dense_resource), 'globals' (externalized
    parameters: util.global) or 'args'."""
    import torch
    import iree.turbine.aot as aot

    allow_bf16_constants()
    x = sample_input(dtype, shape_kind)
    if weights == "globals":
        aot.externalize_module_parameters(module)
    if weights == "args":
        params = dict(module.named_parameters())
        names = list(params)

        class WithWeights(torch.nn.Module):
            def forward(self, x, *ws):
                return torch.func.functional_call(module, dict(zip(names, ws)), (x,))

        shapes = None
        if shape_kind != "static":
            shapes = dynamic_shapes(shape_kind) + (None,) * len(names)
        exported = aot.export(WithWeights(), args=(x, *params.values()),
                              dynamic_shapes=shapes)
    else:
        exported = aot.export(module, args=(x,), dynamic_shapes=dynamic_shapes(shape_kind))
    exported.save_mlir(str(path))


def allow_bf16_constants():
    """iree-turbine 3.9 inlines a constant through `np.array(tensor)`, which
    fails for bfloat16 (numpy has no such type: "Got unsupported ScalarType
    BFloat16"). Its resource blob holds the tensor's bytes, so the
    generator hands turbine the same bytes as int16."""
    import numpy
    import torch
    from iree.turbine.aot.support import ir_utils

    class NumpyWithBf16:
        def __getattr__(self, name):
            return getattr(numpy, name)

        @staticmethod
        def array(value, *args, **kwargs):
            if isinstance(value, torch.Tensor) and value.dtype == torch.bfloat16:
                value = value.view(torch.int16)
            return numpy.array(value, *args, **kwargs)

    ir_utils.np = NumpyWithBf16()


def lower_iree(torch_mlir, out, level):
    """IREE's own lowering: level 'input' or 'global-optimization'."""
    run([BIN / "iree-compile", torch_mlir, "--iree-input-type=auto",
         f"--compile-to={level}", "--iree-hal-target-backends=llvm-cpu", "-o", out])


def lower_torch_mlir_pipeline(torch_mlir, out):
    """torch-mlir's own linalg pipeline, as IREE ships it in iree-opt."""
    run([BIN / "iree-opt", torch_mlir,
         "--pass-pipeline=builtin.module(torch-function-to-torch-backend-pipeline,"
         "torch-backend-to-linalg-on-tensors-backend-pipeline)", "-o", out])


def export_onnx(module, dtype, shape_kind, path):
    import torch
    x = sample_input(dtype, shape_kind)
    axes = {"x": {1: "tokens"}} if shape_kind != "static" else None
    torch.onnx.export(module, (x,), str(path), input_names=["x"], output_names=["y"],
                      dynamic_axes=axes, opset_version=17, dynamo=False)


def export_jax(family, dtype, shape_kind, bias, path):
    """A JAX MLP of the same math, exported to StableHLO by jax.export (weights as function arguments)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(0)
    jdtype = {"float32": jnp.float32, "bfloat16": jnp.bfloat16}[dtype]
    w = lambda *s: jnp.asarray(rng.standard_normal(s) * 0.05, dtype=jdtype)
    wg, wu, wd = w(D, H), w(D, H), w(H, D)
    bg, bu, bd = w(H), w(H), w(D)
    act = (lambda z: jax.nn.gelu(z, approximate=True)) if family == "gemma" else jax.nn.silu

    def mlp(x, wg, wu, wd, bg, bu, bd):
        g, u = x @ wg, x @ wu
        if bias:
            g, u = g + bg, u + bu
        y = (act(g) * u) @ wd
        return y + bd if bias else y

    tokens = 8 if shape_kind == "static" else jax.export.symbolic_shape("t")[0]
    spec = lambda *s: jax.ShapeDtypeStruct(s, jdtype)
    args = [spec(tokens, D), spec(D, H), spec(D, H), spec(H, D), spec(H), spec(H), spec(D)]
    exported = jax.export.export(jax.jit(mlp))(*args)
    path.write_text(exported.mlir_module())


def export_jax_decoder(dtype, shape_kind, path, layers=2, heads=2):
    """A whole Llama decoder written with jax.numpy (transformers has no JAX
    models since version 5): per layer RMSNorm, attention with rotary
    embeddings, a causal mask and a softmax, a residual add, RMSNorm, the
    SwiGLU MLP and a residual add; a final RMSNorm. x is [2, T, D]; weights
    are function arguments in [in, out] layout."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    jdtype = {"float32": jnp.float32, "bfloat16": jnp.bfloat16}[dtype]
    head_dim = D // heads

    def rms_norm(h, scale):
        h32 = h.astype(jnp.float32)
        h32 = h32 * jax.lax.rsqrt(jnp.mean(h32 * h32, axis=-1, keepdims=True) + 1e-6)
        return h32.astype(h.dtype) * scale

    def rotate(q, cos, sin):
        q1, q2 = q[..., : head_dim // 2], q[..., head_dim // 2 :]
        return q * cos + jnp.concatenate([-q2, q1], axis=-1) * sin

    def decoder(x, params):
        batch, tokens = x.shape[0], x.shape[1]
        positions = jnp.arange(tokens, dtype=jnp.float32)
        inv_freq = 1.0 / (10000.0 ** (jnp.arange(0, head_dim, 2, dtype=jnp.float32) / head_dim))
        angles = positions[:, None] * inv_freq[None, :]
        angles = jnp.concatenate([angles, angles], axis=-1)
        cos, sin = jnp.cos(angles).astype(x.dtype), jnp.sin(angles).astype(x.dtype)
        causal = jnp.tril(jnp.ones((tokens, tokens), dtype=bool))
        h = x
        for layer in params["layers"]:
            a = rms_norm(h, layer["input_norm"])
            split = lambda t: t.reshape(batch, tokens, heads, head_dim).transpose(0, 2, 1, 3)
            q = rotate(split(a @ layer["q"]), cos, sin)
            k = rotate(split(a @ layer["k"]), cos, sin)
            v = split(a @ layer["v"])
            # A Python float is weakly typed: the scores keep x's type.
            scores = (q @ k.transpose(0, 1, 3, 2)) / float(np.sqrt(head_dim))
            scores = jnp.where(causal, scores, jnp.asarray(-1e9, scores.dtype))
            attention = jax.nn.softmax(scores, axis=-1) @ v
            h = h + attention.transpose(0, 2, 1, 3).reshape(batch, tokens, D) @ layer["o"]
            m = rms_norm(h, layer["post_norm"])
            h = h + (jax.nn.silu(m @ layer["gate"]) * (m @ layer["up"])) @ layer["down"]
        return rms_norm(h, params["norm"])

    spec = lambda *shape: jax.ShapeDtypeStruct(shape, jdtype)
    layer_spec = {"input_norm": spec(D), "q": spec(D, D), "k": spec(D, D), "v": spec(D, D),
                  "o": spec(D, D), "post_norm": spec(D), "gate": spec(D, H), "up": spec(D, H),
                  "down": spec(H, D)}
    params = {"layers": [layer_spec] * layers, "norm": spec(D)}
    tokens = 8 if shape_kind == "static" else jax.export.symbolic_shape("t")[0]
    exported = jax.export.export(jax.jit(decoder))(spec(2, tokens, D), params)
    path.write_text(exported.mlir_module())


#===----------------------------------------------------------------------===#
# IREE output -> MLIR 22
#===----------------------------------------------------------------------===#


def rewrite_iree_for_mlir22(text):
    """Rewrites IREE input-level IR into upstream MLIR that MLIR 22 parses:
    - the synchronous ABI wrapper (`util.func @f` calling `@f$async`) is
      dropped, and `@f$async` becomes `func.func @f`;
    - `hal.tensor.import` of a `!hal.buffer_view` argument becomes a tensor
      argument of the same name, `hal.buffer_view.dim` a `tensor.dim`,
      `hal.tensor.barrier` its operands, `hal.tensor.export` its tensor;
      `!hal.fence` arguments are dropped;
    - `util.global` weights: a dense initial value becomes an
      `arith.constant` where it is loaded; an externalized parameter
      (`#stream.parameter.named`, turbine's `#flow.parameter.named`, and
      global optimization's `flow.tensor.constant` of one) becomes an
      argument of the function;
    - `util.func`/`util.return`/`util.call` become func's; other util ops
      (`util.assume.int`) and `iree_tensor_ext.compute_barrier` are replaced
      by their operands; global-optimization's device global and module
      attributes (`#hal.device.target`) are dropped.
    """
    globals_ = {}
    kept = []
    # The resource section (`{-# dialect_resources ... #-}`, the constants'
    # bytes) is kept as it is, out of the way of the function splitting.
    text, resources = (text.split("\n{-#", 1) + [None])[:2]
    text = re.sub(r"(?m)^module (@\w+ )?attributes \{.*\} \{$", r"module \1{", text)
    for line in text.splitlines():
        if re.match(r"\s*util\.global private @__device", line):
            continue  # the HAL device target of global-optimization
        m = re.match(r"\s*util\.global private (?:mutable )?@([\w.$\"-]+)\s*=\s*(.*)\s*:\s*(tensor<[^>]*>)\s*$", line)
        if m:
            globals_[m.group(1)] = (m.group(2).strip(), m.group(3))
            continue
        kept.append(line)
    text = "\n".join(kept)

    # Functions: split at top-level util.func.
    funcs = re.split(r"(?m)^(?=  util\.func )", text)
    out = [funcs[0]]
    for func in funcs[1:]:
        body_end = func.rfind("\n  }")
        rest = func[body_end + 4:]
        func = func[:body_end + 4]
        name = re.match(r"  util\.func (?:public |private )?@([\w$]+)", func).group(1)
        if "util.call @" + name + "$async" in func:
            out.append(rest)  # the synchronous wrapper
            continue
        out.append(rewrite_function(func, globals_) + rest)
    if resources is not None:
        out.append("\n{-#" + resources)
    return "".join(out)


def rewrite_function(func, globals_):
    first, body = func.split("\n", 1)
    name = re.match(r"  util\.func (?:public |private )?@([\w$]+)", first).group(1).replace("$async", "")
    args = re.findall(r"(%[\w]+): (!hal\.buffer_view|!hal\.fence|tensor<[^>]*>)", first.split(")")[0])
    arg_types = {}
    renames = {}
    new_args = []
    lines = []
    results = []
    extra_args = []
    constants = 0
    for line in body.split("\n"):
        m = re.match(r"\s*(%[\w]+) = hal\.tensor\.import (?:on\(\S+\) )?(?:wait\(%\w+\) => )?(%\w+) (?:\"[^\"]*\" )?: !hal\.buffer_view -> (tensor<[^>]*>)", line)
        if m:
            arg_types[m.group(2)] = (m.group(1), m.group(3))
            continue
        m = re.match(r"(\s*)(%[\w]+) = hal\.buffer_view\.dim<(%\w+) : !hal\.buffer_view>\[(\d+)\] : index", line)
        if m:
            constants += 1
            c = f"%hal_dim_index{constants}"
            lines.append(f"{m.group(1)}{c} = arith.constant {m.group(4)} : index")
            lines.append(f"{m.group(1)}{m.group(2)} = tensor.dim {m.group(3)}__tensor, {c} : TYPEOF{m.group(3)}")
            continue
        m = re.match(r"\s*(%[\w]+)(?::\d+)? = hal\.tensor\.barrier join\(([^:]*) : [^)]*\) => %\w+ : !hal\.fence", line)
        if m:
            operands = [o.strip() for o in m.group(2).split(",")]
            if len(operands) == 1:
                renames[m.group(1)] = operands[0]
            for i, o in enumerate(operands):
                renames[f"{m.group(1)}#{i}"] = o
            continue
        m = re.match(r"\s*(%[\w]+) = hal\.tensor\.export (?:on\(\S+\) )?(%[\w#]+) (?:\"[^\"]*\" )?: (tensor<[^>]*>)(?:\{[^}]*\})? -> !hal\.buffer_view", line)
        if m:
            renames[m.group(1)] = (m.group(2), m.group(3))
            continue
        m = re.match(r"(\s*)(%[\w.$-]+) = util\.global\.load (?:immutable )?@([\w.$\"-]+) : (tensor<[^>]*>)", line)
        if m:
            value, type_ = globals_[m.group(3)]
            if value.startswith(("#stream.parameter", "#flow.parameter")):
                extra_args.append(f"{m.group(2)}: {m.group(4)}")
            else:
                lines.append(f"{m.group(1)}{m.group(2)} = arith.constant {value} : {m.group(4)}")
            continue
        # Global optimization inlines an externalized parameter as
        # `flow.tensor.constant #flow.parameter.named<...>`.
        m = re.match(r"\s*(%[\w.$-]+) = flow\.tensor\.constant #(?:flow|stream)\.parameter\.named<[^>]*> : (tensor<[^>]*>)", line)
        if m:
            extra_args.append(f"{m.group(1)}: {m.group(2)}")
            continue
        m = re.match(r"\s*(%[\w]+) = iree_tensor_ext\.compute_barrier\.(?:start|end) (%[\w]+) ", line)
        if m:
            renames[m.group(1)] = m.group(2)
            continue
        m = re.match(r"(\s*)(%[\w:]+) = util\.assume\.int (.*)$", line)
        if m:
            operands = re.findall(r"(%\w+)\[", m.group(3))
            for i, o in enumerate(operands):
                renames[m.group(2).split(":")[0] + (f"#{i}" if len(operands) > 1 else "")] = o
            continue
        m = re.match(r"(\s*)util\.return (.*)$", line)
        if m:
            values = [v.strip() for v in m.group(2).split(":")[0].split(",") if v.strip()]
            types = re.findall(r"tensor<[^>]*>", m.group(2).split(":", 1)[1])
            # Exported buffer views, or tensors returned as they are.
            tensors = [renames[v] if v in renames else (v, types[i])
                       for i, v in enumerate(values)]
            results = [t for _, t in tensors]
            lines.append(f"{m.group(1)}func.return {', '.join(v for v, _ in tensors)} : {', '.join(results)}")
            continue
        lines.append(line)
    for arg, ty in args:
        if ty == "!hal.buffer_view":
            tensor_name, tensor_type = arg_types[arg]
            new_args.append(f"{tensor_name}: {tensor_type}")
            renames[f"{arg}__tensor"] = tensor_name
            renames[f"TYPEOF{arg}"] = tensor_type
        elif ty.startswith("tensor"):
            new_args.append(f"{arg}: {ty}")
    new_args += extra_args
    text = "\n".join(lines)
    for old in sorted(renames, key=len, reverse=True):
        new = renames[old]
        if isinstance(new, tuple):
            new = new[0]
        while new in renames and not isinstance(renames[new], tuple) and renames[new] != new:
            new = renames[new]
        text = re.sub(re.escape(old) + r"(?![\w#])", new, text)
    signature = f"  func.func @{name}({', '.join(new_args)}) -> ({', '.join(results)}) {{"
    return signature + "\n" + text


#===----------------------------------------------------------------------===#
# ONNX models written with onnx.helper (the graphs torch.onnx.export writes
# for these MLPs at opset 17: MatMul against [in, out] initializers, Add of
# a bias, silu as Sigmoid and Mul, gelu(approximate="tanh") spelled out with
# Pow(x, 3)); they need no torch.
#===----------------------------------------------------------------------===#


def export_onnx_helper(family, dtype, shape_kind, bias, path):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    np_dtype = {"float32": np.float32, "float16": np.float16}[dtype]
    elem = {"float32": TensorProto.FLOAT, "float16": TensorProto.FLOAT16}[dtype]
    rng = np.random.default_rng(0)
    inits, nodes = [], []

    def const(name, value):
        inits.append(numpy_helper.from_array(np.asarray(value, dtype=np_dtype), name))
        return name

    def node(op, inputs, output, **attrs):
        nodes.append(helper.make_node(op, inputs, [output], **attrs))
        return output

    def linear(x, name, n, k):
        y = node("MatMul", [x, const(name, rng.standard_normal((k, n)) * 0.05)], name + "_mm")
        if bias:
            y = node("Add", [y, const(name + "_b", rng.standard_normal(n) * 0.05)], name + "_out")
        return y

    if family == "phi3":
        # Phi3MLP: one gate_up_proj of 2H outputs, split into gate and up.
        gu = linear("x", "gate_up", 2 * H, D)
        nodes.append(helper.make_node("Split", [gu, const_i64(inits, "split", [H, H])],
                                      ["g", "u"], axis=-1))
        g, u = "g", "u"
    else:
        g, u = linear("x", "gate", H, D), linear("x", "up", H, D)
    if family == "falcon_h1":
        g = node("Mul", [g, const("gate_multiplier", 0.75)], "g_scaled")
    if family == "gemma":
        cube = node("Pow", [g, const("three", 3.0)], "cube")
        inner = node("Add", [g, node("Mul", [cube, const("c", 0.044715)], "c_cube")], "inner")
        t = node("Tanh", [node("Mul", [inner, const("k", (2 / np.pi) ** 0.5)], "k_inner")], "t")
        act = node("Mul", [node("Mul", [g, const("half", 0.5)], "half_g"),
                           node("Add", [t, const("one", 1.0)], "one_t")], "act")
    else:
        act = node("Mul", [g, node("Sigmoid", [g], "sig")], "act")
    y = linear(node("Mul", [act, u], "a"), "down", D, H)
    if family == "falcon_h1":
        y = node("Mul", [y, const("down_multiplier", 1.5)], "y_scaled")
    nodes.append(helper.make_node("Identity", [y], ["y"]))
    tokens = 8 if shape_kind == "static" else "tokens"
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", elem, [2, tokens, D])],
                              [helper.make_tensor_value_info("y", elem, [2, tokens, D])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def const_i64(inits, name, values):
    import numpy as np
    from onnx import numpy_helper
    inits.append(numpy_helper.from_array(np.asarray(values, dtype=np.int64), name))
    return name


#===----------------------------------------------------------------------===#
# Cases
#===----------------------------------------------------------------------===#

# (frontend, family, dtype, shape kind, bias). Frontends: <exporter>-<level>
# with exporter onnx (onnx.helper graphs, or torch.onnx.export for the
# whole decoder), onnx-params (the same with --externalize-params), turbine,
# turbine-params (externalized parameters), jax, jax-decoder; level input
# (IREE's input level), torch-mlir (torch-mlir's linalg pipeline in
# iree-opt), global-opt (IREE global optimization); `-generic` before the
# level keeps IREE's generic-form output unrewritten. Family `decoder` is
# a whole 2-layer model.
CASES = [
    ("onnx-input", "llama", "float32", "dynamic", False),
    ("onnx-input", "llama", "float32", "static", True),
    ("onnx-input", "llama", "float16", "static", True),
    ("onnx-input", "llama", "float16", "dynamic", False),
    ("onnx-input", "qwen2", "float32", "dynamic", False),
    ("onnx-input", "mistral", "float16", "static", False),
    ("onnx-input", "gemma", "float32", "static", False),
    ("onnx-input", "phi3", "float32", "static", False),
    ("onnx-input", "falcon_h1", "float32", "dynamic", False),
    ("onnx-torch-mlir", "llama", "float32", "dynamic", False),
    ("onnx-torch-mlir", "llama", "float16", "static", True),
    ("onnx-torch-mlir", "gemma", "float32", "dynamic", False),
    ("onnx-torch-mlir", "falcon_h1", "float32", "static", True),
    ("onnx-global-opt", "llama", "float32", "dynamic", False),
    ("onnx-global-opt", "llama", "float16", "static", True),
    ("onnx-global-opt", "gemma", "float32", "static", False),
    # Weights as IREE globals: iree-import-onnx --externalize-params makes
    # util.global #stream.parameter.named, loaded by util.global.load.
    ("onnx-params-input", "llama", "float32", "dynamic", True),
    ("onnx-params-input", "gemma", "float16", "static", False),
    ("onnx-params-global-opt", "falcon_h1", "float32", "dynamic", False),
    # JAX: jax.export to StableHLO, IREE's StableHLO input (x is [T, D]).
    ("jax-input", "llama", "float32", "static", True),
    ("jax-input", "llama", "float32", "dynamic", False),
    ("jax-input", "llama", "bfloat16", "dynamic", True),
    ("jax-input", "gemma", "bfloat16", "static", False),
    ("jax-input", "gemma", "float32", "dynamic", True),
    # iree-turbine: aot.export of transformers' MLP modules (nn.Linear,
    # weights [out, in]) on x of shape [2, T, 64]; weights as constants
    # (turbine's default) or, for turbine-params-*, as externalized
    # parameters (util.global #stream.parameter.named).
    ("turbine-input", "llama", "float32", "dynamic", False),
    ("turbine-input", "llama", "float32", "static", True),
    ("turbine-input", "llama", "bfloat16", "static", True),
    ("turbine-input", "llama", "float16", "dynamic", False),
    ("turbine-input", "qwen2", "bfloat16", "dynamic", False),
    ("turbine-input", "mistral", "float16", "static", False),
    ("turbine-input", "gemma", "float32", "dynamic", False),
    ("turbine-input", "phi3", "float32", "static", False),
    ("turbine-input", "falcon_h1", "float32", "dynamic", True),
    ("turbine-torch-mlir", "llama", "float32", "dynamic", False),
    ("turbine-torch-mlir", "llama", "bfloat16", "static", True),
    ("turbine-torch-mlir", "gemma", "bfloat16", "dynamic", False),
    ("turbine-torch-mlir", "phi3", "float16", "dynamic", False),
    ("turbine-torch-mlir", "falcon_h1", "float32", "static", False),
    ("turbine-global-opt", "llama", "float32", "dynamic", True),
    ("turbine-global-opt", "llama", "bfloat16", "static", False),
    ("turbine-global-opt", "gemma", "float16", "static", False),
    ("turbine-global-opt", "phi3", "bfloat16", "dynamic", False),
    ("turbine-params-input", "llama", "bfloat16", "dynamic", True),
    ("turbine-params-input", "qwen2", "float32", "static", False),
    ("turbine-params-global-opt", "gemma", "float32", "dynamic", False),
    ("turbine-params-global-opt", "falcon_h1", "float16", "static", True),
    # Whole models: transformers' LlamaModel, 2 layers (attention, RMSNorm,
    # rotary embeddings, residuals), from hidden states to hidden states.
    ("turbine-params-input", "decoder", "float32", "static", False),
    ("turbine-params-global-opt", "decoder", "float32", "dynamic", False),
    ("onnx-params-input", "decoder", "float32", "dynamic", False),
    # (Not at ONNX's global optimization: IREE hoists constant parts of the
    # attention into globals set by a util.initializer, which the textual
    # rewrite below does not read. JAX only with static tokens: IREE 3.13's
    # StableHLO input does not lower the rotary table's
    # stablehlo.dynamic_broadcast_in_dim for a symbolic length.)
    # IREE's own output, printed in generic form (iree-compile
    # --mlir-print-op-generic) and read with --allow-unregistered-dialect:
    # util/hal/flow ops stay as opaque operations, nothing is rewritten.
    ("turbine-generic-input", "gemma", "float32", "static", False),
    ("turbine-params-generic-global-opt", "decoder", "float32", "dynamic", False),
    ("onnx-params-generic-global-opt", "decoder", "float32", "static", False),
    ("onnx-params-generic-input", "phi3", "float16", "dynamic", False),
    ("jax-generic-input", "llama", "bfloat16", "dynamic", True),
    ("jax-decoder-input", "decoder", "float32", "static", False),
    ("jax-decoder-input", "decoder", "bfloat16", "static", False),
]

# Forms knowingly not supported, with the remark fmlp-recognize gives and why
# (none now: Phi3's fused gate_up_proj is read as two views of one weight).
UNSUPPORTED = {}


def case_name(case):
    frontend, family, dtype, shape_kind, bias = case
    return f"{frontend}.{family}.{dtype}.{shape_kind}{'.bias' if bias else ''}"


def inline_util_globals(text):
    """turbine writes constant weights as `util.global` with a dense initial
    value, loaded by `util.global.load`; torch-mlir's backend contract
    rejects IREE's util ops, so before its pipeline each load becomes an
    `arith.constant` of the global's value (the same tensor)."""
    values = {}

    def collect(m):
        values[m.group(1)] = m.group(2).strip()
        return ""

    text = re.sub(r"(?m)^\s*util\.global private (?:mutable )?@([\w.$\"-]+)\s*=\s*(.*?)\s*:\s*"
                  r"tensor<[^>]*>\s*\n", collect, text)
    return re.sub(r"(%[\w.$\"-]+) = util\.global\.load (?:immutable )?@([\w.$\"-]+) : (tensor<[^>]*>)",
                  lambda m: f"{m.group(1)} = arith.constant {values[m.group(2)]} : {m.group(3)}", text)


def generic_flags(generic):
    return ["--mlir-print-op-generic"] if generic else []


def finish(out, generic):
    """The lowered file as the corpus keeps it: IREE's generic form as it
    is, or rewritten into upstream MLIR (rewrite_iree_for_mlir22)."""
    return out.read_text() if generic else rewrite_iree_for_mlir22(out.read_text())


def lower_turbine(case, work, generic):
    """iree-turbine's aot.export of the transformers module (or the whole
    decoder), lowered by IREE or by torch-mlir's pipeline."""
    import torch
    frontend, family, dtype, shape_kind, bias = case
    torch.manual_seed(0)
    module = make_decoder(dtype) if family == "decoder" else make_mlp(family, dtype, bias)
    weights = "globals" if frontend.startswith("turbine-params-") else "constants"
    torch_ir = work / "model.torch.mlir"
    export_turbine(module, dtype, shape_kind, torch_ir, weights)
    out = work / "out.mlir"
    level = frontend.replace("turbine-params-", "turbine-").replace("turbine-", "")
    if level == "input":
        run([BIN / "iree-compile", *generic_flags(generic), torch_ir, "--compile-to=input", "-o", out])
    elif level == "global-opt":
        run([BIN / "iree-compile", *generic_flags(generic), torch_ir, "--compile-to=global-optimization",
             "--iree-hal-target-device=local",
             "--iree-hal-local-target-device-backends=llvm-cpu", "-o", out])
    elif level == "torch-mlir":
        inlined = work / "model.inlined.mlir"
        inlined.write_text(inline_util_globals(torch_ir.read_text()))
        lower_torch_mlir_pipeline(inlined, out)
    else:
        raise ValueError(frontend)
    return finish(out, generic)


def lower(case, work):
    frontend, family, dtype, shape_kind, bias = case
    # `-generic`: IREE's output as iree-compile prints it in generic form,
    # read by fmlp with --allow-unregistered-dialect, not rewritten.
    generic = "-generic" in frontend
    if generic:
        frontend = frontend.replace("-generic", "")
        case = (frontend, family, dtype, shape_kind, bias)
    if frontend.startswith("turbine"):
        return lower_turbine(case, work, generic)
    if frontend == "jax-input":
        stablehlo = work / "model.stablehlo.mlir"
        export_jax(family, dtype, shape_kind, bias, stablehlo)
        out = work / "out.mlir"
        run([BIN / "iree-compile", *generic_flags(generic), stablehlo, "--iree-input-type=stablehlo",
             "--compile-to=input", "-o", out])
        return finish(out, generic)
    if frontend == "jax-decoder-input":
        stablehlo = work / "model.stablehlo.mlir"
        export_jax_decoder(dtype, shape_kind, stablehlo)
        out = work / "out.mlir"
        run([BIN / "iree-compile", *generic_flags(generic), stablehlo, "--iree-input-type=stablehlo",
             "--compile-to=input", "-o", out])
        return finish(out, generic)
    onnx_path = work / "model.onnx"
    if family == "decoder":
        # The whole transformers model, through torch.onnx.export.
        import torch
        torch.manual_seed(0)
        export_onnx(make_decoder(dtype), dtype, shape_kind, onnx_path)
    else:
        export_onnx_helper(family, dtype, shape_kind, bias, onnx_path)
    torch_ir = work / "model.torch.mlir"
    externalize = []
    if frontend.startswith("onnx-params-"):
        externalize = ["--externalize-params", "--num-elements-threshold", "100",
                       "--no-save-params"]
        frontend = frontend.replace("onnx-params-", "onnx-")
    run([BIN / "iree-import-onnx", onnx_path, *externalize, "-o", torch_ir])
    out = work / "out.mlir"
    if frontend == "onnx-input":
        run([BIN / "iree-compile", *generic_flags(generic), torch_ir, "--compile-to=input", "-o", out])
    elif frontend == "onnx-global-opt":
        run([BIN / "iree-compile", *generic_flags(generic), torch_ir, "--compile-to=global-optimization",
             "--iree-hal-target-device=local",
             "--iree-hal-local-target-device-backends=llvm-cpu", "-o", out])
    elif frontend == "onnx-torch-mlir":
        run([BIN / "iree-opt", torch_ir, "--pass-pipeline=builtin.module("
             "torch-onnx-to-torch-backend-pipeline,"
             "torch-backend-to-linalg-on-tensors-backend-pipeline)", "-o", out])
    else:
        raise ValueError(frontend)
    return finish(out, generic)


def weight_layout(frontend):
    """How the frontend stores the weights: ONNX initializers and JAX
    arguments are [in, out]; nn.Linear's weights (turbine) are [out, in]."""
    return "out_in" if frontend.startswith("turbine") else "in_out"


def weights_line(layout):
    """fmlp-compile's report of the three stored weights in `layout`."""
    def shape(inputs, outputs):
        return f"[{inputs}, {outputs}]" if layout == "in_out" else f"[{outputs}, {inputs}]"
    return (f"gate {shape(D, H)} {layout}, up {shape(D, H)} {layout}, "
            f"down {shape(H, D)} {layout}")


def tool_flags(frontend):
    """IREE's generic form holds util/hal ops that fmlp reads as opaque."""
    return " --allow-unregistered-dialect" if "-generic" in frontend else ""


def count_lines(ir, pattern):
    return sum(1 for line in ir.splitlines() if re.search(pattern, line))


def decoder_header(case, ir, layers=2):
    """The lit RUN lines and checks of a whole model: exactly `layers`
    blocks, each reported as the model's MLP; the contractions of the rest
    of the model (attention) and its RMSNorms' square roots are still
    there."""
    frontend, family, dtype, shape_kind, bias = case
    element = {"float32": "f32", "float16": "f16", "bfloat16": "bf16"}[dtype]
    tokens = "8" if shape_kind == "static" else "?"
    contraction = r"linalg\.(batch_)?matmul"  # grep -E and Python read it alike
    contractions = count_lines(ir, contraction)
    norm = r"math\.r?sqrt"  # RMSNorm's 1/sqrt: rsqrt, or sqrt and a division (ONNX)
    norms = count_lines(ir, norm)
    lines = [
        f"// Generated by test/Frontends/generate.py ({frontend}, whole 2-layer Llama decoder, "
        f"{dtype}, {shape_kind} tokens); regenerate, do not edit.",
        "// RUN: fmlp-opt %s" + tool_flags(frontend) + " --fmlp-recognize | FileCheck %s --check-prefix=BLOCKS",
        "// RUN: fmlp-opt %s" + tool_flags(frontend) + " --fmlp-recognize | grep -c -E '" + contraction +
        "' | FileCheck %s --check-prefix=CONTRACTIONS",
        "// RUN: fmlp-opt %s" + tool_flags(frontend) + " --fmlp-recognize | grep -c -E '" + norm + "' | FileCheck %s --check-prefix=NORMS",
        "// RUN: fmlp-compile %s" + tool_flags(frontend) + " --mode=infer --emit=gpu-mlir -o %t.mlir | FileCheck %s",
        f"// {layers} MLP blocks become {layers} fmlp.gated_mlp; of the file's {contractions} "
        f"contractions the {3 * layers} of the MLPs are gone, the attention's stay; the "
        f"{norms} square roots of the RMSNorms stay.",
        f"// BLOCKS-COUNT-{layers}: fmlp.gated_mlp silu",
        "// BLOCKS-NOT: fmlp.gated_mlp",
        f"// CONTRACTIONS: {{{{^}}}}{contractions - 3 * layers}{{{{$}}}}",
        f"// NORMS: {{{{^}}}}{norms}{{{{$}}}}",
    ]
    layout = weight_layout(frontend)
    for block in range(layers):
        lines += [
            f"// CHECK: block {block + 1} at {{{{.*}}}} -> entry points @{{{{.*}}}}.mlp{block}.*",
            "// CHECK-NEXT: activation     silu",
            f"// CHECK-NEXT: widths         D = {D}, H = {H}, x of type tensor<2x{tokens}x{D}x{element}>",
            f"// CHECK-NEXT: weights        {weights_line(layout)}",
            "// CHECK-NEXT: biases         none",
        ]
    lines.append(f"// CHECK-NOT: block {layers + 1}")
    return "\n".join(lines) + "\n\n"


def header(case):
    """The lit RUN lines and checks, from the model's configuration."""
    frontend, family, dtype, shape_kind, bias = case
    activation, has_bias = expectation(frontend, family, bias)
    element = {"float32": "f32", "float16": "f16", "bfloat16": "bf16"}[dtype]
    tokens = "8" if shape_kind == "static" else "?"
    x_shape = f"{tokens}x{D}" if frontend.startswith("jax") else f"2x{tokens}x{D}"
    lines = [f"// Generated by test/Frontends/generate.py ({frontend}, {family}, {dtype}, "
             f"{shape_kind} tokens{', biases' if has_bias else ''}); regenerate, do not edit."]
    if family in UNSUPPORTED:
        lines += [
            "// RUN: fmlp-opt %s" + tool_flags(frontend) + " --fmlp-recognize=explain-misses 2>&1 >/dev/null | FileCheck %s",
            "// RUN: fmlp-opt %s" + tool_flags(frontend) + " --fmlp-recognize | FileCheck %s --check-prefix=BLOCKS",
            "// Not supported: " + UNSUPPORTED[family] + ".",
            "// CHECK: remark: not fused into fmlp.gated_mlp: operand 0 of the activation "
            "product is not a projection: not computed by a linalg contraction",
            "// BLOCKS-NOT: fmlp.gated_mlp",
        ]
        return "\n".join(lines) + "\n\n"
    name = activation.split(",")[0]
    lines += [
        "// RUN: fmlp-opt %s" + tool_flags(frontend) + " --fmlp-recognize | FileCheck %s --check-prefix=BLOCKS",
        "// RUN: fmlp-compile %s" + tool_flags(frontend) + " --mode=infer --emit=gpu-mlir -o %t.mlir | FileCheck %s",
    ]
    layout = weight_layout(frontend)
    if family == "phi3":
        # One weight of 2H outputs; the gate and up weights are views of its
        # output-feature halves (columns of [D, 2H] in_out, rows of [2H, D]
        # out_in), inserted before the block.
        if layout == "in_out":
            offsets, sizes = ("[0, 0]", f"[0, {H}]"), f"[{D}, {H}]"
        else:
            offsets, sizes = ("[0, 0]", f"[{H}, 0]"), f"[{H}, {D}]"
        lines += [
            f"// BLOCKS: %[[GATE:.+]] = tensor.extract_slice %[[GATE_UP:[a-z0-9_]+]]{offsets[0]} {sizes} [1, 1]",
            f"// BLOCKS-NEXT: %[[UP:.+]] = tensor.extract_slice %[[GATE_UP]]{offsets[1]} {sizes} [1, 1]",
            f"// BLOCKS-NEXT: fmlp.gated_mlp {name} %{{{{.+}}}}, gate %[[GATE]], up %[[UP]],",
        ]
    else:
        lines.append(f"// BLOCKS-COUNT-1: fmlp.gated_mlp {name}")
    lines += [
        "// BLOCKS-NOT: fmlp.gated_mlp",
        "// CHECK: block 1 at",
        f"// CHECK-NEXT: activation     {activation}",
        f"// CHECK-NEXT: widths         D = {D}, H = {H}, x of type tensor<{x_shape}x{element}>",
        f"// CHECK-NEXT: weights        {weights_line(layout)}",
        "// CHECK-NEXT: biases         " + ("gate up down" if has_bias else "none"),
        "// CHECK-NOT: block 2",
    ]
    return "\n".join(lines) + "\n\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=pathlib.Path, default=HERE)
    parser.add_argument("--only", default="")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    for case in CASES:
        name = case_name(case)
        if args.only not in name:
            continue
        if args.list:
            print(name)
            continue
        print(name, file=sys.stderr)
        with tempfile.TemporaryDirectory() as tmp:
            ir = lower(case, pathlib.Path(tmp))
        head = decoder_header(case, ir) if case[1] == "decoder" else header(case)
        (args.out / f"{name}.mlir").write_text(head + ir.lstrip() + "\n")


if __name__ == "__main__":
    main()
