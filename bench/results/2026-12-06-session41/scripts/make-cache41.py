"""Session 41 (the same as session 40's make-cache40.py, by this session's compiler): the f32 bundles the device calls read through the modules (gpu_modules.py precisions, bench_sweep.py), into FMLP_CACHE_DIR: (1024, 2816) at each precision with and without biases, (4096, 11008) at tf32."""
from fmlp.spec import BlockSpec, find_or_compile
from fmlp.policy import DEFAULT
specs = []
for precision in ("highest", "ieee", "tf32", "tf32x3"):
    for bias in (False, True):
        specs.append(BlockSpec(1024, 2816, "f32", bias=bias, precision=precision, save=DEFAULT.save))
specs.append(BlockSpec(4096, 11008, "f32", precision="tf32", save=DEFAULT.save))
for s in specs:
    print(find_or_compile(s), flush=True)
