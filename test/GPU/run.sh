#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: builds the runtime and the GPU tests, then
# judges every bundle of make-bundles.sh on the GPU (fmlp-gpu-block-test)
# and runs compute-sanitizer's memcheck and racecheck once at a small shape.
#   test/GPU/run.sh BUNDLES [quick|full] [JSON_INCLUDE_DIR]
# quick: T in {0, 1, 2, 3, 16, 17, 32, 33, 37, 64, 65, 128, 129, 256, 257,
# 4096} (0: the weight gradients of an empty batch are zero; 1 to 16 the
# small_tokens variants of K1 and K2, 16 and 17 either side of their range;
# 17 to 128 K2's and K4's split-K variants of one row of tiles, 128 and 129
# either side; 32, 33, 64, 65: the WGMMA kernels load A (rows T) in boxes
# of 32 rows, none past T; 256 and 257 either side of their 64-wide WGMMA
# variants, split-K at D = 1024), and 2597 at D = 1024 (21 row
# tiles: the last group of 16 is partial); full adds T = 65536 (judged at sampled tokens and hidden units
# where the full float64 reference would not fit). DTYPES (default "bf16 f16
# f32") narrows the run. bf16 also runs at the edge shapes of shapes.sh,
# (64, 128) and (1088, 704), at T in {1, 16, 17, 37, 4096}. The default
# bundles also run each T's eager entry points 3 more times, every output
# bitwise as the first run's (--repeat=3: a race shows there before it
# breaks a bound; session 52 found one so, bench/NOTES.md item 106).
# Then the memory-policy variants of shapes.sh (save=gu, save=x, chunk-tokens
# = 1024 with save=agu, gu and x; those of DTYPES): chunked ones at T in
# {0, 1, 17, 1000, 1024, 2049, 2597, 4096} (below a chunk, one chunk, 2
# chunks + 1, not a multiple of it), the others at {0, 1, 3, 16, 17, 37,
# 2597, 4096}, full adding 65536; memcheck and racecheck also run a
# save=x bundle in chunks of 64 at T = 129 (shapes.sh). With them, the
# blocks whose weights are stored [in, out] (bf16, and f32 at tf32) at
# T in {0, 1, 16, 17, 256, 257, 2597}.
# f32's default bundles are precision highest (judged by IEEE fp32's bound);
# with f32, the other precisions of shapes.sh (ieee, tf32, tf32x3, highest
# at D = 64), each judged by its own bound.
# SETS=lora: the blocks with LoRA adapters of shapes.sh (every output and
# the five adapter gradients judged, and judged as if the block had no
# adapters, which must fail) at T in {0, 1, 3, 16, 17, 37, 64, 65, 129,
# 257, 2597, 4096}, the chunked one at 1000, 1024 and 2049 too; not
# sampled, so full adds no T. One process per T: at (4096, 11008) each
# takes 50-85 s on the H200's host (inputs drawn twice, the reference and
# the reference without adapters, T x H and D x H float64 matrices), ~13
# minutes for the bundle. Not in the default sets until fmlp-compile
# lowers adapters for the GPU (make-bundles.sh reports the LoRA bundles it
# could not make).
# SETS (default "defaults variants precisions") picks the bundles:
# SETS=variants runs the variants alone.
# Exit status: non-zero if anything failed.
set -uo pipefail
bundles=${1:?usage: run.sh BUNDLES [quick|full] [JSON_INCLUDE_DIR]}
set_=${2:-quick}
json=${3:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/GPU/shapes.sh"
build="$root/build-gpu"
cmake -S "$root/test/GPU" -B "$build" -G Ninja ${json:+-DFMLP_JSON_INCLUDE_DIR=$json} >/dev/null &&
  cmake --build "$build" >/dev/null || { echo "GPU test build failed"; exit 2; }
test="$build/fmlp-gpu-block-test"
status=0
sets=${SETS:-defaults variants precisions}
dtypes=${DTYPES:-bf16 f16 f32}
[[ " $sets " == *" defaults "* ]] && for dtype in $dtypes; do
  for shape in $gpu_test_shapes; do
    d=${shape%x*} h=${shape#*x}
    tokens="0 1 2 3 16 17 32 33 37 64 65 128 129 256 257 4096"
    if [[ $d == 1024 ]]; then tokens="$tokens 2597"; fi
    # f32's weight gradients: IEEE below 84 tokens, tf32x3 from 84 (highest)
    if [[ $dtype == f32 ]]; then tokens="$tokens 83 84"; fi
    if [[ $set_ == full ]]; then tokens="$tokens 65536"; fi
    timeout 300 "$test" "$bundles/mlp-$dtype-$d-$h.bundle" "$dtype" "$d" "$h" $tokens --repeat=3 || status=1
  done
  if [[ $dtype == bf16 ]]; then
    for shape in $gpu_test_edge_shapes; do
      d=${shape%x*} h=${shape#*x}
      timeout 300 "$test" "$bundles/mlp-$dtype-$d-$h.bundle" "$dtype" "$d" "$h" 1 16 17 37 4096 || status=1
    done
  fi
done
[[ " $sets " == *" precisions "* && " $dtypes " == *" f32 "* ]] && for variant in $gpu_test_precisions; do
  IFS=: read -r precision shape <<<"$variant"
  d=${shape%x*} h=${shape#*x}
  tokens="1 17 83 84 129 4096"
  [[ $d == 4096 ]] && tokens="17 257"
  echo "== precision=$precision (f32, D=$d, H=$h)"
  timeout 300 "$test" "$bundles/mlp-f32-$d-$h-$precision.bundle" f32 "$d" "$h" $tokens \
    --contraction="$precision" || status=1
done
[[ " $sets " == *" variants "* ]] && for variant in $gpu_test_in_out_variants; do
  IFS=: read -r dtype shape <<<"$variant"
  [[ " $dtypes " == *" $dtype "* ]] || continue
  d=${shape%x*} h=${shape#*x}
  contraction=""
  [[ $dtype == f32 ]] && contraction=--contraction=tf32
  echo "== weights [in, out] ($dtype, D=$d, H=$h)"
  timeout 300 "$test" "$bundles/mlp-$dtype-$d-$h-in-out.bundle" "$dtype" "$d" "$h" \
    $gpu_test_in_out_tokens $contraction || status=1
done
[[ " $sets " == *" variants "* ]] && for variant in $gpu_test_variants; do
  IFS=: read -r dtype shape save chunk <<<"$variant"
  [[ " $dtypes " == *" $dtype "* ]] || continue
  d=${shape%x*} h=${shape#*x}
  tokens=$gpu_test_variant_tokens
  [[ $chunk != 0 ]] && tokens=$gpu_test_chunk_tokens
  [[ $set_ == full ]] && tokens="$tokens 65536"
  echo "== save=$save chunk-tokens=$chunk ($dtype, D=$d, H=$h)"
  timeout 300 "$test" "$bundles/mlp-$dtype-$d-$h-$save-c$chunk.bundle" "$dtype" "$d" "$h" $tokens || status=1
done
[[ " $sets " == *" lora "* ]] && for variant in $gpu_test_lora_variants; do
  IFS=: read -r dtype shape r rd save chunk <<<"$variant"
  [[ " $dtypes " == *" $dtype "* ]] || continue
  d=${shape%x*} h=${shape#*x}
  tokens=$gpu_test_lora_tokens
  [[ $chunk != 0 ]] && tokens=$gpu_test_lora_chunk_tokens
  echo "== LoRA R=$r Rd=$rd save=$save chunk-tokens=$chunk ($dtype, D=$d, H=$h)"
  for t in $tokens; do
    timeout 300 "$test" "$bundles/mlp-lora-$dtype-$d-$h-r$r-rd$rd-$save-c$chunk.bundle" "$dtype" "$d" "$h" \
      "$t" || status=1
  done
done
# T = 3 runs K1 and K2's small_tokens kernels, T = 37 the WGMMA ones; the
# chunked variant both, and the chunks' moved views and shared workspace.
for tool in memcheck racecheck; do
  if [[ " $sets " == *" defaults "* ]]; then
    echo "== compute-sanitizer --tool $tool (bf16, D=1024, H=2816, T=3 and 37)"
    timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 3 \
      "$test" "$bundles/mlp-bf16-1024-2816.bundle" bf16 1024 2816 3 37 | tail -3 || status=1
  fi
  if [[ " $sets " == *" variants "* ]]; then
    IFS=: read -r dtype shape save chunk <<<"$gpu_test_sanitized_variant"
    d=${shape%x*} h=${shape#*x}
    echo "== compute-sanitizer --tool $tool ($dtype, D=$d, H=$h, save=$save, chunk-tokens=$chunk, T=$gpu_test_sanitized_tokens)"
    timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 3 \
      "$test" "$bundles/mlp-$dtype-$d-$h-$save-c$chunk.bundle" "$dtype" "$d" "$h" \
      $gpu_test_sanitized_tokens | tail -3 || status=1
  fi
done
exit $status
