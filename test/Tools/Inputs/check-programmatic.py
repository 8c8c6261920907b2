#!/usr/bin/env python3
"""Checks a bundle's programmatic launches against its PTX: every kernel a
launch marked programmatic_launch runs begins with exactly one
griddepcontrol.launch_dependents; griddepcontrol.wait pair, ahead of its
first instruction that touches memory or synchronizes (anything but
ld.param / cvta.param and register arithmetic), and no other kernel has
griddepcontrol. Prints the entry kinds whose launches are programmatic and
how many kernels wait, or the first violation (exit 1).

  check-programmatic.py BUNDLE
"""
import json
import re
import sys

MEMORY = re.compile(r"^\s*(@%p\d+\s+)?(ld\.(?!param)|st\.|atom\.|red\.|cp\.|mbarrier\.|bar\.|barrier\.|"
                    r"fence\.|wgmma\.|ldmatrix|stmatrix|prefetch|tensormap|mma\.)")


def main():
    bundle = sys.argv[1]
    manifest = json.load(open(f"{bundle}/manifest.json"))
    ptx = open(f"{bundle}/kernels.ptx").read()
    bodies = dict(re.findall(r"\.entry (\w+)\((.*?)\n}", ptx, re.S))
    marked = [(entry["kind"], launch["kernel"]) for entry in manifest["entry_points"]
              for launch in entry["launches"] if launch.get("programmatic_launch")]
    kinds = sorted({kind for kind, _ in marked})
    programmatic = {kernel for _, kernel in marked}
    for name, body in bodies.items():
        lines = body.splitlines()
        waits = [i for i, line in enumerate(lines) if "griddepcontrol.wait" in line]
        if name not in programmatic:
            if "griddepcontrol" in body:
                sys.exit(f"{name}: griddepcontrol in a kernel no launch runs programmatically")
            continue
        if len(waits) != 1 or "griddepcontrol.launch_dependents" not in lines[waits[0] - 1]:
            sys.exit(f"{name}: {len(waits)} waits, or no launch_dependents just before")
        first = next((i for i, line in enumerate(lines) if MEMORY.match(line)), len(lines))
        if first < waits[0]:
            sys.exit(f"{name}: '{lines[first].strip()}' before griddepcontrol.wait")
    missing = programmatic - bodies.keys()
    if missing:
        sys.exit(f"programmatic launches of kernels not in the PTX: {sorted(missing)}")
    print(f"programmatic: {kinds}; {len(programmatic)} kernels wait first")


if __name__ == "__main__":
    main()
