// wgmma_tf32_operands.cu - What an H200's tensor cores make of fp32 bits
// given as tf32 operands: the input to lib/Numerics' tf32 bound.
//
// PTX leaves the tf32 format's layout implementation-defined (ISA 5.2.3,
// "Alternate Floating-Point Data Formats") and converts f32 to it only by
// cvt.rn(a).tf32.f32. fmlp's mma_sync kernels round every word by
// cvt.rna.tf32.f32; a WGMMA kernel reads its operands from shared memory as
// TMA stored them, the f32 bits of the caller's tensors. Which of the 13 low
// bits count, and how?
//
// One warpgroup runs wgmma.mma_async m64n8k8 .f32.tf32.tf32 on shared
// memory that holds one value in every word of A and another in every word
// of B (so that the result does not depend on the descriptors' layout):
// each element of D = A B is then 8 a' b', exactly, where a', b' are the
// values the tensor core used. With b = 1, D / 8 is a' (and the other way
// round). The same for mma.sync m16n8k8 on registers holding the raw bits
// (no cvt). For each probe value the program prints what the hardware took
// and what truncation (toward zero), round to nearest even and round to
// nearest away (cvt.rna) would give. Then two sums with C = 1 (as
// bench/tensor_core_sum.cu does for mma.sync): 8 products of 1/8 unit of
// 1's last place, and 8 of 3/4 unit.
//
//   nvcc -gencode=arch=compute_90a,code=sm_90a -O2 -o wgmma_tf32_operands \
//       wgmma_tf32_operands.cu
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e = (call);                                                    \
    if (e != cudaSuccess) {                                                    \
      std::printf("%s: %s\n", #call, cudaGetErrorString(e));                   \
      return 1;                                                                \
    }                                                                          \
  } while (0)

// Words of each operand's shared array: far more than m64 x k8 (2 KiB) or
// n8 x k8 read, so that any descriptor stride stays inside the fill.
constexpr int kWords = 4096;

// A shared-memory matrix descriptor without swizzle: start >> 4, leading
// byte offset 128 >> 4 (the next 8 x 16-byte core matrix along k), stride
// byte offset 256 >> 4 (along m or n).
__device__ uint64_t descriptor(const void *shared) {
  uint64_t address = static_cast<uint32_t>(__cvta_generic_to_shared(shared));
  return ((address & 0x3FFFF) >> 4) | (uint64_t(128 >> 4) << 16) |
         (uint64_t(256 >> 4) << 32);
}

// out[thread * 4 + r] = register r of D = A B + c (c: each register's start)
// for A, B filled with a and b.
__global__ void wgmmaTf32(float a, float b, float c, float *out) {
  __shared__ __align__(1024) float sa[kWords], sb[kWords];
  for (int i = threadIdx.x; i < kWords; i += blockDim.x) {
    sa[i] = a;
    sb[i] = b;
  }
  // The generic proxy's stores, visible to WGMMA's (async proxy) reads.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  float d[4] = {c, c, c, c};
  uint64_t da = descriptor(sa), db = descriptor(sb);
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  // scale-d is a predicate: true, D = A B + D.
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 "
               "{%0, %1, %2, %3}, %4, %5, p, 1, 1;\n}"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "l"(da), "l"(db));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int r = 0; r < 4; ++r)
    out[threadIdx.x * 4 + r] = d[r];
}

// The same on mma.sync m16n8k8 (one warp), the operand registers holding
// the raw f32 bits of a and b.
__global__ void mmaSyncTf32(float a, float b, float c, float *out) {
  unsigned ra = __float_as_uint(a), rb = __float_as_uint(b);
  float d[4] = {c, c, c, c};
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
               "{%0,%1,%2,%3}, {%4,%4,%4,%4}, {%5,%5}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(ra), "r"(rb));
  for (int r = 0; r < 4; ++r)
    out[threadIdx.x * 4 + r] = d[r];
}

// D's value, checked the same in every register (-1 and a message if not).
int run(bool wgmma, float a, float b, float c, float &d) {
  int threads = wgmma ? 128 : 32;
  float *out;
  CHECK(cudaMalloc(&out, threads * 4 * sizeof(float)));
  CHECK(cudaMemset(out, 0xFF, threads * 4 * sizeof(float))); // NaN poison
  if (wgmma)
    wgmmaTf32<<<1, threads>>>(a, b, c, out);
  else
    mmaSyncTf32<<<1, threads>>>(a, b, c, out);
  CHECK(cudaGetLastError());
  std::vector<float> host(threads * 4);
  CHECK(cudaMemcpy(host.data(), out, host.size() * sizeof(float),
                   cudaMemcpyDeviceToHost));
  CHECK(cudaFree(out));
  for (float v : host)
    if (std::memcmp(&v, &host[0], 4) != 0) {
      std::printf("registers differ: %a and %a\n", host[0], v);
      return 1;
    }
  d = host[0];
  return 0;
}

uint32_t bitsOf(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}
float ofBits(uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}
constexpr uint32_t kLow = (1u << 13) - 1; // the bits tf32 has not
float truncated(float x) { return ofBits(bitsOf(x) & ~kLow); }
float nearestAway(float x) { return ofBits((bitsOf(x) + (1u << 12)) & ~kLow); }
float nearestEven(float x) {
  uint32_t u = bitsOf(x), rest = u & kLow, kept = u & ~kLow;
  if (rest > (1u << 12) || (rest == (1u << 12) && (kept >> 13) & 1))
    kept += 1u << 13;
  return ofBits(kept);
}

int main() {
  const float ulp = std::ldexp(1.0f, -10); // of 1 in tf32
  const float probes[] = {
      1 + ulp / 2,                       // a tie
      1 + 0.75f * ulp,                   // above the tie
      1 + ulp + ulp / 2,                 // a tie to the odd neighbour
      1 + ulp - std::ldexp(1.0f, -23),   // the largest below 1 + ulp
      1 + std::ldexp(1.0f, -23),         // the lowest bit alone
      -(1 + 0.75f * ulp),                // negative
      3.14159265f, -2.71828183f, 0.1f};
  std::printf("%-14s %-11s %-11s %-11s | %-11s %-11s %-11s  %s\n", "value",
              "wgmma A", "wgmma B", "mma.sync A", "truncated", "nearest-even",
              "nearest-away", "the hardware's");
  int truncatedCount = 0, total = 0;
  for (float x : probes) {
    float dA, dB, dM;
    if (run(true, x, 1.0f, 0.0f, dA) || run(true, 1.0f, x, 0.0f, dB) ||
        run(false, x, 1.0f, 0.0f, dM))
      return 1;
    float used[] = {dA / 8, dB / 8, dM / 8};
    const char *rule = "other";
    if (used[0] == truncated(x) && used[1] == truncated(x) &&
        used[2] == truncated(x))
      rule = "truncated (toward zero)";
    else if (used[0] == nearestEven(x) && used[1] == nearestEven(x))
      rule = "nearest-even";
    else if (used[0] == nearestAway(x) && used[1] == nearestAway(x))
      rule = "nearest-away";
    // Values where truncation and rounding agree do not tell them apart.
    bool telling = truncated(x) != nearestEven(x) ||
                   truncated(x) != nearestAway(x);
    if (telling) {
      ++total;
      truncatedCount += std::strncmp(rule, "truncated", 9) == 0;
    }
    std::printf("%-14a %-11a %-11a %-11a | %-11a %-11a %-11a  %s%s\n", x,
                used[0], used[1], used[2], truncated(x), nearestEven(x),
                nearestAway(x), rule, telling ? "" : " (not telling)");
  }
  std::printf("operands: %d of %d telling values truncated by wgmma (A and "
              "B) and raw mma.sync\n",
              truncatedCount, total);
  // Sums: C = 1 plus 8 products of 2^-26 (1/8 unit of 1's last place, 2^-23)
  // and of 0.75 2^-23 each.
  const double unit = std::ldexp(1.0, -23);
  struct Sum {
    const char *what;
    float a, b;
  } sums[] = {{"8 x 1/8 unit", std::ldexp(1.0f, -13), std::ldexp(1.0f, -13)},
              {"8 x 3/4 unit", 1.5f * std::ldexp(1.0f, -12),
               std::ldexp(1.0f, -12)}};
  for (const Sum &s : sums) {
    float dW, dM;
    if (run(true, s.a, s.b, 1.0f, dW) || run(false, s.a, s.b, 1.0f, dM))
      return 1;
    double exact = 1.0 + 8.0 * double(s.a) * double(s.b);
    std::printf("sum 1 + %s: exact 1 + %.2f units, wgmma 1 + %.2f, mma.sync "
                "1 + %.2f\n",
                s.what, (exact - 1) / unit, (dW - 1.0) / unit,
                (dM - 1.0) / unit);
  }
  return 0;
}
