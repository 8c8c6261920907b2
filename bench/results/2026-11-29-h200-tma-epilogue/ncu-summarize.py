import csv, sys, collections, re
rows = list(csv.reader(open(sys.argv[1])))
# find header row
hi = next(i for i, r in enumerate(rows) if any("Source" == c or "Source" in c for c in r) and len(r) > 3)
h = rows[hi]; print("columns:", h[:40])
src = next(i for i, c in enumerate(h) if c.strip() == "Source")
cand = [i for i, c in enumerate(h) if "Warp Stall Sampling (All" in c]
si = cand[0] if cand else None
ni = [i for i, c in enumerate(h) if "Warp Stall Sampling (Not" in c]
data = rows[hi + 1:]
def num(x):
    try: return float(x.replace(",", ""))
    except: return 0.0
tot = sum(num(r[si]) for r in data if len(r) > si)
print("total samples", tot, "instructions", len(data))
op = collections.Counter(); reg = collections.Counter(); seen_hgmma = False; region = "prologue"
for idx, r in enumerate(data):
    if len(r) <= si: continue
    s = r[src]; m = re.search(r"([A-Z][A-Z0-9_]+)(\.[A-Z0-9_.]*)?\s", s + " ")
    o = m.group(1) if m else s[:10]
    if o.startswith("HGMMA"): region = "mainloop"
    if o in ("MUFU",) and region in ("mainloop", "copyin"): region = "elements"
    if o == "LDG" and region == "mainloop": region = "copyin"
    if o == "STG" and region == "elements": region = "copyout"
    op[o] += num(r[si]); reg[region] += num(r[si])
print("by region (heuristic):", {k: round(100 * v / tot, 1) for k, v in reg.items()})
print("by opcode:", [(k, round(100 * v / tot, 1)) for k, v in op.most_common(15)])
top = sorted(range(len(data)), key=lambda i: -num(data[i][si]) if len(data[i]) > si else 0)[:45]
for i in sorted(top):
    r = data[i]; print(f"{i:5d} {100*num(r[si])/tot:5.1f}% {r[src][:70]}")
