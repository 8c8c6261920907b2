"""How fp32 blocks multiply (python/fmlp/precision.py): PyTorch's float32
matmul settings mapped to formats, the call's precision over the module's
over PyTorch's, and bad values refused with what was wrong. Torch-free but
for the last test (the settings read from torch), skipped without it."""
import unittest
from unittest import mock

from fmlp import precision


class PrecisionTest(unittest.TestCase):
    def test_torch_settings_map_to_formats(self):
        # highest keeps fp32's bound (tf32x3 only where its bound is within
        # it: docs/precision.md); high and medium allow TF32 in PyTorch.
        self.assertEqual(precision.of_torch_setting("highest"), "highest")
        self.assertEqual(precision.of_torch_setting("high"), "tf32")
        self.assertEqual(precision.of_torch_setting("medium"), "tf32")
        # torch >= 2.9's fp32_precision, where set, decides; its 'ieee' asks
        # for fp32's accuracy, as 'highest' does.
        self.assertEqual(precision.of_torch_setting("highest", "tf32"), "tf32")
        self.assertEqual(precision.of_torch_setting("medium", "ieee"), "highest")
        self.assertEqual(precision.of_torch_setting("high", "none"), "tf32")

    def test_each_precision_judged_by_a_bound_no_looser_than_asked(self):
        # highest is judged by strict fp32's bound, every other format by
        # its own.
        self.assertEqual(set(precision.CONTRACTION), set(precision.PRECISIONS))
        self.assertEqual(precision.CONTRACTION["highest"], "ieee")
        for name in ("ieee", "tf32x3", "tf32"):
            self.assertEqual(precision.CONTRACTION[name], name)

    def test_call_over_module_over_torch(self):
        with mock.patch.object(precision, "from_torch", return_value="ieee"):
            self.assertEqual(precision.resolve(), "ieee")
            self.assertEqual(precision.resolve(module="tf32"), "tf32")
            self.assertEqual(precision.resolve("tf32x3", "tf32"), "tf32x3")
        with mock.patch.object(precision, "from_torch", return_value="tf32"):
            self.assertEqual(precision.resolve(module="ieee"), "ieee")
            self.assertEqual(precision.resolve(), "tf32")
        # The modules pass their own reader of PyTorch's setting (one that
        # torch.compile takes as a constant).
        self.assertEqual(precision.resolve(setting=lambda: "highest"), "highest")
        self.assertEqual(precision.resolve("tf32", setting=lambda: "highest"), "tf32")

    def test_bad_values_are_refused_naming_them(self):
        with self.assertRaisesRegex(ValueError, r"precision must be one of .*'3xtf32'"):
            precision.resolve("3xtf32")
        with self.assertRaisesRegex(ValueError, "'high'"):
            precision.resolve(module="high")

    def test_reads_torch(self):
        try:
            import torch
        except ImportError:
            self.skipTest("needs torch")
        saved = torch.get_float32_matmul_precision()
        self.addCleanup(torch.set_float32_matmul_precision, saved)
        torch.set_float32_matmul_precision("highest")
        newer = getattr(torch.backends.cuda.matmul, "fp32_precision", None)
        self.assertEqual(precision.from_torch(), precision.of_torch_setting("highest", newer))


if __name__ == "__main__":
    unittest.main()
