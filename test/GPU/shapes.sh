# The GPU tests' (D, H) shapes as DxH, sourced by make-bundles.sh and run.sh.
# Every element type runs at two SwiGLU sizes (Llama-style 1024 and 4096
# hidden); bf16 also at two edge shapes whose K3 main loop is not a whole
# number of ring rounds (D = 64: one k-step on a 4-stage ring; D = 1088: 17).
gpu_test_shapes="1024x2816 4096x11008"
gpu_test_edge_shapes="64x128 1088x704"
