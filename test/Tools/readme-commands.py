#!/usr/bin/env python3
"""Runs the README's commands as written.

Every command line in README.md's ```sh blocks (continuation lines joined,
trailing `# comments` dropped) is listed below, either in RUN (run here, in
order, from a directory where `build`, `examples`, `test` and `scripts` are
the build tree's and the source tree's; each must exit 0) or in SKIP with the
reason it cannot run here. The test fails when the README and these lists
differ (a README command in neither list, or a RUN command not in the
README), so a command added to the README is run or skipped on purpose.

  readme-commands.py SOURCE_ROOT BUILD_DIR [MLIR_OPT]
"""

import os
import re
import shlex
import subprocess
import sys
import tempfile

RUN = [
    "build/bin/fmlp-compile examples/llama-7b-mlp.linalg.bf16.mlir -o build/llama-7b-mlp.bundle --chip=sm_90a --save=agu",
    "build/bin/fmlp-bundle-info build/llama-7b-mlp.bundle --tokens=8192",
    "build/bin/fmlp-run examples/small-mlp.linalg.f32.mlir --tokens=8 --save=gu",
    "build/bin/fmlp-run test/Tools/Inputs/batched-block.mlir --tokens=16 --save=x --chunk-tokens=8 --print-plan",
    "build/bin/fmlp-compile examples/llama-7b-mlp.tosa.f32.mlir --save=x --chunk-tokens=512",
    "build/bin/fmlp-opt --fmlp-recognize examples/llama-7b-mlp.tosa.bf16.mlir",
    "build/bin/fmlp-opt --fmlp-recognize=explain-misses test/Tools/Inputs/no-block.mlir",
    "mlir-opt-22 --load-dialect-plugin=build/lib/libfmlp-plugin.so --load-pass-plugin=build/lib/libfmlp-plugin.so --pass-pipeline='builtin.module(fmlp-recognize)' examples/llama-7b-mlp.linalg.f32.mlir",
]
SKIP = {
    "scripts/run-example.sh": "sets up, builds and runs on a GPU",
    "scripts/test.sh": "runs every test, this one included",
    "pip install ./python": "installs the Python package (needs torch)",
    "export FMLP_RUNTIME_LIB=$PWD/build/lib/libfmlp_runtime.so": "environment for the Python package",
    "export PATH=$PWD/build/bin:$PATH": "environment for the Python package",
    "cmake --install build --prefix /opt/fmlp":
        "installs into /opt (ctest's package/install-and-consume installs "
        "into a temporary prefix)",
}


def readme_commands(readme):
    commands, in_sh, pending = [], False, ""
    for line in open(readme):
        stripped = line.rstrip("\n")
        if stripped.startswith("```"):
            in_sh = stripped == "```sh"
            continue
        if not in_sh:
            continue
        text = pending + stripped.strip()
        if text.endswith("\\"):
            pending = text[:-1].rstrip() + " "
            continue
        pending = ""
        text = re.sub(r"\s+#.*$", "", text).strip()
        if text:
            commands.append(re.sub(r"\s+", " ", text))
    return commands


def main():
    source_root, build_dir = sys.argv[1], sys.argv[2]
    mlir_opt = sys.argv[3] if len(sys.argv) > 3 else "mlir-opt-22"
    listed = readme_commands(os.path.join(source_root, "README.md"))
    known = RUN + list(SKIP)
    missing = [c for c in listed if c not in known]
    # A SKIP entry may wait for its README line (another branch's).
    stale = [c for c in RUN if c not in listed]
    if missing or stale:
        for c in missing:
            print("README command not in RUN or SKIP: " + c)
        for c in stale:
            print("listed here, not in README: " + c)
        return 1

    failures = 0
    with tempfile.TemporaryDirectory(prefix="fmlp-readme-") as work:
        os.symlink(os.path.abspath(build_dir), os.path.join(work, "build"))
        for name in ["examples", "test", "scripts", "python"]:
            os.symlink(os.path.join(source_root, name),
                       os.path.join(work, name))
        for command in RUN:
            words = shlex.split(command)
            if words[0] == "mlir-opt-22":
                words[0] = mlir_opt
            run = subprocess.run(words, cwd=work, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT)
            output = run.stdout.decode(errors="replace")
            first = output.splitlines()[0] if output.strip() else ""
            print("%s  exit %d: %s" % (command, run.returncode, first))
            if run.returncode != 0:
                print(output[-3000:])
                failures += 1
    print("%d README commands run, %d failed; %d skipped (need a GPU, "
          "torch, or run the tests)" % (len(RUN), failures, len(SKIP)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
