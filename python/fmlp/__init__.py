"""fmlp from PyTorch: fused gated-MLP kernels as drop-in modules for
Hugging Face models (see python/README section in the repository README).

    import fmlp
    fmlp.patch_model(model)      # every supported MLP, in place

fmlp.spec, fmlp.runtime and fmlp.guard import without torch; the rest
needs it, and naming it without torch raises an ImportError that says so.
"""
from ._version import __version__  # noqa: F401
from .policy import MemoryPolicy, memory_policy  # noqa: F401
from .precision import PRECISIONS  # noqa: F401
from .spec import (BlockSpec, BundleMissing, CompileFailed, Unavailable,  # noqa: F401
                   UnsupportedConfig, find_or_compile, memory_report)

# What fmlp offers only with torch (module attribute -> what it is).
_TORCH_NAMES = ("ops", "modules", "patch", "parallel", "judge", "FusedGatedMLP", "FusedGemma2MLP",
                "FusedPhi3MLP", "SUPPORTED", "UnfusedWarning", "patch_classes", "patch_model",
                "restore_classes")

try:
    import torch  # noqa: F401
except ImportError as error:  # the torch-free parts still work
    _torch_error = error
else:
    _torch_error = None
    from . import ops  # noqa: F401  (registers torch.ops.fmlp.*)
    from .modules import (FusedGatedMLP, FusedGemma2MLP, FusedPhi3MLP, SUPPORTED,  # noqa: F401
                          UnfusedWarning)
    from .patch import patch_classes, patch_model, restore_classes  # noqa: F401


def __getattr__(name):
    if _torch_error is not None and name in _TORCH_NAMES:
        raise ImportError(f"fmlp.{name} needs PyTorch, and `import torch` failed "
                          f"({_torch_error}): install it (pip install torch, or "
                          "pip install 'fmlp[torch]')")
    raise AttributeError(f"module 'fmlp' has no attribute {name!r}")
