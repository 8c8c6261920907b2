"""bench/gpu_clock.py without a GPU: nvidia-smi's lines parsed (and the
ones it must skip), and the summary over the timed intervals only.

  python3 -m unittest -v test_gpu_clock   (from bench/)
"""
import datetime
import os
import random
import sys
import tempfile
import time
import unittest
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gpu_clock  # noqa: E402


def line(when, mhz, watts, reasons):
    stamp = datetime.datetime.fromtimestamp(when).strftime("%Y/%m/%d %H:%M:%S.%f")[:-3]
    return f"{stamp}, {mhz}, {watts:.2f}, 0x{reasons:016x}"


class ParseTest(unittest.TestCase):
    def test_a_sample_line(self):
        when = 1_796_000_000.25
        parsed = gpu_clock._parse(line(when, 1695, 615.5, 0x4))
        self.assertAlmostEqual(parsed[0], when, places=2)
        self.assertEqual(parsed[1:], (1695.0, 615.5, 0x4))

    def test_lines_to_skip(self):
        for text in ("timestamp, clocks.current.sm [MHz], power.draw [W], reasons",
                     "2026/12/07 08:56:12.500, [N/A], [N/A], [N/A]", "", "garbage"):
            self.assertIsNone(gpu_clock._parse(text), text)


class SummaryTest(unittest.TestCase):
    def test_only_the_intervals_count(self):
        rng = random.Random(7)
        sampler = gpu_clock.ClockSampler()
        t0 = 1_796_000_000.0
        # Inside [t0, t0 + 1]: 1500-1700 MHz, the power cap flagged; outside:
        # 1980 MHz, nothing flagged.
        inside = [(t0 + 0.1 * i, rng.uniform(1500, 1700), rng.uniform(600, 700), 0x4)
                  for i in range(1, 10)]
        outside = [(t0 + 2 + 0.1 * i, 1980.0, 120.0, 0) for i in range(10)]
        sampler.samples = [gpu_clock._parse(line(*s)) for s in inside + outside]
        seen = sampler.summary([(t0, t0 + 1)])
        self.assertEqual(seen["samples"], len(inside))
        self.assertAlmostEqual(seen["mhz"], sum(s[1] for s in inside) / len(inside), places=0)
        self.assertEqual(seen["power_flag"], 1.0)
        # The control: the interval of the idle samples gives their clock.
        idle = sampler.summary([(t0 + 2, t0 + 3)])
        self.assertEqual((idle["mhz"], idle["power_flag"]), (1980.0, 0.0))
        self.assertIsNone(sampler.summary([(t0 + 10, t0 + 11)]))


class SamplerTest(unittest.TestCase):
    """The child process and its reader, with a stand-in nvidia-smi on PATH
    that prints a power-flagged sample every 20 ms (and a header line, skipped)."""

    def test_samples_from_the_child(self):
        with tempfile.TemporaryDirectory() as bin_dir:
            fake = Path(bin_dir, "nvidia-smi")
            fake.write_text("#!/bin/sh\necho 'timestamp, clocks.sm, power.draw, reasons'\n"
                            "while true; do echo \"$(date '+%Y/%m/%d %H:%M:%S.%N' | cut -c1-23)"
                            ", 1605, 690.5, 0x0000000000000004\"; sleep 0.02; done\n")
            fake.chmod(0o755)
            with mock.patch.dict(os.environ, {"PATH": bin_dir + os.pathsep + os.environ["PATH"]}):
                with gpu_clock.ClockSampler(period_ms=20) as sampler:
                    begun = time.time()
                    time.sleep(0.5)
                    ended = time.time()
                    seen = sampler.summary([(begun, ended)])
        self.assertIsNotNone(seen)
        self.assertGreater(seen["samples"], 3)
        self.assertEqual((seen["mhz"], seen["watts"], seen["power_flag"]), (1605.0, 690.5, 1.0))
        self.assertIsNone(sampler.failure)

    def test_a_failing_nvidia_smi_is_told(self):
        with tempfile.TemporaryDirectory() as bin_dir:
            fake = Path(bin_dir, "nvidia-smi")
            fake.write_text("#!/bin/sh\necho 'Field \"clocks_event_reasons.active\" is not a "
                            "valid field to query.' >&2\nexit 2\n")
            fake.chmod(0o755)
            with mock.patch.dict(os.environ, {"PATH": bin_dir + os.pathsep + os.environ["PATH"]}):
                with gpu_clock.ClockSampler() as sampler:
                    time.sleep(0.2)
        self.assertIsNone(sampler.summary([(0, time.time())]))
        self.assertIn("exit 2", sampler.failure)
        self.assertIn("not a valid field", sampler.failure)

    def test_no_nvidia_smi(self):
        with tempfile.TemporaryDirectory() as empty, \
                mock.patch.dict(os.environ, {"PATH": empty}):
            with gpu_clock.ClockSampler() as sampler:
                self.assertIsNone(sampler.summary([(0, time.time())]))


if __name__ == "__main__":
    unittest.main()
