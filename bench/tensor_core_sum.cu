// tensor_core_sum.cu - How an H200's tensor cores add: the model behind
// lib/Numerics' contractionError, measured rather than assumed.
//
// One warp runs mma.sync (m16n8k8 on tf32 operands, m16n8k16 on bf16) on
// matrices chosen on the host, and the host compares D with the exact sum
// (long double). Three questions:
//  1. rounding: C = 1 plus one product of 0.75 units of 1's last place
//     (2^-23): IEEE round-to-nearest gives 1 + 2^-23, truncation 1.
//  2. alignment: C = 1 plus 8 products of 2^-26 (together 2^-23, one unit):
//     an IEEE FMA chain gives 1 + 2^-23 at the last add (or 1 for each),
//     an exact sum then one rounding 1 + 2^-23; truncating each product at
//     1's last place loses all of them.
//  3. random dot products of n terms (N(0,1) operands exact in the format,
//     n = K up to 8192, accumulated over K / k MMAs as the kernels do): the
//     worst |D - exact| / sum |a b|, against n u for u = 2^-24 (IEEE's
//     gamma_n) and u = 2^-22 (the bound lib/Numerics takes).
//
//   nvcc -arch=sm_90a -O2 -o tensor_core_sum tensor_core_sum.cu
#include <cuda_bf16.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e = (call);                                                    \
    if (e != cudaSuccess) {                                                    \
      std::printf("%s: %s\n", #call, cudaGetErrorString(e));                   \
      return 1;                                                                \
    }                                                                          \
  } while (0)

// Where register r of lane `lane` of an m16n8 fp32 accumulator sits in a
// row-major 16 x 8 matrix: rows lane / 4 (+ 8 for r >= 2), columns
// 2 (lane mod 4) + r mod 2.
__device__ int accumulatorIndex(int lane, int r) {
  return (lane / 4 + 8 * (r / 2)) * 8 + 2 * (lane % 4) + r % 2;
}

// D (16 x 8) = sum over K / 8 steps of A (16 x K, row-major) B (K x 8,
// row-major) + C, fp32 accumulators, one mma.sync m16n8k8.tf32 per step.
// Operands are passed as fp32 values already exact in tf32.
__global__ void tf32Chain(const float *A, const float *B, const float *C,
                          float *D, int K) {
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  float c[4];
  for (int r = 0; r < 4; ++r)
    c[r] = C[accumulatorIndex(lane, r)];
  for (int k0 = 0; k0 < K; k0 += 8) {
    unsigned a[4] = {__float_as_uint(A[g * K + k0 + t]),
                     __float_as_uint(A[(g + 8) * K + k0 + t]),
                     __float_as_uint(A[g * K + k0 + t + 4]),
                     __float_as_uint(A[(g + 8) * K + k0 + t + 4])};
    unsigned b[2] = {__float_as_uint(B[(k0 + t) * 8 + g]),
                     __float_as_uint(B[(k0 + t + 4) * 8 + g])};
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),
                   "r"(b[1]));
  }
  for (int r = 0; r < 4; ++r)
    D[accumulatorIndex(lane, r)] = c[r];
}

// The same on bf16 operands, m16n8k16 (A's registers: rows g, g + 8 at k
// 2t, 2t + 1 and + 8; B's: k 2t, 2t + 1 and + 8 at column g).
__global__ void bf16Chain(const float *A, const float *B, const float *C,
                          float *D, int K) {
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  float c[4];
  for (int r = 0; r < 4; ++r)
    c[r] = C[accumulatorIndex(lane, r)];
  auto pack = [](float lo, float hi) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<unsigned *>(&v);
  };
  for (int k0 = 0; k0 < K; k0 += 16) {
    auto at = [&](int row, int k) { return A[row * K + k0 + k]; };
    auto bt = [&](int k, int col) { return B[(k0 + k) * 8 + col]; };
    unsigned a[4] = {pack(at(g, 2 * t), at(g, 2 * t + 1)),
                     pack(at(g + 8, 2 * t), at(g + 8, 2 * t + 1)),
                     pack(at(g, 2 * t + 8), at(g, 2 * t + 9)),
                     pack(at(g + 8, 2 * t + 8), at(g + 8, 2 * t + 9))};
    unsigned b[2] = {pack(bt(2 * t, g), bt(2 * t + 1, g)),
                     pack(bt(2 * t + 8, g), bt(2 * t + 9, g))};
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),
                   "r"(b[1]));
  }
  for (int r = 0; r < 4; ++r)
    D[accumulatorIndex(lane, r)] = c[r];
}

struct Run {
  bool bf16;
  int K;
  std::vector<float> A, B, C, D;
  Run(bool bf16, int K)
      : bf16(bf16), K(K), A(16 * K), B(K * 8), C(16 * 8), D(16 * 8) {}
  int go() {
    float *a, *b, *c, *d;
    CHECK(cudaMalloc(&a, A.size() * 4));
    CHECK(cudaMalloc(&b, B.size() * 4));
    CHECK(cudaMalloc(&c, C.size() * 4));
    CHECK(cudaMalloc(&d, D.size() * 4));
    CHECK(cudaMemcpy(a, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(c, C.data(), C.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d, 0xFF, D.size() * 4));
    if (bf16)
      bf16Chain<<<1, 32>>>(a, b, c, d, K);
    else
      tf32Chain<<<1, 32>>>(a, b, c, d, K);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(D.data(), d, D.size() * 4, cudaMemcpyDeviceToHost));
    cudaFree(a), cudaFree(b), cudaFree(c), cudaFree(d);
    return 0;
  }
};

// Rounds to `bits` significand bits (tf32: 11, bf16: 8), ties to even.
float roundBits(float x, int bits) {
  unsigned u;
  std::memcpy(&u, &x, 4);
  unsigned drop = 24 - bits, half = 1u << (drop - 1), mask = (1u << drop) - 1;
  unsigned rest = u & mask;
  u &= ~mask;
  if (rest > half || (rest == half && (u >> drop) & 1))
    u += 1u << drop;
  std::memcpy(&x, &u, 4);
  return x;
}

int main() {
  for (bool bf16 : {false, true}) {
    const char *name = bf16 ? "bf16 m16n8k16" : "tf32 m16n8k8";
    int k = bf16 ? 16 : 8;
    // 1. One product of 0.75 ulp(1) = 1.5 2^-24 = (1.5 2^-12) 2^-12.
    Run one(bf16, k);
    one.C[0] = 1.0f;
    one.A[0] = 1.5f * std::ldexp(1.0f, -12);
    one.B[0] = std::ldexp(1.0f, -12);
    if (one.go())
      return 1;
    std::printf("%s rounding:  1 + 0.75 ulp -> 1 + %.2f ulp (IEEE nearest: "
                "1.00, truncation: 0.00)\n",
                name, (one.D[0] - 1.0) / std::ldexp(1.0, -23));
    // 2. k products of 2^-23 / k each.
    Run many(bf16, k);
    many.C[0] = 1.0f;
    for (int i = 0; i < k; ++i) {
      many.A[i] = std::ldexp(1.0f, -12);
      many.B[i * 8] = std::ldexp(1.0f, -11) / k;
    }
    if (many.go())
      return 1;
    std::printf("%s alignment: 1 + %d x (1/%d ulp) -> 1 + %.2f ulp (exact "
                "sum: 1.00, each product truncated at 1's ulp: 0.00)\n",
                name, k, k, (many.D[0] - 1.0) / std::ldexp(1.0, -23));
  }
  // 3. Random dot products.
  std::mt19937_64 gen(7);
  std::normal_distribution<float> normal(0.f, 1.f);
  for (bool bf16 : {false, true})
    for (int K : {64, 512, 4096, 8192}) {
      double worstIeee = 0, worstModel = 0, worstUlps = 0;
      for (int trial = 0; trial < 8; ++trial) {
        Run r(bf16, K);
        int bits = bf16 ? 8 : 11;
        for (float &v : r.A)
          v = roundBits(normal(gen), bits);
        for (float &v : r.B)
          v = roundBits(normal(gen), bits);
        for (float &v : r.C)
          v = 0;
        if (r.go())
          return 1;
        for (int i = 0; i < 16; ++i)
          for (int j = 0; j < 8; ++j) {
            long double exact = 0, magnitude = 0;
            for (int q = 0; q < K; ++q) {
              long double p = (long double)r.A[i * K + q] * r.B[q * 8 + j];
              exact += p;
              magnitude += fabsl(p);
            }
            double err = (double)fabsl(r.D[i * 8 + j] - exact);
            worstIeee = std::max(worstIeee, err / (double)(magnitude * K *
                                                           std::ldexp(1.0, -24)));
            worstModel = std::max(worstModel, err / (double)(magnitude * K *
                                                             std::ldexp(1.0, -22)));
            worstUlps = std::max(
                worstUlps, err / (double)(magnitude * std::ldexp(1.0, -24)));
          }
      }
      std::printf("%s K=%5d random: worst err / (K 2^-24 sum|ab|) %.4f, / "
                  "(K 2^-22 sum|ab|) %.4f, err / (2^-24 sum|ab|) %.2f\n",
                  bf16 ? "bf16" : "tf32", K, worstIeee, worstModel, worstUlps);
    }
  return 0;
}
