"""Session 42: the f32 bundles bench_precision.py reads through the modules,
into FMLP_CACHE_DIR: both Llama shapes at tf32x3, tf32 and highest, the
modules' default memory policy, by this session's compiler."""
from fmlp.spec import BlockSpec, find_or_compile
from fmlp.policy import DEFAULT
for d, h in ((1024, 2816), (4096, 11008)):
    for precision in ("tf32x3", "tf32", "highest"):
        print(find_or_compile(BlockSpec(d, h, "f32", precision=precision, save=DEFAULT.save)), flush=True)
