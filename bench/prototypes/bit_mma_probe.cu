// Probe for the single-bit tensor cores (docs/tuning.md, "hamming_bits on the single-bit tensor
// cores"): does this GPU run mma.sync m16n8k256 b1 AND + popcount natively, and at what rate
// against the byte MMA (m16n8k32 s8) that the uint8 paths use? Hopper dropped int4 from its tensor
// cores (emulated there); if it dropped b1 too, Hamming distance would stay on the integer pipes.
//
// Checks one tile against a host popcount (fragments: A row-major, 8 words a row; B column-major,
// 8 words a column; lane (g, t) holds words t and t + 4), then times 8 independent accumulator
// chains a warp, 4 blocks an SM of 4 to 16 warps, for each MMA.
//
//   nvcc -O3 -arch=sm_90a -o /tmp/bit_mma_probe bench/prototypes/bit_mma_probe.cu && /tmp/bit_mma_probe
//   cuobjdump -sass /tmp/bit_mma_probe | grep -oE "(BMMA|IMMA)[.A-Z0-9_]*" | sort | uniq -c
//
// H200, run 143: 0 mismatches; BMMA.168256.AND.POPC and IMMA.16832.S8.S8 both native, the same
// instruction rate (0.433 / 0.432 ms at 4 warps a block), so 8x the byte MMA's products in bits.
#include <cuda_runtime.h>

#include <cstdio>

template <bool kBits>
__global__ void chains(int iterations, int* sink) {
  unsigned const a0 = threadIdx.x * 2654435761u, a1 = a0 ^ 0x5555u, a2 = a0 * 3u, a3 = a0 + 7u;
  unsigned const b0 = a0 >> 3, b1 = a1 << 1;
  int c[8][4] = {};
  for (int it = 0; it < iterations; ++it) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if constexpr (kBits) {
        asm volatile(
            "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};"
            : "+r"(c[j][0]), "+r"(c[j][1]), "+r"(c[j][2]), "+r"(c[j][3])
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
      } else {
        asm volatile(
            "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};"
            : "+r"(c[j][0]), "+r"(c[j][1]), "+r"(c[j][2]), "+r"(c[j][3])
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
      }
    }
  }
  int s = 0;
  for (int j = 0; j < 8; ++j) s += c[j][0] + c[j][1] + c[j][2] + c[j][3];
  if (s == 0x7fffffff) *sink = s;  // keeps the chains live
}

/// One 16 x 8 tile of 256-bit rows: C[i][j] = popc(A row i & B column j).
__global__ void one_tile(unsigned const* a, unsigned const* b, int* c) {
  int const lane = static_cast<int>(threadIdx.x), g = lane / 4, t = lane % 4;
  unsigned const a0 = a[g * 8 + t], a1 = a[(g + 8) * 8 + t], a2 = a[g * 8 + t + 4], a3 = a[(g + 8) * 8 + t + 4];
  unsigned const b0 = b[g * 8 + t], b1 = b[g * 8 + t + 4];
  int c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  asm volatile(
      "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};"
      : "+r"(c0), "+r"(c1), "+r"(c2), "+r"(c3)
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  c[g * 8 + 2 * t] = c0;
  c[g * 8 + 2 * t + 1] = c1;
  c[(g + 8) * 8 + 2 * t] = c2;
  c[(g + 8) * 8 + 2 * t + 1] = c3;
}

int main() {
  unsigned host_a[128], host_b[64];
  unsigned seed = 12345;
  for (auto& v : host_a) v = seed = seed * 1664525u + 1013904223u;
  for (auto& v : host_b) v = seed = seed * 1664525u + 1013904223u;
  unsigned *a, *b;
  int *c, *sink;
  cudaMalloc(&a, sizeof host_a);
  cudaMalloc(&b, sizeof host_b);
  cudaMalloc(&c, 128 * sizeof(int));
  cudaMalloc(&sink, sizeof(int));
  cudaMemcpy(a, host_a, sizeof host_a, cudaMemcpyHostToDevice);
  cudaMemcpy(b, host_b, sizeof host_b, cudaMemcpyHostToDevice);
  one_tile<<<1, 32>>>(a, b, c);
  int got[128];
  cudaMemcpy(got, c, sizeof got, cudaMemcpyDeviceToHost);
  int mismatches = 0;
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 8; ++j) {
      int want = 0;
      for (int w = 0; w < 8; ++w) want += __builtin_popcount(host_a[i * 8 + w] & host_b[j * 8 + w]);
      mismatches += want != got[i * 8 + j];
    }
  }
  std::printf("b1 tile against the host: %d mismatches (%s)\n", mismatches, cudaGetErrorString(cudaGetLastError()));

  int sms = 0, clock_khz = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  for (bool bits : {true, false}) {
    for (int warps : {4, 8, 16}) {
      int const iterations = 4000;
      cudaEvent_t start, stop;
      cudaEventCreate(&start);
      cudaEventCreate(&stop);
      auto const launch = [&] {
        if (bits) {
          chains<true><<<sms * 4, warps * 32>>>(iterations, sink);
        } else {
          chains<false><<<sms * 4, warps * 32>>>(iterations, sink);
        }
      };
      launch();  // warm-up
      cudaEventRecord(start);
      launch();
      cudaEventRecord(stop);
      cudaEventSynchronize(stop);
      float ms = 0;
      cudaEventElapsedTime(&ms, start, stop);
      double const mmas = double(sms) * 4 * warps * iterations * 8;
      double const products = mmas * 16 * 8 * (bits ? 256 : 32);
      std::printf("%s, %2d warps a block: %.3f ms, %.2f MMAs a cycle and SM, %.0f T products/s\n",
                  bits ? "b1 m16n8k256" : "s8 m16n8k32 ", warps, ms, mmas / (ms * 1e-3) / sms / (clock_khz * 1e3),
                  products / (ms * 1e-3) / 1e12);
    }
  }
}
