// hpp_use.cpp - tl/runtime.hpp (the C++17 RAII interface) on the fixture package (tests/runtime).
// Usage: hpp_use lifetimes FIXTURE.tlpkg | hpp_use errors FIXTURE.tlpkg
// Prints one line per check ("ok ..." or "FAIL ...") and exits 0 only when all passed.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "tl/runtime.hpp"

static int failures = 0;

static void expect(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok" : "FAIL", what.c_str());
  if (!ok) ++failures;
}

// axpy: y += alpha * x on a fresh y of ones; true when every element is right.
static bool run_axpy(const tl::Kernel& k, float alpha) {
  std::vector<float> x(100), y(100, 1.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i);
  const std::vector<float>& cx = x;
  k.launch(tl::TensorView::of(cx, {100}), tl::TensorView::of(y, {100}), alpha);
  for (size_t i = 0; i < y.size(); ++i)
    if (y[i] != 1.0f + alpha * float(i)) return false;
  return true;
}

// Every order of destroying the runtime, package and kernel handles; the ones left keep working.
static void lifetimes(const char* path) {
  std::array<int, 3> order{0, 1, 2};
  do {
    std::optional<tl::Runtime> rt{tl::Runtime(2)};
    std::optional<tl::Package> pkg{rt->open(path)};
    std::optional<tl::Kernel> k{pkg->kernel("axpy")};
    std::string name = "destroy order";
    bool ok = true;
    for (int which : order) {
      name += which == 0 ? " runtime" : which == 1 ? " package" : " kernel";
      if (which == 0) rt.reset();
      if (which == 1) pkg.reset();
      if (which == 2) k.reset();
      if (k) ok = ok && run_axpy(*k, 3.0f);
      if (pkg) ok = ok && run_axpy(pkg->kernel("axpy"), 0.5f) && pkg->kernel_names().size() == 8;
      if (rt) ok = ok && rt->num_threads() == 2;
    }
    expect(ok, name);
  } while (std::next_permutation(order.begin(), order.end()));

  // copies share; a moved-from handle is empty and throws
  tl::Runtime rt;
  tl::Package a = rt.open(path);
  tl::Package b = a;
  tl::Package c = std::move(a);
  expect(!a && b && c && b.get() == c.get(), "copy shares, move empties");
  try {
    a.kernel("axpy");
    expect(false, "moved-from package throws");
  } catch (const tl::Error& e) {
    expect(e.status() == TL_ERROR_INVALID_ARGUMENT && std::string(e.what()) == "tl::Package is empty (moved from)",
           "moved-from package throws");
  }
  tl::Kernel k = c.kernel("axpy");
  tl::Kernel k2 = std::move(k);
  expect(!k && run_axpy(k2, 2.0f), "moved kernel works, moved-from is empty");
  tl::Status st = k.try_launch(1.0);
  expect(!st.ok() && st.message() == "tl::Kernel is empty (moved from)", "moved-from kernel: try_launch status");
  // the C handle works with the generated header's wrappers and Kernel::check
  expect(k2.get() != nullptr && std::strcmp(k2.desc().name, "axpy") == 0 && k2.num_params() == 3 &&
             k2.param(1).access == TL_ACCESS_READWRITE,
         "descriptor");
}

template <class F>
static void expect_error(const std::string& what, tl_status_t status, const std::string& needle, F&& f) {
  try {
    f();
    expect(false, what + ": no exception");
  } catch (const tl::Error& e) {
    const bool ok = e.status() == status && std::string(e.what()).find(needle) != std::string::npos;
    expect(ok, what + ": [" + std::to_string(e.status()) + "] " + e.what());
  }
}

static void errors(const char* path) {
  tl::Runtime rt;
  expect_error("missing package", TL_ERROR_NOT_FOUND, "/nonexistent/x.tlpkg", [&] { rt.open("/nonexistent/x.tlpkg"); });
  tl::Result<tl::Package> r = rt.try_open("/nonexistent/x.tlpkg");
  expect(!r && r.status().code() == TL_ERROR_NOT_FOUND && !r.status().message().empty(), "try_open: Result status");
  tl::Package pkg = rt.try_open(path).value();
  expect(pkg.device_name() == "cpu" && pkg.device().device_type == kDLCPU && pkg.device().device_id == 0,
         "Package::device(): the fixture's bundle runs on the CPU");
  tl_package_open_options_t oo;
  tl_package_open_options_initialize(&oo);
  expect(rt.try_open(path, oo).value().device_name() == "cpu", "try_open with options: the CPU bundle");
  oo.device_type = kDLROCM;
  expect_error("open for a device without a driver", TL_ERROR_UNSUPPORTED, "no driver for DLPack device kDLROCM",
               [&] { rt.open(path, oo); });
  expect_error("missing kernel", TL_ERROR_NOT_FOUND, "nope", [&] { pkg.kernel("nope"); });
  tl::Kernel axpy = pkg.kernel("axpy");
  std::vector<float> x(4, 1.0f), y(4, 0.0f);
  std::vector<double> d(4);
  std::vector<int32_t> i32(4);
  auto tx = tl::TensorView::of(x, {4}), ty = tl::TensorView::of(y, {4});
  expect_error("argument count", TL_ERROR_INVALID_ARGUMENT, "kernel axpy takes 3 arguments, got 2",
               [&] { axpy.launch(tx, ty); });
  expect_error("scalar for a tensor", TL_ERROR_INVALID_ARGUMENT, "argument 'y' (#1) is a tensor, got a scalar",
               [&] { axpy.launch(tx, 1.0, 2.0); });
  expect_error("tensor for a scalar", TL_ERROR_INVALID_ARGUMENT, "argument 'alpha' (#2) is a scalar, got a TensorView",
               [&] { axpy.launch(tx, ty, tx); });
  expect_error("wrong dtype (runtime check)", TL_ERROR_INVALID_ARGUMENT, "expected dtype float32, got float64",
               [&] { axpy.launch(tl::TensorView::of(d, {4}), ty, 1.0); });
  expect_error("wrong rank (runtime check)", TL_ERROR_INVALID_ARGUMENT, "rank",
               [&] { axpy.launch(tl::TensorView::of(x, {2, 2}), ty, 1.0); });
  const std::vector<float>& cy = y;
  expect_error("const view written", TL_ERROR_INVALID_ARGUMENT, "argument 'y' (#1) is written by the kernel",
               [&] { axpy.launch(tx, tl::TensorView::of(cy, {4}), 1.0); });
  expect_error("view outside its memory", TL_ERROR_INVALID_ARGUMENT, "outside the 4 elements",
               [&] { tl::TensorView::of(x, {5}); });
  expect_error("strides outside its memory", TL_ERROR_INVALID_ARGUMENT, "offsets 0 .. 6",
               [&] { tl::TensorView::of(x, {2, 2}, {3, 3}); });
  expect_error("negative stride below the start", TL_ERROR_INVALID_ARGUMENT, "offsets -3 .. 0",
               [&] { tl::TensorView::of(x, {4}, {-1}); });
  expect_error("element count overflow", TL_ERROR_INVALID_ARGUMENT, "overflows int64",
               [&] { tl::TensorView::of(x.data(), {INT64_C(1) << 40, INT64_C(1) << 40}); });
  std::vector<float> none;
  expect_error("view of an empty vector", TL_ERROR_INVALID_ARGUMENT, "outside the 0 elements",
               [&] { tl::TensorView::of(none, {4}); });
  expect_error("view outside a Span", TL_ERROR_INVALID_ARGUMENT, "outside the 2 elements",
               [&] { tl::TensorView::of(tl::Span<float>(x.data(), 2), {4}); });
  float carr[4] = {1, 2, 3, 4};
  std::array<float, 4> arr{};
  axpy.launch(tl::TensorView::of(carr, {4}), tl::TensorView::of(arr, {4}), 1.0f);
  axpy.launch(tl::TensorView::of(tl::Span<const float>(carr, 4), {4}), tl::TensorView::of(arr, {4}), 1.0f);
  expect(arr[0] == 2.0f && arr[3] == 8.0f && tl::TensorView::of(none, {0}).ndim() == 1,
         "C array, std::array, Span and empty views");
  expect_error("rank above TL_MAX_RANK", TL_ERROR_INVALID_ARGUMENT, "at most 8",
               [&] { tl::TensorView::of(x, {1, 1, 1, 1, 1, 1, 1, 1, 1}); });
  tl::Kernel fill = pkg.kernel("fill_i32");
  expect_error("float for an integer scalar", TL_ERROR_INVALID_ARGUMENT, "argument 'value' (#1) is an integer scalar",
               [&] { fill.launch(tl::TensorView::of(i32, {4}), 1.5); });
  fill.launch(tl::TensorView::of(i32, {4}), 7);
  expect(std::all_of(i32.begin(), i32.end(), [](int32_t v) { return v == 7; }), "fill_i32 through launch");
  // tl_kernel_launch_ex through launch_on / launch_grid_on: the CPU ignores the stream
  fill.launch_on(nullptr, tl::TensorView::of(i32, {4}), 3);
  fill.launch_grid_on({1}, reinterpret_cast<void*>(0x1234), tl::TensorView::of(i32, {2}), 5);
  pkg.synchronize();
  expect(i32[0] == 5 && i32[1] == 5 && i32[2] == 3 && i32[3] == 3 && pkg.try_synchronize(nullptr).ok(),
         "launch_on, launch_grid_on and synchronize on the CPU");
  expect(std::all_of(y.begin(), y.end(), [](float v) { return v == 0.0f; }), "nothing ran on refused launches");
  tl::Kernel fail = pkg.kernel("fail");
  tl::Status st = fail.try_launch(tx);
  expect(!st && st.code() != TL_OK && !st.message().empty(), "kernel failure: try_launch status: " + st.message());
  // a negative stride view inside its memory is accepted and addresses backwards
  std::vector<float> rev(4, 0.0f);
  float* last = rev.data() + 3;
  axpy.launch(tx, tl::TensorView::of(last, {4}, {-1}), 2.0f);
  expect(rev[0] == 2.0f && rev[3] == 2.0f, "negative strides");
  // Kernel::check turns a C wrapper's status into tl::Error with the runtime's message
  expect_error("Kernel::check", TL_ERROR_INVALID_ARGUMENT, "kernel axpy", [&] {
    tl_value_t v[1] = {{nullptr, 0, 0.0}};
    axpy.check(tl_kernel_launch(axpy.get(), v, 1, nullptr));
  });
  // the package released through the C API behind the handles' back: clean errors, no crash
  tl::Package other = rt.open(path);
  tl::Kernel ax2 = other.kernel("axpy");
  tl_package_release(other.get());
  tl::Status rs = ax2.try_launch(tx, ty, 1.0f);
  expect(rs.code() == TL_ERROR_INVALID_ARGUMENT && rs.message().find("released") != std::string::npos,
         "launch after a C-level release: " + rs.message());
  expect_error("launch after a C-level release", TL_ERROR_INVALID_ARGUMENT, "released",
               [&] { ax2.launch(tx, ty, 1.0f); });
  // (the RAII handle's own release at scope exit is then a detected double release: no crash)
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  try {
    if (std::string(argv[1]) == "lifetimes") lifetimes(argv[2]);
    else if (std::string(argv[1]) == "errors") errors(argv[2]);
    else return 2;
  } catch (const tl::Error& e) {
    std::printf("FAIL uncaught tl::Error [%d] %s\n", e.status(), e.what());
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
