"""ctypes binding of fmlp's runtime C API (include/fmlp/Runtime.h). No
torch needed: tensors are described by address, dtype, sizes and strides.

The library is the one CMake builds (libfmlp_runtime.so): FMLP_RUNTIME_LIB
names it, else it is looked for in the repository's build directories.
"""
from __future__ import annotations

import ctypes
import os
import struct
import threading
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

MAX_RANK = 8
INT64_MAX = 2**63 - 1  # fmlp_kernel_tokens' max for a kernel without bound
DTYPE_CODES = {"f32": 0, "bf16": 1, "f16": 2}
ROLES = {0: "input", 1: "output", 2: "saved", 3: "workspace"}


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int32), ("sizes", ctypes.c_int64 * MAX_RANK),
                ("strides", ctypes.c_int64 * MAX_RANK)]


class ArgumentInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("role", ctypes.c_int),
                ("dtype", ctypes.c_int), ("rank", ctypes.c_int32),
                ("shape", ctypes.c_int64 * 2), ("alignment", ctypes.c_int32),
                ("consumed", ctypes.c_int32)]


class RuntimeError_(RuntimeError):
    """A failing runtime call: the status name and the runtime's message."""


class AlignmentError(RuntimeError_):
    """fmlp_launch refused a pointer off the boundary its argument asks
    (FMLP_ERROR_ALIGNMENT), before launching anything."""


# fmlp_tensor's fields as struct packs them (native layout, the same as
# Tensor's): data, dtype, rank, then the first `rank` sizes at byte 16 and
# the first `rank` strides at byte 80 (pad bytes between them write zeros).
_PACKED = [struct.Struct(f"Pii{r}q{8 * (MAX_RANK - r)}x{r}q") for r in range(MAX_RANK + 1)]
_NULL = struct.Struct("P")
assert ctypes.sizeof(Tensor) == 16 + 16 * MAX_RANK == _PACKED[MAX_RANK].size


class TensorArray:
    """`count` fmlp_tensor descriptions in one ctypes array, written in
    place (one struct pack per tensor: no ctypes object per call). Not
    shared between threads: a launch reads it with the GIL released."""

    def __init__(self, count: int):
        self.array = (Tensor * count)()
        self.count = count
        self._bytes = memoryview(self.array).cast("B")

    def set(self, i: int, data: int, dtype: int, sizes: Sequence[int], strides: Sequence[int]) -> None:
        """Tensor i: address, dtype code (DTYPE_CODES), sizes, strides."""
        rank = len(sizes)
        if rank > MAX_RANK:
            raise ValueError(f"rank {rank} exceeds fmlp's {MAX_RANK}")
        _PACKED[rank].pack_into(self._bytes, i * 144, data, dtype, rank, *sizes, *strides)

    def set_null(self, i: int) -> None:
        """Tensor i not passed: data NULL (an output not wanted, a workspace
        no kernel uses at this T)."""
        _NULL.pack_into(self._bytes, i * 144, 0)


def describe(data: int, dtype: str, sizes: Sequence[int], strides: Sequence[int]) -> Tensor:
    if len(sizes) > MAX_RANK:
        raise ValueError(f"rank {len(sizes)} exceeds fmlp's {MAX_RANK}")
    t = Tensor()
    t.data, t.dtype, t.rank = data, DTYPE_CODES[dtype], len(sizes)
    for i, (size, stride) in enumerate(zip(sizes, strides)):
        t.sizes[i], t.strides[i] = size, stride
    return t


def _candidates() -> List[Path]:
    if "FMLP_RUNTIME_LIB" in os.environ:
        return [Path(os.environ["FMLP_RUNTIME_LIB"])]
    root = Path(__file__).resolve().parents[2]
    build = Path(os.environ.get("FMLP_BUILD_DIR", root / "build"))
    return [build / "lib" / "libfmlp_runtime.so",
            root / "build-gpu" / "lib" / "libfmlp_runtime.so"]


_library = None
_lock = threading.Lock()


def library() -> ctypes.CDLL:
    """The runtime, loaded once."""
    global _library
    with _lock:
        if _library is None:
            tried = _candidates()
            found = next((p for p in tried if p.is_file()), None)
            if found is None:
                raise FileNotFoundError(
                    "fmlp's runtime library was not found (tried "
                    + ", ".join(map(str, tried))
                    + "); build it (scripts/build.sh) or set FMLP_RUNTIME_LIB")
            _library = _declare(ctypes.CDLL(str(found)))
    return _library


def _declare(lib: ctypes.CDLL) -> ctypes.CDLL:
    vp, i, cp = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p
    lib.fmlp_last_error.restype = cp
    lib.fmlp_status_name.restype = cp
    lib.fmlp_status_name.argtypes = [i]
    lib.fmlp_bundle_open.argtypes = [cp, ctypes.POINTER(vp)]
    lib.fmlp_bundle_load.argtypes = [vp]
    lib.fmlp_bundle_close.argtypes = [vp]
    lib.fmlp_bundle_chip.argtypes = [vp]
    lib.fmlp_bundle_chip.restype = cp
    lib.fmlp_bundle_compiler.argtypes = [vp]
    lib.fmlp_bundle_compiler.restype = cp
    lib.fmlp_chip_for_capability.argtypes = [i, i]
    lib.fmlp_chip_for_capability.restype = cp
    lib.fmlp_bundle_check_saved.argtypes = [vp, i]
    lib.fmlp_bundle_serial_launches.argtypes = [vp, i]
    lib.fmlp_entry_find.argtypes = [vp, cp, ctypes.POINTER(i)]
    lib.fmlp_argument_count.argtypes = [vp, i]
    lib.fmlp_argument_info_get.argtypes = [vp, i, i, ctypes.POINTER(ArgumentInfo)]
    lib.fmlp_argument_min_tokens.argtypes = [vp, i, i, ctypes.POINTER(ctypes.c_int64)]
    lib.fmlp_workspace_bytes.argtypes = [vp, i, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64)]
    lib.fmlp_launch.argtypes = [vp, i, vp, i, vp]
    lib.fmlp_outputs_needed.argtypes = [vp, i, ctypes.POINTER(ctypes.c_int32),
                                        ctypes.POINTER(ctypes.c_int32)]
    lib.fmlp_kernel_count.argtypes = [vp, i]
    lib.fmlp_kernel_name.argtypes = [vp, i, i]
    lib.fmlp_kernel_name.restype = cp
    lib.fmlp_kernel_tokens.argtypes = [vp, i, i, ctypes.POINTER(ctypes.c_int64),
                                       ctypes.POINTER(ctypes.c_int64)]
    lib.fmlp_launch_kernel.argtypes = [vp, i, i, vp, i, vp]
    lib.fmlp_entry_chunk_tokens.argtypes = [vp, i]
    lib.fmlp_entry_chunk_tokens.restype = ctypes.c_int64
    lib.fmlp_kernel_per_chunk.argtypes = [vp, i, i]
    return lib


def chip_for_capability(major: int, minor: int) -> str:
    """The --chip to compile for a device of compute capability
    major.minor, from the compiler's chip table (fmlp/Target.h, through the
    runtime: fmlp_chip_for_capability); an error for a GPU fmlp does not
    know."""
    chip = library().fmlp_chip_for_capability(major, minor)
    if chip is None:
        raise RuntimeError_(f"fmlp knows no chip of compute capability {major}.{minor}")
    return chip.decode()


class Entry:
    """One entry point (forward, backward, forward_nograd) of a bundle."""

    def __init__(self, bundle: "Bundle", kind: str):
        self.bundle, self.kind = bundle, kind
        index = ctypes.c_int()
        bundle._check(bundle.lib.fmlp_entry_find(bundle.handle, kind.encode(), ctypes.byref(index)))
        self.index = index.value
        self.arguments: List[Dict] = []
        for a in range(bundle.lib.fmlp_argument_count(bundle.handle, self.index)):
            info, min_tokens = ArgumentInfo(), ctypes.c_int64()
            bundle._check(bundle.lib.fmlp_argument_info_get(
                bundle.handle, self.index, a, ctypes.byref(info)))
            bundle._check(bundle.lib.fmlp_argument_min_tokens(
                bundle.handle, self.index, a, ctypes.byref(min_tokens)))
            # min_tokens: the fewest T a kernel uses it at (INT64_MAX: none);
            # a workspace may be passed null below it.
            self.arguments.append({
                "name": info.name.decode(), "role": ROLES[info.role],
                "shape": tuple(info.shape[:info.rank]), "alignment": info.alignment,
                "min_tokens": min_tokens.value})
        self.names = [a["name"] for a in self.arguments]

    def workspace_bytes(self, tokens: int) -> int:
        out = ctypes.c_int64()
        self.bundle._check(self.bundle.lib.fmlp_workspace_bytes(
            self.bundle.handle, self.index, tokens, ctypes.byref(out)))
        return out.value

    def launch(self, tensors: Sequence[Tensor], stream: int) -> None:
        array = (Tensor * len(tensors))(*tensors)
        self.bundle._check(self.bundle.lib.fmlp_launch(
            self.bundle.handle, self.index, array, len(tensors), ctypes.c_void_p(stream)))

    def launcher(self):
        """launch(array: TensorArray, stream: int): fmlp_launch with the
        handle and index bound, failing with the runtime's message."""
        function, check = self.bundle.lib.fmlp_launch, self.bundle._check
        handle, index = self.bundle.handle.value, self.index

        def launch(tensors: TensorArray, stream: int) -> None:
            status = function(handle, index, tensors.array, tensors.count, stream)
            if status:
                check(status)
        return launch

    def outputs_needed(self, wanted: Sequence[bool]) -> List[bool]:
        """Per argument: whether it must be passed when only the outputs
        `wanted` (one flag per argument, read for outputs) are wanted
        (fmlp_outputs_needed: the wanted outputs and those a kernel that
        runs anyway writes or reads)."""
        count = len(self.arguments)
        if len(wanted) != count:
            raise ValueError(f"{self.kind}: {count} flags needed, got {len(wanted)}")
        flags = (ctypes.c_int32 * count)(*(1 if w else 0 for w in wanted))
        needed = (ctypes.c_int32 * count)()
        self.bundle._check(self.bundle.lib.fmlp_outputs_needed(
            self.bundle.handle, self.index, flags, needed))
        return [bool(n) for n in needed]

    def kernels(self) -> List[str]:
        lib, h = self.bundle.lib, self.bundle.handle
        return [lib.fmlp_kernel_name(h, self.index, k).decode()
                for k in range(lib.fmlp_kernel_count(h, self.index))]

    def kernel_tokens(self, kernel: int) -> Tuple[int, Optional[int]]:
        """The range of T kernel `kernel` serves, (min, max); max is None
        when unbounded (fmlp_kernel_tokens). fmlp_launch runs the kernels
        whose range holds T; launch_kernel refuses the others."""
        low, high = ctypes.c_int64(), ctypes.c_int64()
        self.bundle._check(self.bundle.lib.fmlp_kernel_tokens(
            self.bundle.handle, self.index, kernel, ctypes.byref(low), ctypes.byref(high)))
        return low.value, (None if high.value == INT64_MAX else high.value)

    @property
    def chunk_tokens(self) -> int:
        """C of an entry point compiled with chunk-tokens=C (its per-chunk
        kernels run once per chunk of C tokens); 0 when not chunked."""
        return self.bundle.lib.fmlp_entry_chunk_tokens(self.bundle.handle, self.index)

    def per_chunk(self, kernel: int) -> bool:
        """Whether kernel `kernel` runs once per chunk, at the chunk's T."""
        return bool(self.bundle.lib.fmlp_kernel_per_chunk(self.bundle.handle, self.index, kernel))

    def kernels_at(self, tokens: int) -> List[Tuple[int, str]]:
        """(index, name) of the kernels a launch at T = `tokens` runs, in
        order: those whose range holds T, or for a per-chunk kernel the T
        of some chunk (C, and T mod C for the last; none at T = 0)."""
        chunk = self.chunk_tokens
        served = []
        for k, name in enumerate(self.kernels()):
            low, high = self.kernel_tokens(k)
            sizes = {tokens}
            if chunk and self.per_chunk(k) and tokens:
                sizes = {min(chunk, tokens), tokens % chunk or min(chunk, tokens)}
            if any(low <= t and (high is None or t <= high) for t in sizes):
                served.append((k, name))
        return served

    def launch_kernel(self, kernel: int, tensors: Sequence[Tensor], stream: int) -> None:
        array = (Tensor * len(tensors))(*tensors)
        self.bundle._check(self.bundle.lib.fmlp_launch_kernel(
            self.bundle.handle, self.index, kernel, array, len(tensors), ctypes.c_void_p(stream)))


class Bundle:
    """An opened bundle (manifest parsed; no driver needed). load() puts
    its kernels into the current CUDA context."""

    def __init__(self, directory, lib: ctypes.CDLL = None):
        self.lib = lib or library()
        self.handle = ctypes.c_void_p()
        self.directory = str(directory)
        self._check(self.lib.fmlp_bundle_open(self.directory.encode(), ctypes.byref(self.handle)))
        self.entries: Dict[str, Entry] = {}

    def _check(self, status: int) -> None:
        if status != 0:
            name = self.lib.fmlp_status_name(status).decode()
            error = AlignmentError if name == "FMLP_ERROR_ALIGNMENT" else RuntimeError_
            raise error(f"{name}: {self.lib.fmlp_last_error().decode()}")

    @property
    def chip(self) -> str:
        return self.lib.fmlp_bundle_chip(self.handle).decode()

    @property
    def compiler(self) -> str:
        """The fmlp-compile that wrote the bundle ("fmlp 0.2.0"; "" if older)."""
        return self.lib.fmlp_bundle_compiler(self.handle).decode()

    def load(self) -> None:
        self._check(self.lib.fmlp_bundle_load(self.handle))

    def check_saved(self, enabled: bool) -> None:
        """Whether launches refuse saved activations no forward wrote or a
        backward consumed (fmlp_bundle_check_saved; on by default)."""
        self.lib.fmlp_bundle_check_saved(self.handle, int(enabled))

    def serial_launches(self, enabled: bool) -> None:
        """Every kernel on the caller's stream, each after the one before
        has ended (True), or with the overlap the manifest allows (False,
        the default: a backward's dX GEMM on a side stream, programmatic
        launches): fmlp_bundle_serial_launches."""
        self.lib.fmlp_bundle_serial_launches(self.handle, int(enabled))

    def entry(self, kind: str) -> Entry:
        if kind not in self.entries:
            self.entries[kind] = Entry(self, kind)
        return self.entries[kind]

    def __del__(self):
        if getattr(self, "handle", None) and self.handle.value:
            self.lib.fmlp_bundle_close(self.handle)
