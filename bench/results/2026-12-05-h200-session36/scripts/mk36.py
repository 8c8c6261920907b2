import sys
from fmlp.policy import DEFAULT
from fmlp.spec import BlockSpec, find_or_compile
specs = []
for precision in ("highest", "ieee", "tf32", "tf32x3"):
    for d, h, bias in ((1024, 2816, False), (1024, 2816, True), (4096, 11008, False)):
        specs.append(BlockSpec(d, h, "f32", bias=bias, precision=precision, save=DEFAULT.save))
for s in specs:
    print(find_or_compile(s), flush=True)
for precision in ("highest", "tf32", "tf32x3"):
    for d, h in ((1024, 2816), (4096, 11008)):
        print(find_or_compile(BlockSpec(d, h, "f32", precision=precision, save="agu")), flush=True)
