# The GPU tests' (D, H) shapes as DxH, sourced by make-bundles.sh and run.sh.
# Every element type runs at two SwiGLU sizes (Llama-style 1024 and 4096
# hidden); bf16 also at two edge shapes whose K3 main loop is not a whole
# number of ring rounds (D = 64: one k-step on a 4-stage ring; D = 1088: 17).
gpu_test_shapes="1024x2816 4096x11008"
gpu_test_edge_shapes="64x128 1088x704"
# Memory-policy variants, as DTYPE:DxH:SAVE:CHUNK (fmlp-compile --save=SAVE
# --chunk-tokens=CHUNK), each in mlp-DTYPE-D-H-SAVE-cCHUNK.bundle: the
# saved-activation policies unchunked, and chunks of 1024 tokens with
# save=agu (only forward_nograd has a workspace to chunk), save=gu (the
# forward and forward_nograd: A in the workspace; the backward too once it
# has one), save=u (G recomputed, A written over the saved U) and save=x
# (every entry point), in bf16 and once in f32 (the SIMT kernels).
gpu_test_variants="bf16:1024x2816:gu:0 bf16:1024x2816:u:0 bf16:1024x2816:x:0
  bf16:1024x2816:agu:1024 bf16:1024x2816:gu:1024 bf16:1024x2816:u:1024
  bf16:1024x2816:x:1024 f32:1024x2816:u:1024 f32:1024x2816:x:1024"
# T for a variant: chunked ones at T < C (1, 17, 1000), C, T not a multiple
# of C (2597), 2C + 1 (a last chunk of one token: the small_tokens kernels)
# and 4C; unchunked ones as the default bundles' quick set.
gpu_test_chunk_tokens="0 1 17 1000 1024 2049 2597 4096"
gpu_test_variant_tokens="0 1 3 16 17 37 2597 4096"
# The chunked variant compute-sanitizer runs (memcheck, racecheck), at
# T = 129: two chunks of 64 and one of 1 token (the small_tokens kernels),
# small enough for the sanitizers.
gpu_test_sanitized_variant="bf16:1024x2816:x:64"
# The fp32 precisions other than the default bundles' highest
# (docs/precision.md), as PRECISION:DxH, each in
# mlp-f32-D-H-PRECISION.bundle (fmlp-compile --precision=PRECISION) and
# judged by its own bound (--contraction): ieee (every kernel SIMT), tf32
# and tf32x3 on tensor cores, and highest at D = 64, whose contractions
# over D (64 < 84 terms) take IEEE fp32 and those over H tf32x3. tf32
# (K1 and K2 on WGMMA on sm_90a) also at (1088, 704), whose 34 and 22
# k-steps of 32 fp32 are no whole rounds of the ring; not at (4096, 11008): its
# worst-case bound there exceeds |y|, so the "other inputs" control cannot
# fail (bench/NOTES.md items 50 and 59).
gpu_test_precisions="ieee:1024x2816 ieee:64x128 highest:64x128 tf32:1024x2816
  tf32:64x128 tf32:1088x704 tf32x3:1024x2816 tf32x3:64x128 tf32x3:4096x11008"
gpu_test_sanitized_tokens="129"
# Blocks whose weights are stored [in, out] (ONNX and JAX exports), DTYPE:DxH;
# f32 at precision tf32 (its kernels read them through transposed copies,
# or transpose them in their stages at few T).
gpu_test_in_out_variants="bf16:1024x2816 f32:1024x2816"
gpu_test_in_out_tokens="0 1 16 17 256 257 2597"
# Blocks with LoRA adapters (docs/LoRA.md), as DTYPE:DxH:R:RD:SAVE:CHUNK:
# the gate's and up's adapters stacked to rank R, the down projection's of
# rank RD (0: that group absent), each in
# mlp-lora-DTYPE-D-H-rR-rdRD-SAVE-cCHUNK.bundle (fmlp-compile --save=SAVE
# --chunk-tokens=CHUNK, the default precision): bf16 at both shapes with
# both groups and the activations saved (Z and Zd beside A, G, U), gate/up
# adapters alone with save=x in chunks of 1024 (Z recomputed per chunk),
# f16 with save=gu, and f32. In bf16 with R = 32 and Rd = 16, lib/Numerics'
# bound on y is ~40x the bound without adapters (Z's and Zd's bf16
# roundings carried through |B| at worst case): ~6x rms |y| at (1024,
# 2816) and ~65x at (4096, 11008): the "other inputs" control reached
# 1.0-1.7 at the first (0.999 at T = 3: it passed) and 0.12-0.17 at the
# second (H200, the GPU lowering in progress); the adapters-left-out
# control failed everywhere (by 2.3x at least).
gpu_test_lora_variants="bf16:1024x2816:32:16:agu:0 bf16:4096x11008:32:16:agu:0
  bf16:1024x2816:16:0:x:1024 f16:1024x2816:16:16:gu:0 f32:1024x2816:16:16:agu:0"
# T for a LoRA bundle: as the default bundles' quick set (the small_tokens
# range, split-K's, the WGMMA row boxes) and 2597; a chunked one at 1000,
# 1024 and 2049 too (below a chunk, one chunk, 2 chunks + 1).
gpu_test_lora_tokens="0 1 3 16 17 37 64 65 129 257 2597 4096"
gpu_test_lora_chunk_tokens="$gpu_test_lora_tokens 1000 1024 2049"
