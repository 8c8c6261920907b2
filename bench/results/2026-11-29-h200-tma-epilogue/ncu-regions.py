import csv,sys
for name in sys.argv[1:]:
    rows=list(csv.reader(open(name+".csv")))[1:]
    h=rows[0]; data=[r for r in rows[1:] if len(r)>5]
    src=h.index("Source"); si=h.index("Warp Stall Sampling (All Samples)"); ex=h.index("Instructions Executed")
    stalls=[i for i,c in enumerate(h) if c.startswith("stall_") and "Not Issued" not in c]
    def num(x):
        try: return float(x.replace(",",""))
        except: return 0.0
    tot=sum(num(r[si]) for r in data)
    def find(pred, start=0):
        for i in range(start,len(data)):
            if pred(data[i][src]): return i
    last_hgmma=max(i for i,r in enumerate(data) if "HGMMA" in r[src])
    dep0=find(lambda s:"DEPBAR.LE gsb0, 0x0" in s, last_hgmma)
    first_mufu=find(lambda s:"MUFU" in s)
    last_mufu=max(i for i,r in enumerate(data) if "MUFU" in r[src])
    bounds=[("prologue+producer",0),("mainloop",find(lambda s:"HGMMA" in s)-30),("after-mainloop/copyin",dep0+1),("elements",first_mufu-60),("copyout/end",last_mufu+20),("",len(data))]
    print(name, "total samples", tot)
    for (n,a),(_,b) in zip(bounds,bounds[1:]):
        s=sum(num(r[si]) for r in data[a:b]); e=sum(num(r[ex]) for r in data[a:b])
        st={h[i]:sum(num(r[i]) for r in data[a:b]) for i in stalls}
        top=sorted(st.items(),key=lambda kv:-kv[1])[:6]
        print(f"  {n:24s} [{a},{b}) samples {100*s/tot:5.1f}%  warp-instr {e:.3g}  top", [(k[6:],round(100*v/tot,1)) for k,v in top])
