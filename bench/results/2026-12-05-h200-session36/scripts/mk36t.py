from fmlp.spec import BlockSpec, find_or_compile
for save in ("gu", "agu"):
    print(find_or_compile(BlockSpec(1024, 2816, "f32", save=save, precision="highest")))
    print(find_or_compile(BlockSpec(1024, 2816, "bf16", save=save)))
