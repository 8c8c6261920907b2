// What mma.sync m16n8k16 (bf16 in, fp32 accumulate) can issue on this GPU:
// every warp runs independent MMA chains on registers only (no memory in
// the loop), enough warps and chains to cover the MMA's latency. The
// mma_sync strategy's kernels are judged against this ceiling, and their
// fraction of it projects to other chips (bench/NOTES.md).
//
//   nvcc -O3 -arch=sm_90a -o mma_sync_peak bench/mma_sync_peak.cu && ./mma_sync_peak
#include <cstdio>
#include <cuda_runtime.h>

constexpr int kChains = 8, kThreads = 256, kBlocksPerSM = 4;

__global__ void __launch_bounds__(kThreads) peak(float *sink, int iterations) {
  // Operand registers with lane-dependent bits (bf16 pairs); their values
  // do not change the MMA's rate.
  unsigned a[4], b[2];
  for (int i = 0; i < 4; ++i)
    a[i] = 0x3f803f80u ^ (threadIdx.x * (i + 1));
  for (int i = 0; i < 2; ++i)
    b[i] = 0x3f803f80u ^ (threadIdx.x * (i + 5));
  float c[kChains][4] = {};
  for (int it = 0; it < iterations; ++it) {
#pragma unroll
    for (int j = 0; j < kChains; ++j)
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                   "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                   "{%0, %1, %2, %3};"
                   : "+f"(c[j][0]), "+f"(c[j][1]), "+f"(c[j][2]), "+f"(c[j][3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),
                     "r"(b[1]));
  }
  float sum = 0;
  for (int j = 0; j < kChains; ++j)
    for (int r = 0; r < 4; ++r)
      sum += c[j][r];
  if (sum == 1234.5f) // never, but the compiler cannot know
    *sink = sum;
}

int main() {
  int device = 0, sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, device);
  float *sink;
  cudaMalloc(&sink, sizeof(float));
  const int iterations = 1 << 14, blocks = sms * kBlocksPerSM;
  peak<<<blocks, kThreads>>>(sink, 16); // warm up
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  float best = 1e30f;
  for (int round = 0; round < 5; ++round) {
    cudaEventRecord(start);
    peak<<<blocks, kThreads>>>(sink, iterations);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    best = ms < best ? ms : best;
  }
  if (cudaGetLastError() != cudaSuccess) {
    std::printf("launch failed\n");
    return 1;
  }
  double flops = 2.0 * 16 * 8 * 16 * kChains * double(iterations) *
                 (kThreads / 32) * blocks;
  std::printf("%s, %d SMs: mma.sync m16n8k16 bf16->fp32 %.0f TFLOP/s "
              "(best of 5, %.3f ms)\n",
              prop.name, sms, flops / (best * 1e-3) / 1e12, best);
  return 0;
}
