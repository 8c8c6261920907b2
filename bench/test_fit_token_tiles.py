"""bench/fit_token_tiles.py on session 20's measured kernels (no GPU, no
torch): its copy of the WGMMA time model's constants is codegen/
TileSelection.cpp's, the model picks the measured fastest configuration
where the rule says it does, and a model with a wrong constant does not.

  python3 -m unittest -v test_fit_token_tiles   (from bench/)
"""
import sys
import unittest
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
import fit_token_tiles as fit  # noqa: E402

RESULTS = BENCH / "results" / "2026-12-02-h200-session20" / "call1"


class TimeModel(unittest.TestCase):
    def setUp(self):
        self.times = fit.read(RESULTS)

    def test_constants_are_the_compilers(self):
        source = BENCH.parent / "codegen" / "TileSelection.cpp"
        self.assertEqual(fit.cpp_constants(source), fit.CONSTANTS)
        self.assertEqual(fit.cpp_constant(source, "kHbmBytesPerMicro"), fit.HBM_BYTES_PER_US)

    def test_measured_cases(self):
        self.assertEqual(len(self.times), 40)
        self.assertEqual(sum(map(len, self.times.values())), 216)

    def test_model_picks_the_fastest(self):
        picked = fit.choices(self.times, fit.CONSTANTS)
        hits = sum(chosen == best for chosen, best in picked.values())
        self.assertGreaterEqual(hits, 39)
        self.assertLess(fit.loss(self.times, fit.CONSTANTS), 0.01)

    def test_a_wrong_constant_picks_worse(self):
        # Negative controls (the fitted model's loss is 0.0006): loads free
        # (narrow tiles look as cheap per product as wide ones), split-K
        # free, or its partials 20x dearer: each takes slower configurations.
        for key, value in (("load", 0.0), ("split", -20.0), ("partial", 0.2)):
            wrong = dict(fit.CONSTANTS, **{key: value})
            self.assertGreater(fit.loss(self.times, wrong), 0.02, key)


if __name__ == "__main__":
    unittest.main()
