#!/usr/bin/env python3
"""IR mutation fuzzer for fmlp's compiler tools.

Mutates the repository's .mlir inputs (examples/, test/Tools/Inputs,
test/Unit/Inputs): numbers in shapes (0, 1, 2^31, 2^62, ...), element types,
op names, attributes and layouts, deleted, duplicated and swapped lines. Each
mutant goes through fmlp-opt's three pipelines (--fmlp-plan-pipeline,
--fmlp-plan-pipeline --fmlp-cpu-pipeline, --fmlp-gpu-pipeline, each with
random options) and fmlp-compile. Every run must end in

  exit 0, or exit 1 with an `error:` diagnostic;

never a signal, a timeout, "LLVM ERROR", "PLEASE submit a bug report" or
"Stack dump", and never IR that a pass made invalid: an input that verifies
(fmlp-opt with no pass accepts it) must not fail with an upstream verifier's
message (`does not dominate`, `out-of-bounds`, ...).

  scripts/fuzz-ir.py --bin-dir build/bin --count 2000 --seed 7 --jobs 2

prints a report (cases, clean errors, successes, crashes, timeouts, invalid
IR) and exits 1 if anything but clean errors and successes happened. With
--keep DIR, each failing mutant and its output are saved there. The ctest
test `fuzz/ir` runs a fixed seed and a small count.
"""

import argparse
import concurrent.futures
import os
import pathlib
import random
import re
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
INPUT_DIRS = ["examples", "test/Tools/Inputs", "test/Unit/Inputs"]

BIG_NUMBERS = [0, 1, 2, 3, 7, 8, 16, 4096, 2**31 - 1, 2**31, 2**32 + 1,
               2**40, 2**62, 2**62 + 1, 2**63 - 1]
ELEMENT_TYPES = ["f32", "bf16", "f16", "f64", "i32", "i8", "index"]
OP_SWAPS = [
    ("linalg.matmul", "linalg.batch_matmul"),
    ("linalg.matmul", "linalg.matmul_transpose_b"),
    ("arith.mulf", "arith.addf"),
    ("arith.mulf", "arith.subf"),
    ("arith.maximumf", "arith.minimumf"),
    ("math.exp", "math.tanh"),
    ("arith.divf", "arith.mulf"),
    ("tosa.matmul", "tosa.add"),
    ("tosa.sigmoid", "tosa.tanh"),
    ("silu", "gelu_tanh"),
    ("silu", "relu"),
    ("in_out", "out_in"),
    ("permutation = [1, 0]", "permutation = [0, 1]"),
]
# Messages of upstream verifiers: from a pass's output, they mean the pass
# built invalid IR (the input itself verified).
INVALID_IR = re.compile(
    r"does not dominate|out-of-bounds|failed to verify|"
    r"expected .* to be non-negative|operand #\d+ does not|"
    r"'(memref|arith|scf|llvm|gpu|nvvm|linalg|tensor|func|cf)\.[a-z_.]+' op "
    r"(expected|requires|result|operand|offset|size|stride|type)")
CRASH = re.compile(r"LLVM ERROR|PLEASE submit a bug report|Stack dump")


def find_inputs():
    files = []
    for directory in INPUT_DIRS:
        files += sorted((ROOT / directory).glob("*.mlir"))
    return files


def dimension_spans(text):
    """Spans of the static extents inside tensor<...> and memref<...> types."""
    spans = []
    for shaped in re.finditer(r"(?:tensor|memref)<([0-9?x]+)x[a-z]", text):
        base = shaped.start(1)
        for extent in re.finditer(r"\d+", shaped.group(1)):
            spans.append((base + extent.start(), base + extent.end()))
    return spans


def new_extent(rng):
    if rng.random() < 0.7:
        return str(rng.choice(BIG_NUMBERS))
    return str(rng.randint(1, 5000))


def mutate_number(text, rng):
    """One static extent of one type (tensor<2048x4096xf32>)."""
    spans = dimension_spans(text)
    if not spans:
        return text
    begin, end = rng.choice(spans)
    return text[:begin] + new_extent(rng) + text[end:]


def mutate_width(text, rng):
    """Every extent equal to one width (D, H or T) at once, so that the
    mutant stays consistent: D = 0, H = 2^62, T = 1, ..."""
    widths = sorted({text[b:e] for b, e in dimension_spans(text)})
    if not widths:
        return text
    old, new = rng.choice(widths), new_extent(rng)
    spans = [(b, e) for b, e in dimension_spans(text) if text[b:e] == old]
    for begin, end in reversed(spans):
        text = text[:begin] + new + text[end:]
    return text


def mutate_dynamic(text, rng):
    """A `?` extent made static, or a static one dynamic."""
    spans = [m.span() for m in re.finditer(r"(?<=[<x])\?(?=x)", text)]
    if rng.random() < 0.5:
        spans = []  # make a static extent dynamic instead
    if not spans:
        static = dimension_spans(text)
        if not static:
            return text
        begin, end = rng.choice(static)
        return text[:begin] + "?" + text[end:]
    begin, end = rng.choice(spans)
    return text[:begin] + new_extent(rng) + text[end:]


def mutate_element_type(text, rng):
    spans = [m.span() for m in re.finditer(r"\b(f32|bf16|f16)\b", text)]
    if not spans:
        return text
    begin, end = rng.choice(spans)
    return text[:begin] + rng.choice(ELEMENT_TYPES) + text[end:]


def mutate_all_element_types(text, rng):
    old, new = rng.sample(["f32", "bf16", "f16"], 2)
    return re.sub(r"\b%s\b" % old, new, text)


def mutate_op(text, rng):
    candidates = [(a, b) for a, b in OP_SWAPS if a in text or b in text]
    if not candidates:
        return text
    a, b = rng.choice(candidates)
    if a not in text:
        a, b = b, a
    positions = [m.start() for m in re.finditer(re.escape(a), text)]
    at = rng.choice(positions)
    return text[:at] + b + text[at + len(a):]


def mutate_float(text, rng):
    spans = [m.span() for m in re.finditer(r"\b\d+\.\d+(e[-+]?\d+)?\b", text)]
    if not spans:
        return text
    begin, end = rng.choice(spans)
    value = rng.choice(["0.0", "-1.0", "1.0e+38", "0.5", "1.702", "nan",
                        "3.4e38", "1.0e-45"])
    return text[:begin] + value + text[end:]


def statements(text):
    """Lines and the [first, last) line ranges of whole statements: a line
    that starts an operation and the more indented lines that continue it
    (its operands, attributes, regions)."""
    lines = text.split("\n")
    indent = [len(l) - len(l.lstrip()) if l.strip() else None for l in lines]
    ranges = []
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        if (not re.match(r"(%[\w.]+(:\d+)? = |[a-z_]+\.[a-z_.]+ |return )",
                         stripped) or stripped.startswith("func.func")):
            continue
        j = i + 1
        while j < len(lines) and (indent[j] is None or indent[j] > indent[i]):
            j += 1
        ranges.append((i, j))
    return lines, ranges


def delete_statement(text, rng):
    lines, ranges = statements(text)
    if ranges:
        i, j = rng.choice(ranges)
        del lines[i:j]
    return "\n".join(lines)


def duplicate_statement(text, rng):
    lines, ranges = statements(text)
    if ranges:
        i, j = rng.choice(ranges)
        lines[i:i] = lines[i:j]
    return "\n".join(lines)


def swap_statements(text, rng):
    lines, ranges = statements(text)
    disjoint = [(a, b) for a in ranges for b in ranges if a[1] <= b[0]]
    if disjoint:
        (i, j), (k, l) = rng.choice(disjoint)
        lines = lines[:i] + lines[k:l] + lines[j:k] + lines[i:j] + lines[l:]
    return "\n".join(lines)


MUTATIONS = [mutate_number, mutate_width, mutate_width, mutate_width,
             mutate_dynamic, mutate_element_type, mutate_all_element_types,
             mutate_op, mutate_op, mutate_float, delete_statement,
             duplicate_statement, swap_statements]


def make_case(inputs, rng):
    source = rng.choice(inputs)
    # A --split-input-file test holds several cases: one of them.
    text = rng.choice(re.split(r"^// -----\s*$", source.read_text(),
                               flags=re.M))
    applied = []
    for _ in range(rng.choice([1, 1, 1, 1, 2])):
        mutation = rng.choice(MUTATIONS)
        text = mutation(text, rng)
        applied.append(mutation.__name__)
    options = {
        "mode": rng.choice(["train", "train", "infer"]),
        "save": rng.choice(["agu", "gu", "u", "x"]),
        "chunk-tokens": rng.choice([0, 0, 0, 1, 4, 512, 2**31, 2**62]),
    }
    return source, applied, text, options


def commands(bin_dir, path, options):
    opt = os.path.join(bin_dir, "fmlp-opt")
    compile_ = os.path.join(bin_dir, "fmlp-compile")
    pipeline = " ".join("%s=%s" % item for item in options.items())
    return [
        ("verify", [opt, path, "-o", os.devnull]),
        ("plan", [opt, path, "--fmlp-plan-pipeline=" + pipeline, "-o",
                  os.devnull]),
        ("cpu", [opt, path, "--fmlp-plan-pipeline=" + pipeline,
                 "--fmlp-cpu-pipeline", "-o", os.devnull]),
        ("gpu", [opt, path, "--fmlp-gpu-pipeline=" + pipeline, "-o",
                 os.devnull]),
        ("compile", [compile_, path] + ["--%s=%s" % item
                                        for item in options.items()]),
    ]


def classify(returncode, output, timed_out, input_verified):
    if timed_out:
        return "timeout"
    if returncode < 0 or CRASH.search(output):
        return "crash"
    if returncode == 0:
        return "success"
    if returncode == 1 and "error:" in output:
        if input_verified and INVALID_IR.search(output):
            return "invalid-ir"
        return "clean-error"
    return "bad-exit"


def run_case(index, case, bin_dir, timeout, keep):
    source, applied, text, options = case
    results = []
    with tempfile.TemporaryDirectory(prefix="fmlp-fuzz-") as work:
        path = os.path.join(work, "case%d.mlir" % index)
        with open(path, "w") as f:
            f.write(text)
        input_verified = False
        for name, command in commands(bin_dir, path, options):
            try:
                run = subprocess.run(command, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, timeout=timeout,
                                     cwd=work)
                output = run.stdout.decode(errors="replace")
                outcome = classify(run.returncode, output, False,
                                   input_verified)
                returncode = run.returncode
            except subprocess.TimeoutExpired as expired:
                output = (expired.stdout or b"").decode(errors="replace")
                outcome, returncode = "timeout", None
            if name == "verify":
                input_verified = returncode == 0
            results.append((name, outcome, returncode, output))
        bad = [r for r in results if r[1] not in ("success", "clean-error")]
        if bad and keep:
            os.makedirs(keep, exist_ok=True)
            stem = os.path.join(keep, "case%d" % index)
            with open(stem + ".mlir", "w") as f:
                f.write("// from %s, mutations %s, options %s\n" %
                        (source.relative_to(ROOT), applied, options))
                f.write(text)
            with open(stem + ".log", "w") as f:
                for name, outcome, returncode, output in bad:
                    f.write("== %s: %s (exit %s)\n%s\n" %
                            (name, outcome, returncode, output[-4000:]))
    return index, source, applied, options, results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin-dir", default=str(ROOT / "build" / "bin"))
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds per tool run (a loaded machine is slow)")
    parser.add_argument("--keep", help="directory for failing mutants")
    parser.add_argument("--max-seconds", type=float, default=0,
                        help="start no case after this long (0: no limit); "
                        "the report counts the cases run")
    args = parser.parse_args()
    if args.count < 1 or args.jobs < 1 or args.timeout <= 0:
        parser.error("--count, --jobs and --timeout must be positive")

    args.bin_dir = os.path.abspath(args.bin_dir)
    rng = random.Random(args.seed)
    inputs = find_inputs()
    cases = [make_case(inputs, rng) for _ in range(args.count)]
    totals = {}
    failures = []
    start = time.monotonic()

    def run_in_time(index, case):
        if args.max_seconds and time.monotonic() - start > args.max_seconds:
            return None
        return run_case(index, case, args.bin_dir, args.timeout, args.keep)

    ran = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_in_time, i, case)
                   for i, case in enumerate(cases)]
        for future in concurrent.futures.as_completed(futures):
            if future.result() is None:
                continue
            ran += 1
            index, source, applied, options, results = future.result()
            for name, outcome, returncode, output in results:
                if name == "verify":
                    continue
                totals[outcome] = totals.get(outcome, 0) + 1
                if outcome not in ("success", "clean-error"):
                    lines = [l for l in output.splitlines() if l.strip()]
                    failures.append("case %d (%s, %s, %s) %s: %s, exit %s: %s"
                                    % (index, source.relative_to(ROOT),
                                       "+".join(applied), options, name,
                                       outcome, returncode,
                                       lines[0] if lines else ""))

    for failure in sorted(failures):
        print(failure)
    runs = sum(totals.values())
    print("fuzz-ir: seed %d, %d cases, %d tool runs (fmlp-opt plan, plan+cpu, "
          "gpu; fmlp-compile), %.0f s" % (args.seed, ran, runs,
                                          time.monotonic() - start))
    for outcome in ["success", "clean-error", "crash", "timeout", "invalid-ir",
                    "bad-exit"]:
        print("  %-12s %d" % (outcome, totals.get(outcome, 0)))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
