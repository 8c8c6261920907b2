"""The torch-free half of the Python package, on a machine without a GPU:
bundle specs and their MLIR, compile on first use through fmlp-compile,
the error that names the command when it is missing, and the ctypes
binding (manifest, arguments, the no-driver error)."""
import json
import os
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from fmlp import runtime, spec


def with_path(path):
    env = dict(os.environ)
    env["PATH"] = path
    return env


class SpecTest(unittest.TestCase):
    def setUp(self):
        self.cache = tempfile.TemporaryDirectory()
        self.addCleanup(self.cache.cleanup)
        self.saved_env = dict(os.environ)
        os.environ["FMLP_CACHE_DIR"] = self.cache.name
        os.environ["PATH"] = os.environ["FMLP_BIN_DIR"] + os.pathsep + os.environ["PATH"]
        self.addCleanup(lambda: (os.environ.clear(), os.environ.update(self.saved_env)))

    def test_key_separates_every_field(self):
        base = spec.BlockSpec(96, 200, "bf16")
        variants = [base, spec.BlockSpec(96, 200, "f16"), spec.BlockSpec(96, 208, "bf16"),
                    spec.BlockSpec(96, 200, "bf16", "gelu_tanh"),
                    spec.BlockSpec(96, 200, "bf16", bias=True),
                    spec.BlockSpec(96, 200, "bf16", gate_multiplier=0.5),
                    spec.BlockSpec(96, 200, "bf16", down_multiplier=0.5),
                    spec.BlockSpec(96, 200, "bf16", chip="sm_80"),
                    spec.BlockSpec(96, 200, "bf16", save="gu"),
                    spec.BlockSpec(96, 200, "bf16", save="u"),
                    spec.BlockSpec(96, 200, "bf16", save="x"),
                    spec.BlockSpec(96, 200, "bf16", chunk_tokens=64),
                    spec.BlockSpec(96, 200, "bf16", save="x", chunk_tokens=64),
                    spec.BlockSpec(96, 200, "f32"),
                    spec.BlockSpec(96, 200, "f32", precision="tf32"),
                    spec.BlockSpec(96, 200, "f32", precision="tf32x3"),
                    spec.BlockSpec(96, 200, "bf16", lora_rank=16),
                    spec.BlockSpec(96, 200, "bf16", lora_rank=32),
                    spec.BlockSpec(96, 200, "bf16", down_lora_rank=16),
                    spec.BlockSpec(96, 200, "bf16", lora_rank=16, down_lora_rank=16)]
        self.assertEqual(len({v.key for v in variants}), len(variants))
        with self.assertRaisesRegex(ValueError, "precision must be one of"):
            spec.BlockSpec(96, 200, "f32", precision="3xtf32")
        with self.assertRaisesRegex(ValueError, "is for f32 blocks"):
            spec.BlockSpec(96, 200, "bf16", precision="tf32")

    def test_lora_ranks(self):
        """A rank is 0 or a positive multiple of 16 (the caller pads with
        zero rows); the key names each group's rank."""
        s = spec.BlockSpec(96, 200, "bf16", lora_rank=32, down_lora_rank=16)
        self.assertTrue(s.key.endswith("-lora32-dlora16"), s.key)
        self.assertNotIn("lora", spec.BlockSpec(96, 200, "bf16").key)
        self.assertTrue(spec.BlockSpec(96, 200, "bf16", down_lora_rank=48).key.endswith("-dlora48"))
        for name in ("lora_rank", "down_lora_rank"):
            for rank in (-16, 8, 24, 1.0, 16.0, "16", None):
                with self.subTest(name=name, rank=rank):
                    with self.assertRaisesRegex(spec.UnsupportedConfig,
                                                f"{name} = .*multiple of 16"):
                        spec.BlockSpec(96, 200, "bf16", **{name: rank})

    def test_lora_mlir_names_the_adapters(self):
        """A LoRA spec's MLIR parses (fmlp-opt) and its bundle names the
        entry points' arguments as fmlp.ops passes them: the adapters after
        the biases, their gradients after the biases'; one GEMM writes the
        gradients of Bg and Bu, so either needs both (fmlp_outputs_needed)."""
        bin_dir = Path(os.environ["FMLP_BIN_DIR"])
        for bias, r, rd in ((True, 16, 32), (False, 16, 0), (False, 0, 16)):
            with self.subTest(bias=bias, r=r, rd=rd):
                s = spec.BlockSpec(96, 200, "f32", bias=bias, lora_rank=r, down_lora_rank=rd)
                source = Path(self.cache.name) / "lora.mlir"
                source.write_text(s.mlir())
                parsed = subprocess.run([str(bin_dir / "fmlp-opt"), str(source)],
                                        capture_output=True, text=True)
                self.assertEqual(parsed.returncode, 0, parsed.stderr)
                self.assertIn("fmlp.gated_mlp", parsed.stdout)
                bundle = runtime.Bundle(spec.find_or_compile(s))
                params = ["gate", "up", "down"]
                params += ["gate_bias", "up_bias", "down_bias"] if bias else []
                params += ["lora_a", "gate_lora_b", "up_lora_b"] if r else []
                params += ["down_lora_a", "down_lora_b"] if rd else []
                forward = bundle.entry("forward")
                self.assertEqual(forward.names, ["x"] + params + ["y", "saved"])
                shapes = dict(zip(forward.names, (a["shape"] for a in forward.arguments)))
                for name, shape in (("lora_a", (r, 96)), ("gate_lora_b", (200, r)),
                                    ("up_lora_b", (200, r)), ("down_lora_a", (rd, 200)),
                                    ("down_lora_b", (96, rd))):
                    if name in shapes:
                        self.assertEqual(shapes[name], shape, name)
                # A | G | U, then Z and Zd (save=agu).
                self.assertEqual(shapes["saved"], (-1, 3 * 200 + r + rd))
                backward = bundle.entry("backward")
                self.assertEqual(backward.names[:len(params) + 2], ["x"] + params + ["dy"])
                grads = [n for n in backward.names if n == "dx" or n.startswith("d_")]
                self.assertEqual(grads, ["dx"] + ["d_" + p for p in params])
                flags = backward.outputs_needed([n in ("d_up_lora_b", "d_down_lora_a")
                                                 for n in backward.names])
                needed = {n for n, flag in zip(backward.names, flags) if flag}
                self.assertEqual(needed, ({"d_gate_lora_b", "d_up_lora_b"} if r else set())
                                 | ({"d_down_lora_a"} if rd else set()))

    def test_precision_reaches_the_bundle(self):
        # An f32 block's precision is the manifest's, and its kernels are
        # mma.sync's (tf32, tf32x3) or SIMT (ieee).
        for precision in ("ieee", "tf32", "tf32x3"):
            path = spec.find_or_compile(spec.BlockSpec(96, 200, "f32", precision=precision))
            with open(path / "manifest.json") as f:
                manifest = json.load(f)
            self.assertEqual({e["precision"] for e in manifest["entry_points"]}, {precision})
            kernels = {l["kernel"] for e in manifest["entry_points"] for l in e["launches"]}
            self.assertEqual(any("mma_sync" in k for k in kernels), precision != "ieee", kernels)
        with self.assertRaisesRegex(ValueError, "save must be one of"):
            spec.BlockSpec(96, 200, "bf16", save="none")

    def test_memory_policy_reaches_the_bundle(self):
        # save=gu: the forward's saved buffer is G | U (2 H columns), and
        # the backward recomputes A into a workspace of H columns.
        s = spec.BlockSpec(96, 200, "bf16", save="gu")
        bundle = runtime.Bundle(spec.find_or_compile(s))
        saved = [a for a in bundle.entry("forward").arguments if a["name"] == "saved"]
        self.assertEqual(saved[0]["shape"], (-1, 2 * 200))
        # fmlp_workspace_bytes: saved plus workspace, (2 + 1) H columns.
        self.assertEqual(bundle.entry("backward").workspace_bytes(10), 10 * 3 * 200 * 2)
        # save=x: nothing saved.
        x = runtime.Bundle(spec.find_or_compile(spec.BlockSpec(96, 200, "bf16", save="x")))
        self.assertNotIn("saved", x.entry("forward").names)

    def test_memory_report_per_policy(self):
        """fmlp-compile's plan in bytes, for T tokens of a [T, 96] -> 200
        bf16 block (2-byte elements): what each policy keeps and needs."""
        t, h, e = 1000, 200, 2
        expected = {  # save: (saved, forward workspace, backward workspace)
            "agu": (3 * t * h * e, 0, 0),
            "gu": (2 * t * h * e, t * h * e, t * h * e),
            "u": (t * h * e, 2 * t * h * e, 2 * t * h * e),
            "x": (0, t * h * e, 3 * t * h * e),
        }
        for save, (saved, forward, backward) in expected.items():
            report = spec.memory_report(spec.BlockSpec(96, h, "bf16", save=save), t)
            self.assertEqual((report["save"], report["tokens"], report["chunk_tokens"]), (save, t, 0))
            self.assertEqual((report["saved_bytes"], report["forward_workspace_bytes"],
                              report["backward_workspace_bytes"]), (saved, forward, backward))
            self.assertEqual(report["training_peak_bytes"], saved + max(forward, backward))
            self.assertEqual(report["nograd_workspace_bytes"], t * h * e)
        # A chunk bounds the workspaces, not what is saved.
        chunked = spec.memory_report(spec.BlockSpec(96, h, "bf16", save="x", chunk_tokens=64), t)
        self.assertEqual((chunked["saved_bytes"], chunked["backward_workspace_bytes"]),
                         (0, 3 * 64 * h * e))

    def test_key_names_the_compiler_version(self):
        # Bundles cached by one fmlp are stale for another: the key moves
        # with the version, for every spec.
        s = spec.BlockSpec(96, 200, "bf16", bias=True)
        self.assertIn(f"fmlp{spec.__version__}-", s.key)
        with mock.patch.object(spec, "__version__", "0.2.1"):
            upgraded = s.key
        self.assertNotEqual(upgraded, s.key)
        self.assertEqual(upgraded.replace("fmlp0.2.1-", f"fmlp{spec.__version__}-"), s.key)

    def test_bundle_format_is_the_runtime_s(self):
        header = (Path(__file__).resolve().parents[2] / "include" / "fmlp" /
                  "Runtime.h").read_text()
        self.assertIn(f"#define FMLP_BUNDLE_VERSION {spec.BUNDLE_FORMAT}\n", header)

    def test_cached_bundle_of_another_format_is_compiled_again(self):
        # An fmlp of the same version may have cached a bundle before the
        # format changed (version 1 had no launch ranges): the runtime
        # would refuse it, so the cache does not return it.
        s = spec.BlockSpec(96, 200, "bf16")
        path = spec.find_or_compile(s)
        manifest = path / "manifest.json"
        text = manifest.read_text()
        self.assertIn(f'"version": {spec.BUNDLE_FORMAT}', text)
        manifest.write_text(text.replace(f'"version": {spec.BUNDLE_FORMAT}', '"version": 1'))
        self.assertEqual(spec.find_or_compile(s), path)
        self.assertIn(f'"version": {spec.BUNDLE_FORMAT}', manifest.read_text())
        runtime.Bundle(path)  # and the runtime reads it

    def test_hf_activations(self):
        self.assertEqual(spec.activation_of("silu"), "silu")
        self.assertEqual(spec.activation_of("gelu_pytorch_tanh"), "gelu_tanh")
        with self.assertRaisesRegex(spec.UnsupportedConfig, "'gelu' is not fused"):
            spec.activation_of("gelu")
        with self.assertRaisesRegex(spec.UnsupportedConfig, "dtype 'f64'"):
            spec.BlockSpec(96, 200, "f64")

    def test_compiles_on_first_use_then_reuses(self):
        s = spec.BlockSpec(96, 200, "bf16", bias=True, gate_multiplier=0.5, down_multiplier=0.25)
        path = spec.find_or_compile(s)
        self.assertEqual(path, Path(self.cache.name) / (s.key + ".bundle"))
        manifest = path / "manifest.json"
        self.assertTrue(manifest.is_file())
        stamp = manifest.stat().st_mtime_ns
        self.assertEqual(spec.find_or_compile(s), path)  # from the cache
        self.assertEqual(manifest.stat().st_mtime_ns, stamp)
        bundle = runtime.Bundle(path)
        self.assertEqual(bundle.chip, "sm_90a")
        self.assertRegex(bundle.compiler, r"^fmlp \d+\.\d+\.\d+$")
        self.assertEqual(bundle.entry("forward").names,
                         ["x", "gate", "up", "down", "gate_bias", "up_bias", "down_bias", "y", "saved"])
        backward = bundle.entry("backward")
        self.assertEqual(backward.names[:8], ["x", "gate", "up", "down", "gate_bias", "up_bias",
                                              "down_bias", "dy"])
        self.assertIn("d_gate_bias", backward.names)
        self.assertEqual(bundle.entry("forward").arguments[0]["shape"], (-1, 96))
        # saved A, G, U: 3 H columns of T rows.
        self.assertEqual(bundle.entry("forward").workspace_bytes(10), 10 * 3 * 200 * 2)

    def test_chip_for_a_device_from_the_compiler_table(self):
        # The 'a' form only where it adds an MMA family (WGMMA, tcgen05).
        self.assertEqual(runtime.chip_for_capability(9, 0), "sm_90a")
        self.assertEqual(runtime.chip_for_capability(10, 0), "sm_100a")
        self.assertEqual(runtime.chip_for_capability(8, 0), "sm_80")
        self.assertEqual(runtime.chip_for_capability(12, 0), "sm_120")
        # A minor revision the table lacks: the plain row below it.
        self.assertEqual(runtime.chip_for_capability(8, 7), "sm_86")
        self.assertEqual(runtime.chip_for_capability(12, 1), "sm_120")
        with self.assertRaisesRegex(runtime.RuntimeError_, "no chip of compute capability 7.0"):
            runtime.chip_for_capability(7, 0)

    def test_missing_compiler_names_the_command(self):
        os.environ["PATH"] = "/nonexistent"
        s = spec.BlockSpec(96, 200, "f16")
        with self.assertRaises(spec.BundleMissing) as caught:
            spec.find_or_compile(s)
        message = str(caught.exception)
        self.assertIn("fmlp-compile is not on PATH", message)
        self.assertIn(f"-o {Path(self.cache.name) / (s.key + '.bundle')}", message)
        self.assertIn("fmlp.gated_mlp silu", message)

    def test_compile_errors_are_reported(self):
        s = spec.BlockSpec(96, 200, "bf16", chip="sm_1")  # no such chip
        with self.assertRaisesRegex(spec.CompileFailed, "fmlp-compile .* failed(.|\n)*unknown chip 'sm_1'"):
            spec.find_or_compile(s)
        self.assertFalse((Path(self.cache.name) / (s.key + ".bundle")).exists())

    def test_no_driver_error(self):
        path = spec.find_or_compile(spec.BlockSpec(96, 200, "bf16"))
        os.environ["FMLP_LIBCUDA"] = "libcuda-absent-for-fmlp-tests.so.1"
        bundle = runtime.Bundle(path)
        with self.assertRaisesRegex(runtime.RuntimeError_, "FMLP_ERROR_NO_DRIVER"):
            bundle.load()

    def test_bad_bundle_is_a_clear_error(self):
        with tempfile.TemporaryDirectory() as empty:
            with self.assertRaisesRegex(runtime.RuntimeError_, "manifest"):
                runtime.Bundle(empty)

    def test_kernel_ranges_of_t(self):
        """Two variants of a kernel (T <= 16, T >= 17) and one for every T:
        kernel_tokens reports each range, kernels_at picks exactly one
        variant on either side of the boundary."""
        launch = ('{{"kernel": "{0}", "grid_tokens_per_block": [0, 0, 0], '
                  '"grid_fixed": [1, 1, 1], "block": [32, 1, 1], '
                  '"dynamic_shared_bytes": 0{1}, '
                  '"params": [{{"argument": 0, "offset": 0}}]}}')
        launches = [launch.format("k_small", ', "max_tokens": 16'),
                    launch.format("k_large", ', "min_tokens": 17'),
                    launch.format("k_after", "")]
        manifest = (
            '{"format": "fmlp-bundle", "version": ' + str(spec.BUNDLE_FORMAT) + ', "chip": "sm_90a", '
            '"images": {"ptx": "kernels.ptx"}, "entry_points": [{"symbol": '
            '"v.forward_nograd", "kind": "forward_nograd", "static_tokens": 0, '
            '"arguments": [{"name": "x", "role": "input", "dtype": "bf16", '
            '"shape": [-1, 8], "alignment": 16, "consumed": false}], '
            '"launches": [' + ", ".join(launches) + ']}]}')
        with tempfile.TemporaryDirectory() as directory:
            (Path(directory) / "manifest.json").write_text(manifest)
            (Path(directory) / "kernels.ptx").write_text("")
            entry = runtime.Bundle(directory).entry("forward_nograd")
            self.assertEqual([entry.kernel_tokens(k) for k in range(3)],
                             [(1, 16), (17, None), (1, None)])
            self.assertEqual(entry.kernels_at(1), [(0, "k_small"), (2, "k_after")])
            self.assertEqual(entry.kernels_at(16), [(0, "k_small"), (2, "k_after")])
            self.assertEqual(entry.kernels_at(17), [(1, "k_large"), (2, "k_after")])
            self.assertEqual(entry.kernels_at(0), [])
            with self.assertRaisesRegex(runtime.RuntimeError_,
                                        "FMLP_ERROR_INVALID_ARGUMENT: fmlp_kernel_tokens"):
                entry.kernel_tokens(3)
            self.assertEqual(entry.chunk_tokens, 0)
            # Chunks of 20 tokens, every launch per chunk: at T = 41 the
            # chunks of 20, 20 and 1 token run both variants.
            chunked = (manifest.replace('"static_tokens": 0,', '"static_tokens": 0, "chunk_tokens": 20,')
                       .replace('"dynamic_shared_bytes": 0', '"dynamic_shared_bytes": 0, "per_chunk": true')
                       .replace('"offset": 0}', '"offset": 0, "token_stride": 8}'))
            (Path(directory) / "manifest.json").write_text(chunked)
            entry = runtime.Bundle(directory).entry("forward_nograd")
            self.assertEqual(entry.chunk_tokens, 20)
            self.assertEqual([entry.per_chunk(k) for k in range(3)], [True, True, True])
            self.assertEqual(entry.kernels_at(41), [(0, "k_small"), (1, "k_large"), (2, "k_after")])
            self.assertEqual(entry.kernels_at(40), [(1, "k_large"), (2, "k_after")])
            self.assertEqual(entry.kernels_at(57), [(1, "k_large"), (2, "k_after")])
            self.assertEqual(entry.kernels_at(9), [(0, "k_small"), (2, "k_after")])
            self.assertEqual(entry.kernels_at(0), [])
            # A bundle of the format before is refused, naming both versions.
            old = spec.BUNDLE_FORMAT - 1
            (Path(directory) / "manifest.json").write_text(
                manifest.replace(f'"version": {spec.BUNDLE_FORMAT}', f'"version": {old}'))
            with self.assertRaisesRegex(runtime.RuntimeError_,
                                        f"version {old} is not supported: this runtime reads "
                                        f"version {spec.BUNDLE_FORMAT}"):
                runtime.Bundle(directory)

    def test_outputs_needed_of_a_compiled_backward(self):
        """fmlp_outputs_needed over a real bundle's backward (with biases):
        one GEMM writes dWg and dWu, so either needs both; every other
        gradient has kernels of its own."""
        path = spec.find_or_compile(spec.BlockSpec(96, 200, "bf16", bias=True))
        entry = runtime.Bundle(path).entry("backward")
        names = [a["name"] for a in entry.arguments]

        def needed(*wanted):
            flags = entry.outputs_needed([n in wanted for n in names])
            return {n for n, flag in zip(names, flags) if flag}
        self.assertEqual(needed(), set())
        self.assertEqual(needed("dx"), {"dx"})
        self.assertEqual(needed("d_up"), {"d_gate", "d_up"})
        self.assertEqual(needed("d_down", "d_down_bias"), {"d_down", "d_down_bias"})
        self.assertEqual(needed("d_gate_bias"), {"d_gate_bias"})
        # Inputs and saved are never "needed" outputs.
        self.assertEqual(needed("x", "saved", "dy"), set())
        with self.assertRaisesRegex(ValueError, "flags needed"):
            entry.outputs_needed([True])

    def test_tensor_array_packs_what_describe_builds(self):
        """TensorArray.set writes the same bytes as a Tensor from describe()
        (the ctypes structure), for every rank; set_null only the data."""
        import ctypes
        array = runtime.TensorArray(3)
        cases = [(0x1000, "bf16", (7,), (1,)), (0x2040, "f32", (3, 5), (5, 1)),
                 (0x30000, "f16", (2, 3, 4, 5, 6, 7, 8, 9),
                  (60480, 20160, 5040, 1008, 168, 24, 3, 1))]
        for i, (data, dtype, sizes, strides) in enumerate(cases):
            array.set(i, data, runtime.DTYPE_CODES[dtype], sizes, strides)
            self.assertEqual(bytes(array.array[i]),
                             bytes(runtime.describe(data, dtype, sizes, strides)), dtype)
        array.set_null(1)
        self.assertIsNone(array.array[1].data)
        self.assertEqual(list(array.array[1].sizes[:2]), [3, 5])
        with self.assertRaisesRegex(ValueError, "rank 9"):
            array.set(0, 0, 0, (1,) * 9, (1,) * 9)
        self.assertEqual(ctypes.sizeof(array.array), 3 * ctypes.sizeof(runtime.Tensor))


if __name__ == "__main__":
    unittest.main()
