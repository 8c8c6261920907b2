"""A stand-in bundle for a block spec, written from fmlp-compile's plan
(--emit=mlir) instead of its GPU kernels: the manifest the bundle writer
would write (each entry point's arguments, in order, with their roles and
shapes; one launch per planned kernel op, which reads and writes the
arguments its operands are views of) and no kernels. The runtime opens it,
fmlp_outputs_needed decides from its launches what a backward must be
given, and ops.emulate computes the entry points. Used where fmlp-compile
refuses to lower a block to GPU kernels (LoRA adapters, docs/LoRA.md,
until their GPU lowering lands); test_spec.py holds it to a real bundle
where one compiles (same arguments, same outputs_needed closures).
Torch-free.
"""
import json
import re
import subprocess
from pathlib import Path

from fmlp import spec as specs

_FUNCTION = re.compile(r"func\.func @[\w.]+\.(forward_nograd|forward|backward)\((.*)\)"
                       r" attributes \{(.*)\} \{$")
_ARGUMENT = re.compile(r"%arg(\d+): memref<([^>]*)> \{([^}]*)\}")
_VIEW = re.compile(r"(%\w+) = memref\.subview (%arg\d+)\[")
_KERNEL_OP = re.compile(r"^\s*fmlp\.(\w+) ")
_OUTS = re.compile(r"outs\(([^:]*):")
_VALUE = re.compile(r"%\w+")


def _role(name: str) -> str:
    if name in ("saved", "workspace"):
        return name
    return "output" if name in ("y", "dx") or name.startswith("d_") else "input"


def _argument(match, dtype: str) -> dict:
    dims = match.group(2).split("x")[:-1]
    attributes = match.group(3)
    return {"name": re.search(r'fmlp\.name = "(\w+)"', attributes).group(1),
            "role": None, "dtype": dtype, "alignment": 16,
            "shape": [-1 if d == "?" else int(d) for d in dims],
            "consumed": "fmlp.consumed" in attributes}


def manifest_of_plan(plan: str, dtype: str, chip: str = "sm_90a") -> dict:
    """The manifest of the entry points in `plan` (fmlp-compile --emit=mlir)."""
    entries, entry, views = [], None, {}
    for line in plan.splitlines():
        function = _FUNCTION.search(line)
        if function:
            kind = function.group(1)
            arguments = [_argument(m, dtype) for m in _ARGUMENT.finditer(function.group(2))]
            for a in arguments:
                a["role"] = _role(a["name"])
            chunk = re.search(r"fmlp\.chunk_tokens = (\d+)", function.group(3))
            entry = {"symbol": f"mlp.{kind}", "kind": kind, "static_tokens": 0,
                     "chunk_tokens": int(chunk.group(1)) if chunk else 0,
                     "arguments": arguments, "launches": []}
            entries.append(entry)
            views = {f"%arg{i}": i for i in range(len(arguments))}
            continue
        view = _VIEW.search(line)
        if view and entry is not None:
            views[view.group(1)] = views[view.group(2)]
            continue
        op = _KERNEL_OP.search(line)
        if op and entry is not None:
            operands = line.split(" {")[0] if " {" in line else line
            reads = sorted({views[v] for v in _VALUE.findall(operands) if v in views})
            outs = _OUTS.search(line)
            writes = sorted({views[v] for v in _VALUE.findall(outs.group(1)) if v in views})
            entry["launches"].append({
                "kernel": f"{kind}_{len(entry['launches'])}_{op.group(1)}",
                "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [1, 1, 1],
                "block": [32, 1, 1], "dynamic_shared_bytes": 0,
                "params": [{"argument": a, "offset": 0} for a in reads], "writes": writes})
    return {"format": "fmlp-bundle", "version": specs.BUNDLE_FORMAT, "chip": chip,
            "compiler": "fmlp plan stand-in", "images": {"ptx": "kernels.ptx"},
            "entry_points": entries}


def write(spec: specs.BlockSpec, bundle: Path) -> Path:
    """The stand-in bundle of `spec` at `bundle` (a directory), from
    fmlp-compile (on PATH)'s plan under spec's memory policy."""
    bundle = Path(bundle)
    bundle.mkdir(parents=True, exist_ok=True)
    source = bundle / "block.mlir"
    source.write_text(spec.mlir())
    command = ["fmlp-compile", str(source), "--emit=mlir", "--report=false",
               f"--save={spec.save}", f"--chunk-tokens={spec.chunk_tokens}",
               f"--precision={spec.precision}", "-o", str(bundle / "plan.mlir")]
    subprocess.run(command, check=True, capture_output=True, text=True)
    manifest = manifest_of_plan((bundle / "plan.mlir").read_text(), spec.dtype, spec.chip)
    (bundle / "manifest.json").write_text(json.dumps(manifest, indent=1))
    (bundle / "kernels.ptx").write_text("")
    return bundle


def find_or_write(spec: specs.BlockSpec) -> Path:
    """spec.find_or_compile's stand-in for blocks with adapters: the cache
    entry of `spec` (spec.bundle_path), written from the plan."""
    bundle = specs.bundle_path(spec)
    if not (bundle / "manifest.json").is_file():
        write(spec, bundle)
    return bundle
