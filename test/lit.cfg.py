# lit configuration of fmlp's IR tests (Dialect/, Passes/, Plugin/, Tools/).
# GoogleTest binaries form their own suite under Unit/.
import os

import lit.formats

config.name = "fmlp"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "Unit", "GPU", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fmlp_obj_root, "test")

# fmlp's tools first, then LLVM's (FileCheck, not, count).
config.environment["PATH"] = os.pathsep.join(
    [config.fmlp_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")]
)
config.substitutions.append(("%fmlp_src_root", config.fmlp_src_root))
config.substitutions.append(("%mlir_opt", config.mlir_opt))
config.substitutions.append(
    ("%fmlp_plugin", os.path.join(config.fmlp_lib_dir, "libfmlp-plugin" + config.shlibext))
)

# ptxas (the CUDA toolkit's assembler) checks the generated kernels' resources.
import shutil
if os.path.exists("/usr/local/cuda/bin/ptxas") or shutil.which("ptxas"):
    config.available_features.add("ptxas")
