"""Memory policies: what a training forward keeps for its backward, and
the token chunk that bounds the entry points' workspaces. No torch needed.

    save          agu  A, G and U (3 T H elements): the backward recomputes
                       nothing.
                  gu   G and U (2 T H): the backward's first kernel
                       recomputes A from them (one more [T, H] write).
                  u    U (T H): the backward runs the gate projection
                       again (half of the gate/up GEMM: 1.11x the step's
                       FLOPs; measured 1.11-1.13x agu's time, and in
                       chunks of 4096 0.52x its extra peak at 1.17x).
                  x    nothing: the backward runs the gate/up GEMM again
                       (about 1.22x the step's FLOPs).
    chunk_tokens  0    off; N > 0: every entry point with a workspace runs
                       its kernels N tokens at a time, so the workspace is
                       [N, k H] instead of [T, k H] (the saved activations
                       still span T: they live from forward to backward).

The trade-off is measured in bench/results (bench_policies.py); README's
"Memory policies" says which to pick.

A policy is set at three levels, each overriding the ones after it field by
field (a level that leaves a field None passes it on):

    module(x, memory_policy=MemoryPolicy(save="x"))   one call
    module.memory_policy = MemoryPolicy(save="gu")     one module
    with fmlp.memory_policy(chunk_tokens=4096): ...    this thread, scoped
                                                       and nestable
    DEFAULT                                            everything else

Under torch.compile the policy is read when the module is traced: a scope
entered later does not change a compiled graph (set the module attribute,
which dynamo guards on, or compile inside the scope).
"""
from __future__ import annotations

import contextlib
import dataclasses
import threading
from typing import Iterator, List, Optional

SAVES = ("agu", "gu", "u", "x")


@dataclasses.dataclass(frozen=True)
class MemoryPolicy:
    """A policy, or part of one: a field left None is decided by the next
    level (module attribute, then scope, then DEFAULT)."""

    save: Optional[str] = None
    chunk_tokens: Optional[int] = None

    def __post_init__(self):
        if self.save is not None and self.save not in SAVES:
            raise ValueError(f"fmlp: save must be one of {SAVES}, got {self.save!r}")
        if self.chunk_tokens is not None and (
                isinstance(self.chunk_tokens, bool) or not isinstance(self.chunk_tokens, int)
                or self.chunk_tokens < 0):
            raise ValueError("fmlp: chunk_tokens must be an int >= 0 (0: no chunking), got "
                             f"{self.chunk_tokens!r}")

    def over(self, base: "MemoryPolicy") -> "MemoryPolicy":
        """This policy's fields where set, `base`'s elsewhere."""
        # Either whole (no new object per call: resolve runs at every forward).
        if self.save is not None and self.chunk_tokens is not None:
            return self
        if self.save is None and self.chunk_tokens is None:
            return base
        return MemoryPolicy(self.save if self.save is not None else base.save,
                            self.chunk_tokens if self.chunk_tokens is not None
                            else base.chunk_tokens)

    def __str__(self) -> str:
        return f"save={self.save}, chunk_tokens={self.chunk_tokens}"


# The default keeps G and U only: a third less kept from forward to
# backward than agu, at 1.01x agu's training step on the H200 at (1024,
# 2816) and (4096, 11008), T = 8192 and 65536 (bench/NOTES.md item 47).
DEFAULT = MemoryPolicy(save="gu", chunk_tokens=0)

_local = threading.local()


def _scopes() -> List[MemoryPolicy]:
    if not hasattr(_local, "scopes"):
        _local.scopes = []
    return _local.scopes


@contextlib.contextmanager
def memory_policy(save: Optional[str] = None,
                  chunk_tokens: Optional[int] = None) -> Iterator[MemoryPolicy]:
    """Within the block, fmlp's modules called on this thread use this
    policy where neither the call nor the module sets their own; a nested
    scope overrides the fields it sets. Yields the scope's policy (fields
    it and the outer scopes leave None are DEFAULT's)."""
    scopes = _scopes()
    inner = MemoryPolicy(save, chunk_tokens)
    scopes.append(inner.over(scopes[-1]) if scopes else inner)
    try:
        yield scopes[-1].over(DEFAULT)
    finally:
        scopes.pop()


def check(value: Optional[MemoryPolicy], what: str = "memory_policy") -> None:
    """A TypeError unless `value` is a MemoryPolicy or None (a module's
    attribute or a call's argument, checked before any path is taken)."""
    if value is not None and not isinstance(value, MemoryPolicy):
        raise TypeError(f"fmlp: {what} must be an fmlp.MemoryPolicy or None, got "
                        f"{type(value).__name__} {value!r}")


def resolve(call: Optional[MemoryPolicy] = None,
            module: Optional[MemoryPolicy] = None) -> MemoryPolicy:
    """The policy a call runs with: the call's fields, then the module's,
    then the innermost scope's of this thread, then DEFAULT's."""
    check(call)
    check(module, "the module's memory_policy")
    policy = DEFAULT
    scopes = _scopes()
    for level in (scopes[-1] if scopes else None, module, call):
        if level is not None:
            policy = level.over(policy)
    return policy
