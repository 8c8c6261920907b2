"""What a bundle is compiled for, its cache key, its MLIR and the
fmlp-compile command that makes it. No torch needed.

A bundle (see docs/Bundle.md) holds one gated MLP block's forward, backward
and no-grad forward for one (D, H, dtype, activation, biases, multipliers,
LoRA ranks, chip, memory policy). Bundles live in a cache directory (FMLP_CACHE_DIR, else
~/.cache/fmlp), one directory per key; the key names fmlp's version, so
that an upgrade compiles its own bundles instead of reusing an older
compiler's.
"""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Optional

from . import policy
from . import precision as precisions
from ._version import __version__

# The bundle format fmlp-compile writes and the runtime reads
# (FMLP_BUNDLE_VERSION in include/fmlp/Runtime.h; test_spec.py checks that
# they agree). A cached bundle of another format, written by an fmlp of the
# same version before the format changed, is compiled again: the runtime
# would refuse it.
BUNDLE_FORMAT = 3

DTYPES = ("bf16", "f16", "f32")
# LoRA ranks are padded with zero rows to multiples of this, so that the
# rows of the bundle's [T, R] saved and workspace blocks stay 16-byte
# aligned for TMA at any element size (zero rows add nothing to any sum).
LORA_RANK_ALIGNMENT = 16
ACTIVATIONS = ("silu", "gelu_tanh", "relu")

# Hugging Face's hidden_act names for the activations fmlp fuses.
HF_ACTIVATIONS = {
    "silu": "silu",
    "swish": "silu",
    "gelu_pytorch_tanh": "gelu_tanh",
    "gelu_new": "gelu_tanh",
    "gelu_fast": "gelu_tanh",
    "relu": "relu",
}


class UnsupportedConfig(ValueError):
    """The block cannot be compiled by fmlp; the message says why."""


def activation_of(hidden_act: str) -> str:
    """fmlp's activation for a Hugging Face hidden_act name."""
    try:
        return HF_ACTIVATIONS[hidden_act]
    except KeyError:
        raise UnsupportedConfig(
            f"activation {hidden_act!r} is not fused by fmlp (supported: "
            + ", ".join(sorted(HF_ACTIVATIONS)) + ")") from None


@dataclasses.dataclass(frozen=True)
class BlockSpec:
    """y = down(act(gate_multiplier * gate(x)) * up(x)) * down_multiplier,
    weights in nn.Linear's [out, in] layout, optional biases on all three,
    optional LoRA adapters (docs/LoRA.md): gate and up stacked to rank
    lora_rank (R), down's of rank down_lora_rank (Rd); 0 = none."""

    hidden: int  # D
    intermediate: int  # H
    dtype: str  # bf16, f16, f32
    activation: str = "silu"
    bias: bool = False
    gate_multiplier: Optional[float] = None
    down_multiplier: Optional[float] = None
    chip: str = "sm_90a"
    # The memory policy (policy.py): what the forward saves, the chunk.
    save: str = "agu"
    chunk_tokens: int = 0
    # How an f32 block multiplies (precision.py); 16-bit blocks keep ieee.
    precision: str = "ieee"
    # The adapters' ranks, padded by the caller with zero rows to multiples
    # of LORA_RANK_ALIGNMENT.
    lora_rank: int = 0
    down_lora_rank: int = 0

    def __post_init__(self):
        if self.dtype not in DTYPES:
            raise UnsupportedConfig(f"dtype {self.dtype!r} is not one of {DTYPES}")
        if self.activation not in ACTIVATIONS:
            raise UnsupportedConfig(
                f"activation {self.activation!r} is not one of {ACTIVATIONS}")
        policy.MemoryPolicy(self.save, self.chunk_tokens)  # checks both
        precisions.check(self.precision)
        if self.dtype != "f32" and self.precision != "ieee":
            raise UnsupportedConfig(f"precision {self.precision!r} is for f32 blocks; "
                                    f"a {self.dtype} block's products are exact")
        if self.hidden <= 0 or self.intermediate <= 0:
            raise UnsupportedConfig(
                f"widths must be positive (D = {self.hidden}, H = {self.intermediate})")
        for name in ("lora_rank", "down_lora_rank"):
            rank = getattr(self, name)
            if type(rank) is not int or rank < 0 or rank % LORA_RANK_ALIGNMENT:
                raise UnsupportedConfig(
                    f"{name} = {rank!r}: a rank is 0 (no adapters) or a positive multiple of "
                    f"{LORA_RANK_ALIGNMENT} (adapters padded with zero rows)")

    @property
    def key(self) -> str:
        """The cache directory's name: every field that changes the kernels,
        and the version of fmlp that compiles them."""
        parts = [f"fmlp{__version__}", f"d{self.hidden}", f"h{self.intermediate}", self.dtype,
                 self.activation, self.chip]
        if self.bias:
            parts.append("bias")
        if self.gate_multiplier is not None:
            parts.append(f"gm{self.gate_multiplier!r}")
        if self.down_multiplier is not None:
            parts.append(f"dm{self.down_multiplier!r}")
        if self.save != "agu":
            parts.append(f"save{self.save}")
        if self.chunk_tokens:
            parts.append(f"chunk{self.chunk_tokens}")
        if self.precision != "ieee":
            parts.append(self.precision)
        if self.lora_rank:
            parts.append(f"lora{self.lora_rank}")
        if self.down_lora_rank:
            parts.append(f"dlora{self.down_lora_rank}")
        return "-".join(parts)

    def mlir(self) -> str:
        """The block as fmlp.gated_mlp, T dynamic. The function's arguments
        are named as the bundle's entry points name them: x, gate, up,
        down, [gate_bias, up_bias, down_bias,] [lora_a, gate_lora_b,
        up_lora_b,] [down_lora_a, down_lora_b]."""
        d, h, t = self.hidden, self.intermediate, self.dtype
        r, rd = self.lora_rank, self.down_lora_rank
        x = f"tensor<?x{d}x{t}>"
        args = [("x", x), ("gate", f"tensor<{h}x{d}x{t}>"),
                ("up", f"tensor<{h}x{d}x{t}>"), ("down", f"tensor<{d}x{h}x{t}>")]
        if self.bias:
            args += [("gate_bias", f"tensor<{h}x{t}>"), ("up_bias", f"tensor<{h}x{t}>"),
                     ("down_bias", f"tensor<{d}x{t}>")]
        if r:
            args += [("lora_a", f"tensor<{r}x{d}x{t}>"), ("gate_lora_b", f"tensor<{h}x{r}x{t}>"),
                     ("up_lora_b", f"tensor<{h}x{r}x{t}>")]
        if rd:
            args += [("down_lora_a", f"tensor<{rd}x{h}x{t}>"),
                     ("down_lora_b", f"tensor<{d}x{rd}x{t}>")]
        operands = "%x, gate %gate, up %up, down %down"
        if self.bias:
            operands += " gate_bias %gate_bias up_bias %up_bias down_bias %down_bias"
        if r:
            operands += " lora(%lora_a, %gate_lora_b, %up_lora_b)"
        if rd:
            operands += " down_lora(%down_lora_a, %down_lora_b)"
        attributes = [f"{name} = {value!r} : f64" for name, value in
                      (("gate_multiplier", self.gate_multiplier),
                       ("down_multiplier", self.down_multiplier)) if value is not None]
        attr = (" {" + ", ".join(attributes) + "}") if attributes else ""
        signature = ", ".join(f"%{n}: {ty}" for n, ty in args)
        types = ", ".join(ty for _, ty in args)
        return (f"func.func @mlp({signature}) -> {x} {{\n"
                f"  %y = fmlp.gated_mlp {self.activation} {operands}{attr}\n"
                f"      : ({types}) -> {x}\n"
                f"  return %y : {x}\n}}\n")


def cache_dir() -> Path:
    return Path(os.environ.get("FMLP_CACHE_DIR", Path.home() / ".cache" / "fmlp"))


def bundle_path(spec: BlockSpec) -> Path:
    return cache_dir() / (spec.key + ".bundle")


def _policy_flags(spec: BlockSpec) -> list:
    return [f"--save={spec.save}", f"--chunk-tokens={spec.chunk_tokens}",
            f"--precision={spec.precision}"]


def compile_command(spec: BlockSpec, source: Path, bundle: Path) -> list:
    return (["fmlp-compile", str(source), f"--chip={spec.chip}", "--report=false"]
            + _policy_flags(spec) + ["-o", str(bundle)])


def memory_report(spec: BlockSpec, tokens: int) -> dict:
    """fmlp-compile's memory plan of `spec` (its save and chunk_tokens) at
    `tokens` tokens, in bytes beyond the inputs, weights and outputs:
    saved_bytes (kept from forward to backward), forward_, backward_ and
    nograd_workspace_bytes, training_peak_bytes (saved plus the larger
    workspace), inference_peak_bytes. Needs fmlp-compile on PATH. The
    workspaces are what the bundle's entry points use at that T (the
    runtime's fmlp_workspace_bytes_used): the plan's, and the GPU kernels' own, which
    fmlp-compile plans as far as the launches without compiling a kernel:
    `split_k_workspace` where kernels split K at a few hundred tokens (a
    few MiB, whatever T), and in an fp32 block whose backward runs on
    WGMMA (sm_90a) K-major copies of its weights, `*_transposed` (3 D H
    elements; and at precision tf32, `*_tf32`, 3 D H more in the forward
    entry points: the weights rounded to tf32), each counted from the T of
    its first reader (at tf32: 513 for `*_transposed`, 769 for `*_tf32`)."""
    if shutil.which("fmlp-compile") is None:
        raise BundleMissing("fmlp.memory_report needs fmlp-compile on PATH")
    with tempfile.TemporaryDirectory(prefix="fmlp-report.") as directory:
        source = Path(directory) / "block.mlir"
        source.write_text(spec.mlir())
        command = (["fmlp-compile", str(source), "--report-format=json", f"--tokens={tokens}"]
                   + _policy_flags(spec))
        result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stderr}")
    return json.loads(result.stdout)


class BundleMissing(FileNotFoundError):
    """No bundle in the cache and no fmlp-compile to make one."""


class Unavailable(Exception):
    """fmlp has no kernels for a block on this GPU: the chip table lacks
    the device (compute capability 7.5 and older), or fmlp-compile refused
    the block; the message says why. A fused module then runs Hugging
    Face's forward with one UnfusedWarning, as the unpatched model would;
    with FMLP_STRICT=1 in the environment it raises this instead (for test
    suites and benchmarks that must run fmlp's kernels). A missing
    compiler (BundleMissing) is a set-up error and always raises."""


class CompileFailed(Unavailable):
    """fmlp-compile exited with an error on the block (its stderr in the
    message)."""


def strict() -> bool:
    """FMLP_STRICT set (and not 0): Unavailable raises instead of running
    the unfused forward."""
    return os.environ.get("FMLP_STRICT", "0") not in ("", "0")


def _format_of(bundle: Path) -> Optional[int]:
    """The format version `bundle`'s manifest says, or None."""
    try:
        return json.loads((bundle / "manifest.json").read_text()).get("version")
    except (OSError, ValueError, AttributeError):
        return None


def find_or_compile(spec: BlockSpec) -> Path:
    """The bundle for `spec`: from the cache, else compiled into it by
    fmlp-compile when it is on PATH; else an error naming the command."""
    bundle = bundle_path(spec)
    cached = (bundle / "manifest.json").is_file()
    if cached and _format_of(bundle) == BUNDLE_FORMAT:
        return bundle
    source = bundle.with_suffix(".mlir")
    command = compile_command(spec, source, bundle)
    if shutil.which("fmlp-compile") is None:
        raise BundleMissing(
            f"no fmlp bundle for {spec.key} in {cache_dir()} and fmlp-compile is "
            f"not on PATH. Make it where fmlp is built:\n"
            f"  cat > {source} <<'EOF'\n{spec.mlir()}EOF\n"
            f"  {' '.join(command)}")
    bundle.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(spec.mlir())
    # Compiled beside the cache entry and renamed into place, so that a
    # concurrent or interrupted compile never leaves half a bundle.
    staging = Path(tempfile.mkdtemp(dir=bundle.parent, prefix=spec.key + "."))
    try:
        result = subprocess.run(compile_command(spec, source, staging / "b.bundle"),
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise CompileFailed(f"{' '.join(command)} failed:\n{result.stderr}")
        if cached:  # of another format: replaced (its readers fail anyway)
            shutil.rmtree(bundle, ignore_errors=True)
        try:
            os.rename(staging / "b.bundle", bundle)
        except OSError:
            if _format_of(bundle) != BUNDLE_FORMAT:
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return bundle
