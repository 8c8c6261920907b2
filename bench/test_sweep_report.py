"""bench/sweep_report.py on made-up results (no GPU, no torch): the table's
rows, columns and ratios, the check that refuses malformed results, and
the plot (when matplotlib is installed).

  python3 -m unittest -v bench/test_sweep_report.py   (from the repository root)
"""
import copy
import importlib.util
import random
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sweep_report  # noqa: E402

SHAPES = ((1024, 2816), (4096, 11008))
TOKENS = (1, 4, 16, 64, 256, 1024, 8192, 65536)
IMPLS = ("fmlp", "hf_eager", "hf_compile")


def made_up(seed=0):
    """Results shaped as bench_sweep.py writes them, with random times."""
    rng = random.Random(seed)
    meta = {"device": "NVIDIA H200", "torch": "2.11.0", "fmlp": "0.2.0", "dtype": "bf16",
            "date": "2026-12-01 23:00 UTC", "implementations": list(IMPLS),
            "modes": ["nograd", "train"], "launches": ["eager", "graph"], "flush_l2": False,
            "copy_bandwidth_Bps": 4.27e12, "copy_bytes": 2**30,
            "gemm_floor_launch": "graph-replayed", "timing": "made up", "not_run": [[4096, 11008, 65536]]}
    cells = []
    for d, h in SHAPES:
        for t in TOKENS:
            if [d, h, t] in meta["not_run"]:
                continue
            w = 3 * d * h * 2
            cell = {"D": d, "H": h, "T": t, "weight_bytes": w, "floors_us": {}, "us": {},
                    "skipped": {}}
            for mode, k in (("nograd", 1), ("train", 3)):
                floor = k * w / 4.27e12 * 1e6
                gemm = max(floor * 1.1, 6 * k * t * d * h / 6e14 * 1e6)
                cell["floors_us"][mode] = {"weight_read": floor, "gemm": gemm}
                cell["us"][mode] = {i: {l: gemm * rng.uniform(1.0, 3.0) for l in meta["launches"]}
                                    for i in IMPLS}
            cells.append(cell)
    # One capture that failed: no time, and the reason.
    cells[0]["us"]["train"]["hf_compile"].pop("graph")
    cells[0]["skipped"]["train/hf_compile/graph"] = "RuntimeError: capture failed"
    # Known values for the ratio columns.
    cells[1]["us"]["nograd"]["fmlp"]["graph"] = 30.0
    cells[1]["us"]["nograd"]["hf_compile"]["graph"] = 40.0
    cells[1]["us"]["nograd"]["hf_eager"]["graph"] = 60.0
    cells[1]["floors_us"]["nograd"] = {"weight_read": 20.0, "gemm": 25.0}
    return {"meta": meta, "cells": cells}


class Table(unittest.TestCase):
    def setUp(self):
        self.data = made_up()
        sweep_report.check(self.data)
        self.text = sweep_report.markdown_table(self.data)

    def table_rows(self):
        return [line for line in self.text.splitlines() if line.startswith("| ") and line[2].isdigit()]

    def test_one_row_per_cell_mode_and_launch(self):
        expected = sum(len(c["us"]) * 2 for c in self.data["cells"])
        self.assertEqual(len(self.table_rows()), expected)
        self.assertEqual(self.text.count("\n## "), 4)  # (mode, shape) sections

    def test_columns_and_ratios(self):
        # D=1024, T=4, graph: fmlp 30, HF eager 60, HF compile 40, floors 20 and 25.
        row = next(r for r in self.table_rows() if r.startswith("| 4 | graph |"))
        self.assertEqual(row, "| 4 | graph | 30.0 | 60.0 | 40.0 | 0.50 | 0.75 | 20.0 | 25.0 | 1.20 |")
        header = next(line for line in self.text.splitlines() if line.startswith("| T |"))
        self.assertEqual(header.count("|"), row.count("|"))

    def test_missing_times_are_dashes_with_the_reason(self):
        row = [r for r in self.table_rows() if r.startswith("| 1 | graph |")][2]  # train, D=1024
        self.assertEqual(row.split(" | ")[4], "-")
        self.assertIn("train/hf_compile/graph: RuntimeError: capture failed", self.text)
        self.assertIn("Not run (the time limit came first): (D=4096, H=11008, T=65536)", self.text)

    def test_without_fmlp_no_ratio_columns(self):
        data = copy.deepcopy(self.data)
        data["meta"]["implementations"] = ["hf_eager", "hf_compile"]
        text = sweep_report.markdown_table(data)
        self.assertNotIn("fmlp /", text.split("\n## ")[1])


class Merge(unittest.TestCase):
    def test_cells_of_a_second_run_join(self):
        first, second = made_up(0), made_up(1)
        first["cells"] = [c for c in first["cells"] if c["T"] <= 256]
        first["meta"]["not_run"] = [[d, h, t] for d, h in SHAPES for t in TOKENS if t > 256]
        kept = copy.deepcopy(first["cells"])
        merged = sweep_report.merge(first, [second])
        self.assertEqual(len(merged["cells"]), len(second["cells"]))
        self.assertEqual(merged["cells"][:len(kept)], kept)  # the first run's cells stay
        self.assertEqual(merged["meta"]["not_run"], [[4096, 11008, 65536]])

    def test_different_runs_refused(self):
        other = made_up(1)
        other["meta"]["implementations"] = ["fmlp", "hf_eager"]
        with self.assertRaises(ValueError):
            sweep_report.merge(made_up(0), [other])


class Check(unittest.TestCase):
    """The check refuses what is not a result (the negative controls)."""

    def test_refuses(self):
        for label, spoil in (
                ("negative time", lambda d: d["cells"][2]["us"]["train"]["fmlp"].update(eager=-1.0)),
                ("NaN time", lambda d: d["cells"][2]["us"]["nograd"]["fmlp"].update(graph=float("nan"))),
                ("missing floor", lambda d: d["cells"][3]["floors_us"]["train"].pop("gemm")),
                ("missing meta key", lambda d: d["meta"].pop("flush_l2")),
                ("not a result", lambda d: d.pop("meta"))):
            data = made_up()
            spoil(data)
            with self.subTest(label), self.assertRaises(ValueError):
                sweep_report.check(data)


@unittest.skipUnless(importlib.util.find_spec("matplotlib"), "matplotlib is not installed")
class Plot(unittest.TestCase):
    def test_png_written(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "sweep.png"
            sweep_report.plot(made_up(), path)
            self.assertEqual(path.read_bytes()[:8], b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    unittest.main()
