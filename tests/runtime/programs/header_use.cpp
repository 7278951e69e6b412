// header_use.cpp - calls the fixture package's kernels through its generated header (fixture.h)
// from C++17: resolve all kernels, run axpy and fill_i32 through typed wrappers, check the values.
// Usage: header_use FIXTURE.tlpkg  -> prints "ok" and exits 0.
#include <cstdio>
#include <vector>
#include "fixture.h"

static DLTensor tensor1d(void* data, int64_t* shape, uint8_t code, uint8_t bits) {
  DLTensor t{};
  t.data = data;
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = 1;
  t.dtype = DLDataType{code, bits, 1};
  t.shape = shape;
  return t;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  tl_runtime_t* rt = nullptr;
  tl_package_t* pkg = nullptr;
  if (tl_runtime_create(nullptr, &rt) != TL_OK || tl_package_open(rt, argv[1], &pkg) != TL_OK) return 3;
  fixture_kernels_t k;
  if (fixture_kernels_resolve(pkg, &k) != TL_OK) return 4;
  int64_t n = 1000;
  std::vector<float> x(n), y(n);
  for (int64_t i = 0; i < n; ++i) { x[i] = float(i); y[i] = 1.0f; }
  DLTensor tx = tensor1d(x.data(), &n, kDLFloat, 32), ty = tensor1d(y.data(), &n, kDLFloat, 32);
  if (fixture_axpy(k.axpy, &tx, &ty, 2.0) != TL_OK) return 5;
  for (int64_t i = 0; i < n; ++i)
    if (y[i] != 2.0f * float(i) + 1.0f) return 6;
  int64_t m = 5;
  std::vector<int32_t> o(m);
  DLTensor to = tensor1d(o.data(), &m, kDLInt, 32);
  if (fixture_fill_i32(k.fill_i32, &to, 42) != TL_OK) return 7;
  for (auto v : o) if (v != 42) return 8;
  // a wrong dtype through the typed wrapper still gets the runtime's argument check
  if (fixture_fill_i32(k.fill_i32, &tx, 1) != TL_ERROR_INVALID_ARGUMENT) return 9;
  std::printf("ok: %s\n", tl_runtime_last_error(rt));
  tl_package_release(pkg);
  tl_runtime_release(rt);
  return 0;
}
