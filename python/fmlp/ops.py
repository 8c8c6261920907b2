"""fmlp's entry points as torch.library ops (fmlp::forward,
fmlp::forward_nograd, fmlp::backward), with fake (meta) implementations for
torch.compile and autograd through fmlp::backward.

Each op takes the bundle's directory, x as [T, D] and the parameters in the
bundle's order, each its own argument: gate, up, down, gate_bias, up_bias,
down_bias, the biases None when the block has none (`parameters(params)`
makes these six from a list). Launches go on torch's current stream with
torch-allocated buffers: no allocation inside fmlp, no synchronization,
CUDA-graph safe.

A block with LoRA adapters (docs/LoRA.md) runs through the ops' LoRA twins,
fmlp::forward_lora, fmlp::forward_nograd_lora and fmlp::backward_lora:
the same six parameters, then lora_a, gate_lora_b, up_lora_b, down_lora_a,
down_lora_b (A_cat [R, D], Bg and Bu [H, R], Ad [Rd, H], Bd [D, Rd]; a
group the block does not have is None; `parameters(params, adapters)`),
and fmlp::backward_lora returns their gradients after the biases'. Twins,
not optional arguments of the same ops, so that a block without adapters
pays nothing for them: five more None arguments and five more empty
results cost the no-grad op about 0.7 us and the backward about 7 us of
host time per call (CPU, torch 2.15).

fmlp::backward writes dG and dU over the saved G and U; its schema says so
(mutates `saved`, `Tensor(a!)`), so autograd's version counter on `saved`
(bumped by the op) and functionalization under torch.compile see it. That
is also why the runtime's own address-based check of saved activations is
turned off here: autograd tracks them, and torch.compile may pass a
backward a copy.

fmlp::backward computes only the gradients it is asked for (`wanted`: x's,
then each parameter's, from autograd's needs_input_grad): the others are
returned as empty tensors (the op stays functional, its outputs' shapes a
function of its inputs, so the fake implementation agrees) and autograd
gets None for them. The runtime skips the kernels that would write only
gradients nobody wants (Runtime.h, fmlp_launch): frozen weights run
neither weight-gradient GEMM, an x that needs no gradient not dX.

The host path is lean (issue 22): the ops are registered with
torch.library.Library (define, one kernel for every device, a fake
kernel, an Autograd kernel of fmlp's own: _register_autograd, which
torch.func's grad and vjp also go through), not torch.library.custom_op,
whose wrappers cost more than the op's own Python; the parameters are
arguments of their own (a Tensor[] costs autograd a pytree flattening per
call); and each (bundle, entry point, device) has a _Plan built once from
the manifest: which arguments are given and which
are allocated (shapes from the manifest, -1 = T: nothing here assumes
the saved activations' width, or that there are any), and a ctypes array
of tensor descriptions written in place per call.
"""
from __future__ import annotations

import os
import threading
import warnings
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import torch
try:  # torch's own names for what torch.func does with an autograd.Function
    from torch._C._functorch import is_gradtrackingtensor as _is_gradtrackingtensor
    from torch._functorch.utils import enable_single_level_autograd_function as _single_level
    from torch.autograd.function import _SingleLevelFunction
except ImportError:  # a torch without them: torch.library.register_autograd
    _SingleLevelFunction = None

    def _is_gradtrackingtensor(t):
        return False
from torch.autograd import forward_ad
from torch.autograd.graph import increment_version

from . import runtime

DTYPES = {torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16"}
_CODES = {dtype: runtime.DTYPE_CODES[name] for dtype, name in DTYPES.items()}
_bundles: Dict[Tuple[str, int], runtime.Bundle] = {}
_manifests: Dict[str, runtime.Bundle] = {}
_lock = threading.Lock()

# Tests without a GPU set this: emulate(path, kind, {name: tensor}) then
# computes an entry point's results instead of its kernels (the arguments
# allocated as for a launch; outputs not needed are absent).
emulate: Optional[Callable[[str, str, Dict[str, torch.Tensor]], None]] = None


# serial_launches' setting; None: each bundle's own (FMLP_SERIAL_LAUNCHES
# when it was opened, else off).
_serial: Optional[bool] = None


def serial_launches(enabled: bool) -> None:
    """Every kernel of the bundles loaded, and of those loaded later, on the
    caller's stream, each after the one before has ended (True), or with
    the overlap the manifests allow (False: a backward's dX GEMM on a side
    stream beside the weight gradients', the no-grad forward's kernels
    launched programmatically; runtime.Bundle.serial_launches). Until
    called, each bundle keeps its own setting (FMLP_SERIAL_LAUNCHES=1 when
    it is opened: serial). Results are the same bits either way; for A/B
    measurements (bench/bench_sweep.py's fmlp_serial) and tests."""
    global _serial
    with _lock:
        _serial = bool(enabled)
        for bundle in _bundles.values():
            bundle.serial_launches(_serial)


def _manifest(path: str) -> runtime.Bundle:
    """The bundle opened (manifest only: shapes for fake tensors)."""
    if path not in _manifests:
        _manifests[path] = runtime.Bundle(path)
    return _manifests[path]


def _loaded(path: str, device: int) -> runtime.Bundle:
    key = (path, device)
    if key not in _bundles:
        with torch.cuda.device(device):
            bundle = runtime.Bundle(path)
            bundle.load()
            bundle.check_saved(False)
            if _serial is not None:
                bundle.serial_launches(_serial)
        _bundles[key] = bundle
    return _bundles[key]


def describe(t: torch.Tensor) -> runtime.Tensor:
    """The runtime's description of `t` (address, dtype, sizes, strides)."""
    if t.dtype not in DTYPES:
        raise TypeError(f"fmlp: dtype {t.dtype} is not one of {list(DTYPES)}")
    return runtime.describe(t.data_ptr(), DTYPES[t.dtype], t.shape, t.stride())


def _code(t: torch.Tensor) -> int:
    code = _CODES.get(t.dtype)
    if code is None:
        raise TypeError(f"fmlp: dtype {t.dtype} is not one of {list(DTYPES)}")
    return code


# The parameters in the bundle's order (the LoRA ops' eleven; the others'
# the first six), and the backward's results (one more: x's first).
_PARAMS = ("gate", "up", "down", "gate_bias", "up_bias", "down_bias",
           "lora_a", "gate_lora_b", "up_lora_b", "down_lora_a", "down_lora_b")
_GRADS = ("dx",) + tuple("d_" + name for name in _PARAMS)


class _Plan:
    """How to call one entry point of one bundle: for each argument, in the
    bundle's order, its name, whether it is an output, and the shape and
    dense strides of the buffer allocated for it when the caller does not
    give it (from the manifest: -1 rows = T); and, per argument, the T
    below which no buffer is passed: a workspace's fmlp_argument_min_tokens
    (tf32's rounded weight copies, which the kernels of few T do not read:
    a no-grad call at T = 1 allocates none of their 3 D H floats), 0 for
    the others."""

    def __init__(self, bundle: runtime.Bundle, kind: str, launch: bool = True):
        entry = bundle.entry(kind)
        self.entry, self.kind, self.path = entry, kind, bundle.directory
        self.arguments = []
        for a in entry.arguments:
            shape = tuple(a["shape"])
            strides = tuple(_dense_strides(shape))
            self.arguments.append((a["name"], a["role"] == "output", shape, strides))
        self.unused_below = tuple(a["min_tokens"] if a["role"] == "workspace" else 0
                                  for a in entry.arguments)
        # The byte boundary each input's pointer must be on (0: none; the
        # saved activations, which the backward writes, are never copied).
        self.copy_unless_on = tuple(a["alignment"] if a["role"] == "input" else 0
                                    for a in entry.arguments)
        self.index = {a["name"]: i for i, a in enumerate(entry.arguments)}
        self.count = len(self.arguments)
        self._launch = entry.launcher() if launch else None
        self._local = threading.local()
        self._needed: Dict[Tuple[bool, ...], frozenset] = {}

    def needed(self, wanted: Sequence[str]) -> frozenset:
        """The outputs to allocate when only those named in `wanted` are
        wanted (the runtime's closure: a GEMM that writes dWg and dWu
        needs both when either is wanted)."""
        key = tuple(name in wanted for name, _, _, _ in self.arguments)
        if key not in self._needed:
            flags = self.entry.outputs_needed(key)
            self._needed[key] = frozenset(
                name for (name, output, _, _), need in zip(self.arguments, flags)
                if output and need)
        return self._needed[key]

    def _tensors(self) -> runtime.TensorArray:
        tensors = getattr(self._local, "tensors", None)
        if tensors is None:
            tensors = self._local.tensors = runtime.TensorArray(self.count)
        return tensors

    def _aligned(self, given: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        """Replaces each input of `given` whose pointer is not on the
        boundary the manifest asks of it by an aligned copy (returned by
        name), with a warning: the kernels read it in 16-byte pieces, as
        tensor maps do. The patched modules run Hugging Face's forward for
        such a weight in eager calls; under torch.compile, whose tracing
        sees no pointers, the op copies it here at every call (the
        launches end before the copy is freed: the runtime joins its lanes
        into the caller's stream before it returns)."""
        copies = {}
        for name, t in given.items():  # (the entry may not take each one)
            i = self.index.get(name)
            boundary = self.copy_unless_on[i] if i is not None else 0
            if boundary and t.data_ptr() % boundary:
                warnings.warn(f"fmlp: {name} is not on a {boundary}-byte boundary, as the "
                              f"kernels of {os.path.basename(self.path)} read it; it is "
                              f"copied for each call")
                copies[name] = t.clone()
        given.update(copies)
        return copies

    def run(self, x: torch.Tensor, given: Dict[str, torch.Tensor],
            wanted: Optional[Sequence[str]] = None) -> Dict[str, torch.Tensor]:
        """Launches the entry point with the `given` tensors and buffers
        allocated for the others (like x), on torch's current stream;
        returns the allocated ones by name. With `wanted`, the outputs not
        needed for those are passed null and not allocated."""
        tokens, dtype, device = x.shape[0], x.dtype, x.device
        needed = None if wanted is None else self.needed(wanted)
        made = {}
        if emulate is not None:
            self._aligned(given)
            for (name, output, shape, _), unused_below in zip(self.arguments, self.unused_below):
                if (name not in given and tokens >= unused_below
                        and (needed is None or not output or name in needed)):
                    made[name] = torch.empty((tokens,) + shape[1:] if shape[0] == -1 else shape,
                                             dtype=dtype, device=device)
            emulate(self.path, self.kind, {**given, **made})
            return made
        tensors = self._tensors()
        code = _code(x)
        for i, (name, output, shape, strides) in enumerate(self.arguments):
            t = given.get(name)
            if t is not None:
                tensors.set(i, t.data_ptr(), _code(t), t.shape, t.stride())
                continue
            if tokens < self.unused_below[i] or (
                    output and needed is not None and name not in needed):
                tensors.set_null(i)
                continue
            if shape[0] == -1:
                shape = (tokens,) + shape[1:]
            t = made[name] = torch.empty(shape, dtype=dtype, device=device)
            tensors.set(i, t.data_ptr(), code, shape, strides)
        stream = torch._C._cuda_getCurrentRawStream(x.get_device())
        try:
            self._launch(tensors, stream)
        except runtime.AlignmentError:
            # Nothing launched (the runtime validates first): an input off
            # its boundary, copied, then the call again; else the error.
            copies = self._aligned(given)
            if not copies:
                raise
            for name, t in copies.items():
                tensors.set(self.index[name], t.data_ptr(), _code(t), t.shape, t.stride())
            self._launch(tensors, stream)
        return made


def _dense_strides(shape: Sequence[int]) -> List[int]:
    """Dense row-major strides of `shape` (rows, -1 for T, do not enter)."""
    strides, stride = [], 1
    for extent in reversed(shape):
        strides.append(stride)
        stride *= max(extent, 1)
    return strides[::-1]


_plans: Dict[Tuple[str, str, int], _Plan] = {}


def _plan(path: str, kind: str, x: torch.Tensor) -> _Plan:
    """The plan of entry `kind` of bundle `path` on x's device (its bundle
    loaded there once); without a GPU (emulate), of the manifest."""
    device = x.get_device()
    key = (path, kind, device)
    plan = _plans.get(key)
    if plan is None:
        with _lock:
            if emulate is not None:
                plan = _Plan(_manifest(path), kind, launch=False)
            else:
                if x.device.type != "cuda":
                    raise RuntimeError(f"fmlp: runs on CUDA tensors; x is on {x.device}")
                plan = _Plan(_loaded(path, device), kind)
            _plans[key] = plan
    return plan


def _named(params: Sequence[Optional[torch.Tensor]], x: torch.Tensor) -> Dict[str, torch.Tensor]:
    """x and the parameters given (gate, up, down, then biases, then
    adapters; None: absent) by the bundle's argument names."""
    named = {name: p for name, p in zip(_PARAMS, params) if p is not None}
    named["x"] = x
    return named


def _shaped(path: str, kind: str, x: torch.Tensor, name: str) -> torch.Tensor:
    """An empty buffer shaped as entry `kind`'s argument `name` for x
    (fake implementations); an empty tensor when there is none (save=x:
    no saved activations)."""
    for a in _manifest(path).entry(kind).arguments:
        if a["name"] == name:
            shape = [x.shape[0] if s == -1 else s for s in a["shape"]]
            return x.new_empty(shape)
    return x.new_empty(0)


def parameters(params: Sequence[Optional[torch.Tensor]],
               adapters: Optional[Sequence[Optional[torch.Tensor]]] = None
               ) -> Tuple[Optional[torch.Tensor], ...]:
    """The ops' parameter arguments for `params` (gate, up, down, then the
    biases when the block has them): gate, up, down, gate_bias, up_bias,
    down_bias, None for the biases a block does not have. With `adapters`
    (lora_a, gate_lora_b, up_lora_b, down_lora_a, down_lora_b, None for a
    group the block does not have), the LoRA ops' eleven: those six, then
    the five."""
    if len(params) not in (3, 6):
        raise ValueError(f"fmlp: 3 weights and optionally 3 biases, got {len(params)} parameters")
    six = tuple(params) if len(params) == 6 else (*params, None, None, None)
    if adapters is None:
        return six
    if len(adapters) != 5:
        raise ValueError(f"fmlp: 5 adapter matrices (lora_a, gate_lora_b, up_lora_b, "
                         f"down_lora_a, down_lora_b; None where absent), got {len(adapters)}")
    return six + tuple(adapters)


_NO_FORWARD_DERIVATIVE = (
    "fmlp: forward-mode AD (torch.func.jvp, jacfwd, torch.autograd.forward_ad) through "
    "fmlp's ops is not supported: they have no forward derivative, and PyTorch would give "
    "their results a zero tangent. Call the unpatched module (Hugging Face's forward) "
    "there, or use reverse mode (torch.func.grad, vjp).")


def _forward(bundle, x, *params):
    """y and the saved activations for backward (empty when the bundle
    keeps none)."""
    made = _plan(bundle, "forward", x).run(x, _named(params, x))
    saved = made.get("saved")
    return made["y"], (saved if saved is not None else x.new_empty(0))


def _forward_fake(bundle, x, *params):
    return _shaped(bundle, "forward", x, "y"), _shaped(bundle, "forward", x, "saved")


def _forward_nograd(bundle, x, *params):
    """y alone: nothing is kept for a backward. It has no derivative of
    either mode: under a dual level of forward-mode AD it refuses to run
    (it has no Autograd kernel, which would cost every call host time,
    and below autograd no tangent is visible: one global's read here)."""
    if forward_ad._current_level >= 0:
        raise RuntimeError(_NO_FORWARD_DERIVATIVE)
    return _plan(bundle, "forward_nograd", x).run(x, _named(params, x))["y"]


def _forward_nograd_fake(bundle, x, *params):
    return _shaped(bundle, "forward_nograd", x, "y")


def _no_gradient(x: torch.Tensor) -> torch.Tensor:
    """A gradient not computed (not wanted, or of a bias the block does not
    have): an empty tensor, a new one per result (results never alias)."""
    return x.new_empty(0)


def _backward_op(bundle, x, *arguments):
    """The arguments: the parameters (six, or the LoRA op's eleven), dy,
    saved, wanted. Returns dx, then each parameter's gradient (d_gate,
    d_up, d_down, d_gate_bias, d_up_bias, d_down_bias[, d_lora_a, ...,
    d_down_lora_b]): those `wanted` (x's flag, then each parameter's)
    computed, the others empty (so are the gradients of absent biases and
    adapters). Writes dG and dU over the saved G and U."""
    params, (dy, saved, wanted) = arguments[:-3], arguments[-3:]
    given = _named(params, x)
    given["dy"], given["saved"] = dy, saved
    # The schema's mutation of saved, for autograd: its version counter
    # moves (what torch.library.custom_op's ADInplaceOrView kernel does,
    # here without a Python kernel of its own in the dispatch).
    increment_version(saved)
    grads = _GRADS[:len(params) + 1]
    names = [name for name, want, t in zip(grads, wanted, (x, *params))
             if want and t is not None]
    made = _plan(bundle, "backward", x).run(x, given, names)
    return tuple(made[name] if name in names else _no_gradient(x) for name in grads)


def _backward_fake(bundle, x, *arguments):
    params, wanted = arguments[:-3], arguments[-1]
    return tuple(torch.empty_like(t) if want and t is not None else _no_gradient(x)
                 for t, want in zip((x, *params), wanted))


# Each parameter its own argument, not a Tensor[]: autograd then needs no
# pytree flattening of a list per call (torch.library's tensor-list
# wrapper). Fixed results, not a list: torch.compile functionalizes a
# mutating op only when each result is a plain Tensor.
_PARAMETERS = ("Tensor gate, Tensor up, Tensor down, Tensor? gate_bias, Tensor? up_bias, "
               "Tensor? down_bias")
_ADAPTERS = ("Tensor? lora_a, Tensor? gate_lora_b, Tensor? up_lora_b, Tensor? down_lora_a, "
             "Tensor? down_lora_b")


def _schemas(parameters: str, results: int) -> Dict[str, str]:
    return {
        "forward": f"(str bundle, Tensor x, {parameters}) -> (Tensor, Tensor)",
        "forward_nograd": f"(str bundle, Tensor x, {parameters}) -> Tensor",
        "backward": f"(str bundle, Tensor x, {parameters}, Tensor dy, Tensor(a!) saved, "
                    f"bool[] wanted) -> ({', '.join(['Tensor'] * results)})",
    }


SCHEMAS = _schemas(_PARAMETERS, 7)
SCHEMAS.update({name + "_lora": schema for name, schema in
                _schemas(f"{_PARAMETERS}, {_ADAPTERS}", 12).items()})
_library = torch.library.Library("fmlp", "DEF")
for _suffix in ("", "_lora"):
    for _name, _function, _fake in (("forward", _forward, _forward_fake),
                                     ("forward_nograd", _forward_nograd, _forward_nograd_fake),
                                     ("backward", _backward_op, _backward_fake)):
        _name += _suffix
        _library.define(_name + SCHEMAS[_name], tags=(torch.Tag.pt2_compliant_tag,))
        # Every device: a CPU tensor reaches _plan, which says fmlp runs on
        # CUDA (or, without a GPU, the emulation).
        _library.impl(_name, _function, "CompositeExplicitAutograd")
        torch.library.register_fake(f"fmlp::{_name}", _fake, lib=_library)

forward = torch.ops.fmlp.forward
forward_nograd = torch.ops.fmlp.forward_nograd
backward = torch.ops.fmlp.backward
forward_lora = torch.ops.fmlp.forward_lora
forward_nograd_lora = torch.ops.fmlp.forward_nograd_lora
backward_lora = torch.ops.fmlp.backward_lora


def wanted_gradients(needs_input_grad) -> List[bool]:
    """fmlp::backward's `wanted` from autograd's needs_input_grad of
    fmlp::forward, (bundle, x, gate, up, down, gate_bias, up_bias,
    down_bias), or of fmlp::forward_lora (the same, then lora_a,
    gate_lora_b, up_lora_b, down_lora_a, down_lora_b): x's flag, then each
    parameter's (False for an absent bias or adapter)."""
    return [bool(flag) for flag in needs_input_grad[1:]]


def _setup_context(ctx, inputs, output):
    bundle, x, *params = inputs
    _, saved = output
    ctx.bundle = bundle
    ctx.save_for_backward(x, saved, *(p for p in params if p is not None))
    ctx.mark_non_differentiable(saved)
    # saved has no gradient: without this, autograd would hand _backward a
    # zero tensor of its size (T rows of the saved activations) as one.
    ctx.set_materialize_grads(False)


def _setup_context_lora(ctx, inputs, output):
    """_setup_context's for fmlp::forward_lora: either adapter group may
    be absent, so the parameters are saved with their Nones in place."""
    bundle, x, *params = inputs
    _, saved = output
    ctx.bundle = bundle
    ctx.save_for_backward(x, saved, *params)
    ctx.mark_non_differentiable(saved)
    ctx.set_materialize_grads(False)


def _inputs_for_backward(ctx, dy):
    """x, saved, the parameters and dy for a backward through `ctx`'s
    forward, which it consumes; refuses a second backward and a double
    backward."""
    # Never silently wrong: the saved G and U hold dG and dU after one
    # backward, and fmlp::backward has no derivative of its own.
    if getattr(ctx, "consumed", False):
        raise RuntimeError(
            "fmlp: a second backward through the same forward (retain_graph=True) is "
            "not supported: the first backward wrote dG and dU over the saved "
            "activations. Run the forward again.")
    x, saved, *params = ctx.saved_tensors
    if dy is None:  # y's gradient is zero (not materialized)
        dy = torch.zeros_like(x)
    # A backward that autograd would record (create_graph=True) is refused
    # at once; except under torch.func's grad and vjp (x is their level's
    # GradTrackingTensor), which record every backward, a first derivative
    # too: there fmlp::backward's own autograd refuses a second derivative
    # when one is taken (_no_derivative).
    if (torch.is_grad_enabled() and not _is_gradtrackingtensor(x)
            and any(t is not None and t.requires_grad for t in [dy, x, *params])):
        raise RuntimeError("fmlp: double backward (create_graph=True) is not supported")
    ctx.consumed = True  # from here on, saved holds dG and dU
    return x, saved, params, dy.contiguous()


def _backward(ctx, dy, _dsaved):
    x, saved, params, dy = _inputs_for_backward(ctx, dy)
    wanted = wanted_gradients(ctx.needs_input_grad)
    grads = torch.ops.fmlp.backward(ctx.bundle, x, *parameters(params), dy, saved, wanted)
    return (None, *(g if want else None for g, want in zip(grads, wanted)))


def _backward_lora(ctx, dy, _dsaved):
    x, saved, params, dy = _inputs_for_backward(ctx, dy)
    wanted = wanted_gradients(ctx.needs_input_grad)
    grads = torch.ops.fmlp.backward_lora(ctx.bundle, x, *params, dy, saved, wanted)
    return (None, *(g if want else None for g, want in zip(grads, wanted)))


def _no_context(ctx, inputs, output):
    pass


def _no_derivative(ctx, *grads):
    raise RuntimeError(
        "fmlp: double backward is not supported: fmlp::backward has no derivative (a "
        "second derivative through fmlp's ops, e.g. torch.func.grad of torch.func.grad, "
        "or a backward through the gradients torch.func.grad returned)")


def _register_autograd(name: str, setup_context, backward) -> None:
    """The Autograd kernel of fmlp::`name`: where autograd records (grad
    mode on, an input requiring grad), an autograd.Function whose forward
    runs the op below autograd (`setup_context` and `backward` its own);
    else the op below autograd. What torch.library.register_autograd
    registers, but for torch.func: its Function (forward(ctx, ...), also
    torch.library.custom_op's) is refused by torch.func's transforms, and
    a Function of the setup_context form cannot be applied from inside an
    op under them (functorch's custom_function_call has no Autograd
    kernel). So the Function applies at the current level, as an ATen
    op's autograd kernel does: under torch.func's grad and vjp at their
    level (a single-level Function, which functorch itself applies for an
    autograd.Function at each level), its forward then running the op on
    the level below with grad mode on (each level records its own)."""
    if _SingleLevelFunction is None:  # no torch.func through fmlp's ops
        if setup_context is not _no_context:
            torch.library.register_autograd(f"fmlp::{name}", backward,
                                            setup_context=setup_context, lib=_library)
        return
    op = getattr(torch.ops.fmlp, name).default

    def forward(*args):
        with torch.enable_grad(), torch._C._AutoDispatchBelowAutograd():
            return op(*args)
    function = type(f"fmlp_{name}", (_SingleLevelFunction,), {
        "forward": staticmethod(forward), "setup_context": staticmethod(setup_context),
        "backward": staticmethod(backward)})

    def kernel(keyset, *args):
        # A forward-mode tangent on an argument (the op has no forward
        # derivative): refused, never a silent zero tangent. Outside a
        # dual level, one global's read.
        if forward_ad._current_level >= 0 and any(
                isinstance(a, torch.Tensor) and forward_ad.unpack_dual(a).tangent is not None
                for a in args):
            raise RuntimeError(_NO_FORWARD_DERIVATIVE)
        if torch.is_grad_enabled() and torch._C._any_requires_grad(*args):
            if torch._C._are_functorch_transforms_active():
                with _single_level():
                    return function.apply(*args)
            return function.apply(*args)
        with torch._C._AutoDispatchBelowAutograd():
            return op.redispatch(keyset & torch._C._after_autograd_keyset, *args)
    _library.impl(name, kernel, "Autograd", with_keyset=True)


_register_autograd("forward", _setup_context, _backward)
_register_autograd("forward_lora", _setup_context_lora, _backward_lora)
# The backward ops' derivative refuses: a second derivative raises (eager
# create_graph=True is refused before, _inputs_for_backward), where
# autograd's default for an op without one warns and gives none.
_register_autograd("backward", _no_context, _no_derivative)
_register_autograd("backward_lora", _no_context, _no_derivative)
