"""The package's surface without torch (run where torch is absent, as in
CI): its version equals the CMake project's (FMLP_PROJECT_VERSION, passed
by ctest), and what needs torch fails with an ImportError naming torch
rather than a bare AttributeError."""
import os
import subprocess
import sys
import unittest

import fmlp


class PackageTest(unittest.TestCase):
    def test_version_is_the_cmake_project_version(self):
        self.assertEqual(fmlp.__version__, os.environ["FMLP_PROJECT_VERSION"])

    def test_torch_names_say_torch_is_needed(self):
        try:
            import torch  # noqa: F401
            self.skipTest("torch is installed here")
        except ImportError:
            pass
        for name in ("patch_model", "patch_classes", "FusedGatedMLP", "ops"):
            with self.subTest(name):
                with self.assertRaisesRegex(ImportError, rf"fmlp\.{name} needs PyTorch.*torch"):
                    getattr(fmlp, name)
        with self.assertRaisesRegex(ImportError, "needs PyTorch"):
            exec("from fmlp import patch_model", {})
        # The torch-free parts are there.
        self.assertTrue(callable(fmlp.find_or_compile))

    def test_other_names_stay_attribute_errors(self):
        # hasattr() and typos behave as for any module.
        self.assertFalse(hasattr(fmlp, "no_such_name"))
        with self.assertRaisesRegex(AttributeError, "no attribute 'no_such_name'"):
            fmlp.no_such_name  # noqa: B018

    def test_torch_that_fails_to_import_is_named(self):
        # A torch whose import raises ImportError (e.g. a broken install):
        # the message carries torch's own error.
        script = ("import sys, types\n"
                  "class Broken:\n"
                  "    def find_spec(self, name, path=None, target=None):\n"
                  "        if name == 'torch': raise ImportError('libtorch_cuda.so: cannot open')\n"
                  "sys.meta_path.insert(0, Broken())\n"
                  "import fmlp\n"
                  "try:\n"
                  "    fmlp.patch_model\n"
                  "except ImportError as e:\n"
                  "    print(e)\n")
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             env=dict(os.environ))
        self.assertIn("fmlp.patch_model needs PyTorch", out.stdout, out.stderr)
        self.assertIn("libtorch_cuda.so: cannot open", out.stdout)


if __name__ == "__main__":
    unittest.main()
