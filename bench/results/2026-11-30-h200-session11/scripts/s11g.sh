#!/usr/bin/env bash
# Session 11, call 7: DRAM bytes and time of K1 and K3 at bf16 (1024, 2816),
# T = 8192 (main's kernels, bundles-main11) and of cuBLAS's GEMMs of the
# same shapes, by Nsight Compute: what each moves beside its GEMM.
cd "$(dirname "$0")/.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
export FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so PYTHONPATH=$PWD/python
M="--section SpeedOfLight --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum"
timeout 150 ncu --kernel-name regex:"forward_k0_gate_up|backward_k1_down_grad" --launch-skip 2 --launch-count 2 $M \
  python3 bench/kernel_probe.py .device/bundles-main11 1024 2816 > $R/ncu-fmlp.txt 2>&1; echo "ncu fmlp rc=$? $(( $(date +%s) - s )) s"
cat > /tmp/gemms.py <<'PY'
import torch
g = torch.Generator(device="cuda").manual_seed(0)
t, d, h = 8192, 1024, 2816
x, dy = (torch.randn(t, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(2))
wgu = torch.randn(2 * h, d, device="cuda", dtype=torch.bfloat16, generator=g)
wd = torch.randn(d, h, device="cuda", dtype=torch.bfloat16, generator=g)
for _ in range(3):
    x @ wgu.t()   # K1's GEMM
    dy @ wd       # K3's GEMM
torch.cuda.synchronize()
PY
timeout 150 ncu --launch-skip 6 --launch-count 4 $M python3 /tmp/gemms.py > $R/ncu-cublas.txt 2>&1; echo "ncu cublas rc=$? $(( $(date +%s) - s )) s"
grep -E "^  [a-zA-Z_0-9]+.*\(|dram__bytes|gpu__time_duration|DRAM Throughput|Compute \(SM\) Throughput|SM Frequency" $R/ncu-fmlp.txt $R/ncu-cublas.txt
