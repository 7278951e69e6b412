// mlp.cpp - a two-layer MLP on the ops package through tl/runtime.hpp:
//   y = softmax(gelu(x @ w1 + b1) @ w2^T + b2)   (softmax along the last axis)
// with w2 given in PyTorch's nn.Linear layout (N, H) and passed to `linear` (which takes (K, N))
// as a transposed strided view, no copy. RES_0 kernels get a 1 x 1 dummy `res` (not read).
// Then the generated header ops.h is called with the wrong kernel's handle (must be refused).
// Usage: mlp OPS.tlpkg IN.bin OUT.bin M K H N
//   IN.bin: float32 x (M, K), w1 (K, H), b1 (H), w2 (N, H), b2 (N), back to back; OUT.bin: y (M, N).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ops.h"
#include "tl/runtime.hpp"

static std::vector<float> take(const std::vector<float>& all, size_t& at, size_t n) {
  std::vector<float> v(all.begin() + static_cast<std::ptrdiff_t>(at), all.begin() + static_cast<std::ptrdiff_t>(at + n));
  at += n;
  return v;
}

int main(int argc, char** argv) {
  if (argc != 8) return 2;
  const int64_t M = std::atoll(argv[4]), K = std::atoll(argv[5]), H = std::atoll(argv[6]), N = std::atoll(argv[7]);
  const size_t total = size_t(M * K + K * H + H + N * H + N);
  std::vector<float> all(total);
  FILE* f = std::fopen(argv[2], "rb");
  if (f == nullptr || std::fread(all.data(), sizeof(float), total, f) != total) return 3;
  std::fclose(f);
  size_t at = 0;
  const std::vector<float> x = take(all, at, size_t(M * K)), w1 = take(all, at, size_t(K * H)),
                           b1 = take(all, at, size_t(H)), w2 = take(all, at, size_t(N * H)), b2 = take(all, at, size_t(N));
  std::vector<float> h(size_t(M * H)), g(size_t(M * H)), z(size_t(M * N)), y(size_t(M * N)), dummy(1);
  try {
    tl::Kernel linear, gelu, softmax;
    {
      tl::Runtime rt;                                   // the package keeps the runtime alive
      tl::Package pkg = rt.open(argv[1]);
      linear = pkg.kernel(OPS_KERNEL_LINEAR__ACT_0__RES_0);
      gelu = pkg.kernel(OPS_KERNEL_GELU__DT_FLOAT32);
      softmax = pkg.kernel(OPS_KERNEL_SOFTMAX__DT_FLOAT32);
    }                                                   // kernels keep the package alive
    using tl::TensorView;
    linear.launch(TensorView::of(x, {M, K}), TensorView::of(w1, {K, H}), TensorView::of(b1, {H}),
                  TensorView::of(dummy, {1, 1}), TensorView::of(h, {M, H}));
    gelu.launch(TensorView::of(h, {M, H}), TensorView::of(g, {M, H}));
    // w2 is (N, H) row-major; linear wants (H, N): the same memory with strides (1, H)
    linear.launch(TensorView::of(g, {M, H}), TensorView::of(w2, {H, N}, {1, H}), TensorView::of(b2, {N}),
                  TensorView::of(dummy, {1, 1}), TensorView::of(z, {M, N}));
    softmax.launch(TensorView::of(z, {M, N}), TensorView::of(y, {M, N}));

    // the finding: a gelu handle given to the softmax wrapper of the generated header
    std::vector<float> before = y;
    TensorView vz = TensorView::of(z, {M, N}), vy = TensorView::of(y, {M, N});
    const tl_status_t st = ops_softmax__DT_float32(gelu.get(), vz.dl(), vy.dl());
    try {
      gelu.check(st);
      std::printf("wrong kernel: accepted\n");
      return 4;
    } catch (const tl::Error& e) {
      std::printf("wrong kernel: [%d] %s\n", int(e.status()), e.what());
    }
    if (y != before) return 5;
    if (ops_softmax__DT_float32(nullptr, vz.dl(), vy.dl()) != TL_ERROR_INVALID_ARGUMENT) return 6;
    softmax.check(ops_softmax__DT_float32(softmax.get(), vz.dl(), vy.dl()));   // the right one runs
  } catch (const tl::Error& e) {
    std::printf("tl::Error [%d] %s\n", int(e.status()), e.what());
    return 1;
  }
  FILE* o = std::fopen(argv[3], "wb");
  if (o == nullptr || std::fwrite(y.data(), sizeof(float), y.size(), o) != y.size()) return 7;
  std::fclose(o);
  std::printf("done\n");
  return 0;
}
