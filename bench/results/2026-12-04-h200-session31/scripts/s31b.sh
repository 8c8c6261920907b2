#!/usr/bin/env bash
# Session 31, prepared for the next device session: does T = 16 cost 3 us
# over T = 1 because of the tokens' traffic from L2? Nsight Compute on the
# no-grad forward's small_tokens K1 and K2 at (4096, 11008), T = 1 and 16,
# this tree's default (d0) and K1 at 32 columns (d1): time, DRAM and L2
# throughput, the sectors L2 serves to L1 and L1's hit rate. If L2's
# throughput sits near its peak at T = 16 only, the tokens' reads are what
# T = 16 pays for (bench/NOTES.md item 71). Then each kernel of d3 (the
# weights .L1::no_allocate) timed alone against d0's, for the training
# step's 2-3 % loss under it.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/ab || exit 1
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics=$metrics,lts__t_throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum
metrics=$metrics,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,l1tex__throughput.avg.pct_of_peak_sustained_elapsed
for v in d0 d1; do
  for t in 1 16; do
    # compare_bundles launches A's no-grad forward first: its two kernels.
    timeout 120 ncu -k regex:nograd.*small_tokens -c 2 --metrics $metrics \
      python3 bench/compare_bundles.py .device/ab/$v .device/ab/$v build-gpu/lib/libfmlp_runtime.so \
      --tokens $t --shapes 4096x11008 --entries-only --rounds 1 > "$R/ncu-$v-t$t.txt" 2>&1
    echo "ncu $v T=$t rc=$? $(( $(date +%s) - s )) s"
    grep -E "small_tokens|gpu__time|dram__|lts__|l1tex__" "$R/ncu-$v-t$t.txt" | head -24
  done
done
# Which kernels of the training step lose 2-3 % when the weights skip L1
# (item 69): each kernel timed alone, d0 against d3, T = 1.
timeout 150 python3 bench/compare_bundles.py .device/ab/d0 .device/ab/d3 build-gpu/lib/libfmlp_runtime.so \
  --tokens 1 --shapes 4096x11008 --rounds 5 > "$R/ab-kernels-d3.txt" 2>&1
echo "kernels d3 rc=$? $(( $(date +%s) - s )) s"; cat "$R/ab-kernels-d3.txt"
