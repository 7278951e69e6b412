/* dlpack_use.c - tl_value_from_dlpack on the fixture package's add(a[2], b[2], out[2] write), as C11
 * or (renamed .cpp) C++17, with tl/dlpack_compat.h alone or next to a real DLPack 1.x header:
 *   -DTL_DLPACK_HEADER=1: <dlpack/dlpack.h>, =2: <ATen/dlpack.h> (torch); -DTL_DLPACK_AFTER: that
 *   header after tl/runtime.h instead of before.
 * Usage: dlpack_use PACKAGE.tlpkg -> one line per check ("ok ..." or "FAIL ..."), exit 0 when all ok. */
#if defined(TL_DLPACK_HEADER) && !defined(TL_DLPACK_AFTER)
#if TL_DLPACK_HEADER == 1
#include <dlpack/dlpack.h>
#else
#include <ATen/dlpack.h>
#endif
#endif
#include <tl/runtime.h>
#if defined(TL_DLPACK_HEADER) && defined(TL_DLPACK_AFTER)
#if TL_DLPACK_HEADER == 1
#include <dlpack/dlpack.h>
#else
#include <ATen/dlpack.h>
#endif
#endif
#include <stdio.h>
#include <string.h>

static int failures = 0;

static void check(int ok, const char* what, const char* detail) {
  printf("%s %s%s%s\n", ok ? "ok" : "FAIL", what, detail[0] ? ": " : "", detail);
  if (!ok) ++failures;
}

/* A 2x3 float32 CPU tensor over data, DLPack 1.x, with the given flags. */
static DLManagedTensorVersioned make_tensor(float* data, int64_t* shape, uint64_t flags) {
  DLManagedTensorVersioned m;
  memset(&m, 0, sizeof m);
  m.version.major = DLPACK_MAJOR_VERSION;
  m.version.minor = DLPACK_MINOR_VERSION;
  m.flags = flags;
  m.dl_tensor.data = data;
  m.dl_tensor.device.device_type = kDLCPU;
  m.dl_tensor.device.device_id = 0;
  m.dl_tensor.ndim = 2;
  m.dl_tensor.dtype.code = kDLFloat;
  m.dl_tensor.dtype.bits = 32;
  m.dl_tensor.dtype.lanes = 1;
  m.dl_tensor.shape = shape;
  m.dl_tensor.strides = NULL;
  return m;
}

int main(int argc, char** argv) {
  tl_runtime_t* rt = NULL;
  tl_package_t* pkg = NULL;
  tl_kernel_t* add = NULL;
  if (argc != 2) return 2;
  if (tl_runtime_create(NULL, &rt) != TL_OK) return 3;
  if (tl_package_open(rt, argv[1], &pkg) != TL_OK || tl_package_kernel(pkg, "add", &add) != TL_OK) {
    fprintf(stderr, "open failed: %s\n", tl_runtime_last_error(rt));
    return 4;
  }
  float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {10, 20, 30, 40, 50, 60}, out[6] = {0};
  int64_t shape[2] = {2, 3};
  /* inputs handed over read-only, as a producer exporting a const array would */
  DLManagedTensorVersioned ta = make_tensor(a, shape, DLPACK_FLAG_BITMASK_READ_ONLY);
  DLManagedTensorVersioned tb = make_tensor(b, shape, DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED);
  DLManagedTensorVersioned tout = make_tensor(out, shape, 0);
  tl_value_t args[3];
  tl_status_t s0 = tl_value_from_dlpack(add, 0, &ta, &args[0]);
  tl_status_t s1 = tl_value_from_dlpack(add, 1, &tb, &args[1]);
  tl_status_t s2 = tl_value_from_dlpack(add, 2, &tout, &args[2]);
  check(s0 == TL_OK && s1 == TL_OK && s2 == TL_OK && args[2].tensor == &tout.dl_tensor, "fill", tl_runtime_last_error(rt));
  tl_status_t sl = tl_kernel_launch(add, args, 3, NULL);
  int sums = sl == TL_OK;
  for (int i = 0; i < 6; ++i) sums = sums && out[i] == a[i] + b[i];
  check(sums, "launch a+b", tl_runtime_last_error(rt));

  tl_value_t v;
  DLManagedTensorVersioned ro_out = make_tensor(out, shape, DLPACK_FLAG_BITMASK_READ_ONLY);
  tl_status_t s = tl_value_from_dlpack(add, 2, &ro_out, &v);
  check(s == TL_ERROR_INVALID_ARGUMENT && strstr(tl_runtime_last_error(rt), "argument 'out' (#2)") &&
            strstr(tl_runtime_last_error(rt), "read-only"),
        "read-only out refused", tl_runtime_last_error(rt));
  DLManagedTensorVersioned v2 = make_tensor(a, shape, 0);
  v2.version.major = 2;
  s = tl_value_from_dlpack(add, 0, &v2, &v);
  check(s == TL_ERROR_VERSION && strstr(tl_runtime_last_error(rt), "major version 2"), "major 2 refused",
        tl_runtime_last_error(rt));
  s = tl_value_from_dlpack(add, 3, &ta, &v);
  check(s == TL_ERROR_INVALID_ARGUMENT && strstr(tl_runtime_last_error(rt), "param_index 3"), "index 3 refused",
        tl_runtime_last_error(rt));
  s = tl_value_from_dlpack(add, 0, NULL, &v);
  check(s == TL_ERROR_INVALID_ARGUMENT && strstr(tl_runtime_last_error(rt), "argument 'a' (#0): tensor is NULL"),
        "NULL tensor refused", tl_runtime_last_error(rt));
  tl_kernel_t* axpy = NULL;  /* axpy(x, y, alpha): #2 is a scalar */
  s = tl_package_kernel(pkg, "axpy", &axpy) == TL_OK ? tl_value_from_dlpack(axpy, 2, &ta, &v) : TL_ERROR_NOT_FOUND;
  check(s == TL_ERROR_INVALID_ARGUMENT && strstr(tl_runtime_last_error(rt), "argument 'alpha' (#2) is a scalar"),
        "scalar parameter refused", tl_runtime_last_error(rt));
  s = tl_value_from_dlpack(NULL, 0, &ta, &v);
  check(s == TL_ERROR_INVALID_ARGUMENT, "NULL kernel refused", "");
  /* the dtype is still the launch's business: an int32 tensor through the helper fails the launch */
  DLManagedTensorVersioned ti = make_tensor(a, shape, 0);
  ti.dl_tensor.dtype.code = kDLInt;
  s = tl_value_from_dlpack(add, 0, &ti, &args[0]);
  sl = tl_kernel_launch(add, args, 3, NULL);
  check(s == TL_OK && sl == TL_ERROR_INVALID_ARGUMENT &&
            strstr(tl_runtime_last_error(rt), "argument 'a' (#0): expected dtype float32, got int32"),
        "int32 refused by launch", tl_runtime_last_error(rt));
  printf("dlpack %d.%d\n", DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
  tl_package_release(pkg);
  tl_runtime_release(rt);
  return failures == 0 ? 0 : 1;
}
