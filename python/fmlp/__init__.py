"""fmlp from PyTorch: fused gated-MLP kernels as drop-in modules for
Hugging Face models (see python/README section in the repository README).

    import fmlp
    fmlp.patch_model(model)      # every supported MLP, in place

fmlp.spec and fmlp.runtime import without torch; the rest needs it.
"""
from .spec import BlockSpec, BundleMissing, UnsupportedConfig, find_or_compile  # noqa: F401

try:
    import torch  # noqa: F401
except ImportError:  # the torch-free parts still work
    pass
else:
    from . import ops  # noqa: F401  (registers torch.ops.fmlp.*)
    from .modules import FusedGatedMLP, FusedPhi3MLP, SUPPORTED  # noqa: F401
    from .patch import patch_classes, patch_model, restore_classes  # noqa: F401
