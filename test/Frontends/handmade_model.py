#!/usr/bin/env python3
"""Writes a whole decoder model in the form torch-mlir's linalg lowering
gives (nn.Linear on 3-D x as linalg.batch_matmul against a transposed and
batch-broadcast weight, both as linalg.generic; RMSNorm, attention with a
softmax, residual adds), for the lit tests of whole-model recognition.

It is written by hand, not exported, so that the repository has a whole-model
input even where the frontend tools (generate.py) are not installed. Usage:
  handmade_model.py --layers 2 [--weights args|constants] > model.mlir
"""
import argparse

D, H, HEADS, S = 64, 160, 2, 8
HD = D // HEADS


class Writer:
    def __init__(self):
        self.lines = []
        self.count = 0

    def fresh(self, stem):
        self.count += 1
        return f"%{stem}{self.count}"

    def emit(self, text):
        self.lines.append("    " + text)


def ty(*shape):
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


def generic(w, stem, maps, iterators, ins, in_types, out, out_type, body):
    """A linalg.generic; `body` gets the block argument names."""
    result = w.fresh(stem)
    args = [f"%in{i}" for i in range(len(ins))]
    w.emit(f"{result} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
           f"iterator_types = [{', '.join(repr(i).replace(chr(39), chr(34)) for i in iterators)}]}} "
           f"ins({', '.join(ins)} : {', '.join(in_types)}) outs({out} : {out_type}) {{")
    w.emit("^bb0(" + ", ".join(f"{a}: f32" for a in args) + ", %out: f32):")
    lines, value = body(args)
    for line in lines:
        w.emit("  " + line)
    w.emit(f"  linalg.yield {value} : f32")
    w.emit(f"}} -> {out_type}")
    return result


def empty(w, *shape):
    e = w.fresh("empty")
    w.emit(f"{e} = tensor.empty() : {ty(*shape)}")
    return e


def zeros(w, *shape):
    e = empty(w, *shape)
    z = w.fresh("zero")
    w.emit(f"{z} = linalg.fill ins(%cst_zero : f32) outs({e} : {ty(*shape)}) -> {ty(*shape)}")
    return z


def linear(w, x, weight, n, k):
    """torch-mlir's aten.linear on [1, S, k]: transpose, broadcast, batch_matmul."""
    t = generic(w, "wt", ["#t2", "#id2"], ["parallel"] * 2, [weight], [ty(n, k)],
                empty(w, k, n), ty(k, n), lambda a: ([], a[0]))
    b = generic(w, "wb", ["#drop0", "#id3"], ["parallel"] * 3, [t], [ty(k, n)],
                empty(w, 1, k, n), ty(1, k, n), lambda a: ([], a[0]))
    r = w.fresh("mm")
    w.emit(f"{r} = linalg.batch_matmul ins({x}, {b} : {ty(1, S, k)}, {ty(1, k, n)}) "
           f"outs({zeros(w, 1, S, n)} : {ty(1, S, n)}) -> {ty(1, S, n)}")
    return r


def rms_norm(w, x, weight):
    sq = generic(w, "sq", ["#id3", "#rowsum"], ["parallel", "parallel", "reduction"],
                 [x], [ty(1, S, D)], zeros(w, 1, S), ty(1, S),
                 lambda a: ([f"%m = arith.mulf {a[0]}, {a[0]} : f32",
                             "%s = arith.addf %m, %out : f32"], "%s"))
    return generic(w, "norm", ["#id3", "#row", "#feat", "#id3"], ["parallel"] * 3,
                   [x, sq, weight], [ty(1, S, D), ty(1, S), ty(D)],
                   empty(w, 1, S, D), ty(1, S, D),
                   lambda a: ([f"%mean = arith.divf {a[1]}, %cst_d : f32",
                               "%eps = arith.addf %mean, %cst_eps : f32",
                               "%r = math.rsqrt %eps : f32",
                               f"%n = arith.mulf {a[0]}, %r : f32",
                               f"%s = arith.mulf %n, {a[2]} : f32"], "%s"))


def add(w, a_, b_):
    return generic(w, "res", ["#id3", "#id3", "#id3"], ["parallel"] * 3, [a_, b_],
                   [ty(1, S, D), ty(1, S, D)], empty(w, 1, S, D), ty(1, S, D),
                   lambda a: ([f"%s = arith.addf {a[0]}, {a[1]} : f32"], "%s"))


def attention(w, h, wq, wk, wv, wo):
    q, k, v = (linear(w, h, wt, D, D) for wt in (wq, wk, wv))

    def heads(t):  # [1, S, D] -> [HEADS, S, HD]
        e = w.fresh("heads")
        w.emit(f"{e} = tensor.expand_shape {t} [[0], [1], [2, 3]] output_shape [1, {S}, {HEADS}, {HD}] "
               f": {ty(1, S, D)} into {ty(1, S, HEADS, HD)}")
        p = generic(w, "perm", ["#perm4", "#id4"], ["parallel"] * 4, [e], [ty(1, S, HEADS, HD)],
                    empty(w, 1, HEADS, S, HD), ty(1, HEADS, S, HD), lambda a: ([], a[0]))
        c = w.fresh("bh")
        w.emit(f"{c} = tensor.collapse_shape {p} [[0, 1], [2], [3]] : {ty(1, HEADS, S, HD)} into {ty(HEADS, S, HD)}")
        return c
    qh, kh, vh = heads(q), heads(k), heads(v)
    kt = generic(w, "kt", ["#swap12", "#id3"], ["parallel"] * 3, [kh], [ty(HEADS, S, HD)],
                 empty(w, HEADS, HD, S), ty(HEADS, HD, S), lambda a: ([], a[0]))
    scores = w.fresh("scores")
    w.emit(f"{scores} = linalg.batch_matmul ins({qh}, {kt} : {ty(HEADS, S, HD)}, {ty(HEADS, HD, S)}) "
           f"outs({zeros(w, HEADS, S, S)} : {ty(HEADS, S, S)}) -> {ty(HEADS, S, S)}")
    mx = w.fresh("max")
    e = empty(w, HEADS, S)
    w.emit(f"{mx}_init = linalg.fill ins(%cst_ninf : f32) outs({e} : {ty(HEADS, S)}) -> {ty(HEADS, S)}")
    m = generic(w, "rowmax", ["#id3", "#rowsum"], ["parallel", "parallel", "reduction"], [scores],
                [ty(HEADS, S, S)], f"{mx}_init", ty(HEADS, S),
                lambda a: ([f"%m = arith.maximumf {a[0]}, %out : f32"], "%m"))
    ex = generic(w, "exp", ["#id3", "#row", "#id3"], ["parallel"] * 3, [scores, m],
                 [ty(HEADS, S, S), ty(HEADS, S)], empty(w, HEADS, S, S), ty(HEADS, S, S),
                 lambda a: ([f"%d = arith.subf {a[0]}, {a[1]} : f32",
                             "%s = arith.mulf %d, %cst_scale : f32",
                             "%e = math.exp %s : f32"], "%e"))
    sm = generic(w, "rowsum", ["#id3", "#rowsum"], ["parallel", "parallel", "reduction"], [ex],
                 [ty(HEADS, S, S)], zeros(w, HEADS, S), ty(HEADS, S),
                 lambda a: ([f"%s = arith.addf {a[0]}, %out : f32"], "%s"))
    p = generic(w, "softmax", ["#id3", "#row", "#id3"], ["parallel"] * 3, [ex, sm],
                [ty(HEADS, S, S), ty(HEADS, S)], empty(w, HEADS, S, S), ty(HEADS, S, S),
                lambda a: ([f"%d = arith.divf {a[0]}, {a[1]} : f32"], "%d"))
    o = w.fresh("attn")
    w.emit(f"{o} = linalg.batch_matmul ins({p}, {vh} : {ty(HEADS, S, S)}, {ty(HEADS, S, HD)}) "
           f"outs({zeros(w, HEADS, S, HD)} : {ty(HEADS, S, HD)}) -> {ty(HEADS, S, HD)}")
    e4 = w.fresh("oh")
    w.emit(f"{e4} = tensor.expand_shape {o} [[0, 1], [2], [3]] output_shape [1, {HEADS}, {S}, {HD}] "
           f": {ty(HEADS, S, HD)} into {ty(1, HEADS, S, HD)}")
    back = generic(w, "unperm", ["#perm4", "#id4"], ["parallel"] * 4, [e4], [ty(1, HEADS, S, HD)],
                   empty(w, 1, S, HEADS, HD), ty(1, S, HEADS, HD), lambda a: ([], a[0]))
    merged = w.fresh("merged")
    w.emit(f"{merged} = tensor.collapse_shape {back} [[0], [1], [2, 3]] : {ty(1, S, HEADS, HD)} into {ty(1, S, D)}")
    return linear(w, merged, wo, D, D)


def mlp(w, h, wg, wu, wd):
    g = linear(w, h, wg, H, D)
    u = linear(w, h, wu, H, D)
    sig = generic(w, "sigmoid", ["#id3", "#id3"], ["parallel"] * 3, [g], [ty(1, S, H)],
                  empty(w, 1, S, H), ty(1, S, H),
                  lambda a: ([f"%n = arith.negf {a[0]} : f32", "%e = math.exp %n : f32",
                              "%d = arith.addf %e, %cst_one : f32",
                              "%r = arith.divf %cst_one, %d : f32"], "%r"))
    silu = generic(w, "silu", ["#id3", "#id3", "#id3"], ["parallel"] * 3, [g, sig],
                   [ty(1, S, H), ty(1, S, H)], empty(w, 1, S, H), ty(1, S, H),
                   lambda a: ([f"%m = arith.mulf {a[0]}, {a[1]} : f32"], "%m"))
    prod = generic(w, "prod", ["#id3", "#id3", "#id3"], ["parallel"] * 3, [silu, u],
                   [ty(1, S, H), ty(1, S, H)], empty(w, 1, S, H), ty(1, S, H),
                   lambda a: ([f"%m = arith.mulf {a[0]}, {a[1]} : f32"], "%m"))
    return linear(w, prod, wd, D, H)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layers", type=int, default=2)
    args = parser.parse_args()
    w = Writer()
    params = []
    for layer in range(args.layers):
        for name, shape in [("attn_norm", (D,)), ("wq", (D, D)), ("wk", (D, D)), ("wv", (D, D)),
                            ("wo", (D, D)), ("mlp_norm", (D,)), ("wg", (H, D)), ("wu", (H, D)),
                            ("wd", (D, H))]:
            params.append((f"%l{layer}_{name}", shape))
    params.append(("%final_norm", (D,)))
    x = "%x"
    for layer in range(args.layers):
        p = {name.split("_", 1)[1]: name for name, _ in params if name.startswith(f"%l{layer}_")}
        h = rms_norm(w, x, p["attn_norm"])
        x = add(w, x, attention(w, h, p["wq"], p["wk"], p["wv"], p["wo"]))
        h = rms_norm(w, x, p["mlp_norm"])
        x = add(w, x, mlp(w, h, p["wg"], p["wu"], p["wd"]))
    out = rms_norm(w, x, "%final_norm")
    maps = {
        "id2": "(d0, d1) -> (d0, d1)", "t2": "(d0, d1) -> (d1, d0)",
        "id3": "(d0, d1, d2) -> (d0, d1, d2)", "drop0": "(d0, d1, d2) -> (d1, d2)",
        "rowsum": "(d0, d1, d2) -> (d0, d1)", "row": "(d0, d1, d2) -> (d0, d1)",
        "feat": "(d0, d1, d2) -> (d2)", "swap12": "(d0, d1, d2) -> (d0, d2, d1)",
        "id4": "(d0, d1, d2, d3) -> (d0, d1, d2, d3)",
        "perm4": "(d0, d1, d2, d3) -> (d0, d2, d1, d3)",
    }
    print(f"// A {args.layers}-layer decoder (D={D}, H={H}, {HEADS} heads, {S} tokens) written by")
    print("// test/Frontends/handmade_model.py in the form of torch-mlir's linalg output.")
    for name, body in maps.items():
        print(f"#{name} = affine_map<{body}>")
    signature = ", ".join([f"%x: {ty(1, S, D)}"] + [f"{n}: {ty(*s)}" for n, s in params])
    print(f"func.func @decoder({signature}) -> {ty(1, S, D)} {{")
    for line in ["%cst_zero = arith.constant 0.0 : f32", "%cst_one = arith.constant 1.0 : f32",
                 f"%cst_d = arith.constant {float(D)} : f32", "%cst_eps = arith.constant 1.0e-06 : f32",
                 "%cst_ninf = arith.constant 0xFF800000 : f32",
                 f"%cst_scale = arith.constant {1 / HD ** 0.5!r} : f32"]:
        print("    " + line)
    print("\n".join(w.lines))
    print(f"    return {out} : {ty(1, S, D)}")
    print("}")


if __name__ == "__main__":
    main()
