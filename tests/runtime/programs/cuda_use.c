/* cuda_use.c - drives the CUDA device of libtl_runtime on the CUDA fixture package
 * (tests/runtime/cuda_fixture.py): on a real GPU (gpu/run_cuda_gpu.sh, mode "check") and on the stub
 * libcuda (test_cuda_device.py, modes "open" and "run").
 *   cuda_use PKG DEVICE_TYPE DEVICE_ID MODE
 * MODE open: tl_package_open_ex only. run / check: also allocates device buffers through libcuda
 * itself ($TL_LIBCUDA or libcuda.so.1, the primary context made current), launches axpy (blocking,
 * strided x, y with a byte_offset), copy2d (a transposed, non-contiguous source, tl_kernel_launch_ex
 * on a stream of its own, then tl_package_synchronize(stream)) and fill_i64 (explicit grid, legacy
 * stream, tl_package_synchronize(NULL)), then the refusals (a host tensor, a grid over the device's
 * limit). check compares every result with host math. Prints "open ST MSG", "device NAME TYPE ID
 * target T", "ptr NAME 0x..", "launch WHAT ST MSG", "check WHAT ok|FAIL ..." and "done". */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <tl/runtime.h>
#include <unistd.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
static struct {
  CUresult (*init)(unsigned);
  CUresult (*device_get)(int*, int);
  CUresult (*retain)(void**, int);
  CUresult (*set_current)(void*);
  CUresult (*mem_alloc)(CUdeviceptr*, size_t);
  CUresult (*mem_free)(CUdeviceptr);
  CUresult (*htod)(CUdeviceptr, const void*, size_t);
  CUresult (*dtoh)(void*, CUdeviceptr, size_t);
  CUresult (*stream_create)(void**, unsigned);
  CUresult (*stream_destroy)(void*);
} cu;

static int failures;

static void* sym(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (p == NULL) {
    printf("FAIL libcuda has no %s\n", name);
    exit(1);
  }
  return p;
}

#define LOAD(field, name) do { void* p_ = sym(lib, name); memcpy(&cu.field, &p_, sizeof p_); } while (0)
#define CU(call) do { CUresult r_ = (call); if (r_ != 0) { printf("FAIL %s = %d\n", #call, r_); exit(1); } } while (0)

static void driver_init(int device_id) {
  const char* path = getenv("TL_LIBCUDA");
  void* lib = dlopen(path && path[0] ? path : "libcuda.so.1", RTLD_NOW);
  if (lib == NULL) {
    printf("FAIL dlopen libcuda: %s\n", dlerror());
    exit(1);
  }
  LOAD(init, "cuInit"); LOAD(device_get, "cuDeviceGet"); LOAD(retain, "cuDevicePrimaryCtxRetain");
  LOAD(set_current, "cuCtxSetCurrent"); LOAD(mem_alloc, "cuMemAlloc_v2"); LOAD(mem_free, "cuMemFree_v2");
  LOAD(htod, "cuMemcpyHtoD_v2"); LOAD(dtoh, "cuMemcpyDtoH_v2"); LOAD(stream_create, "cuStreamCreate");
  LOAD(stream_destroy, "cuStreamDestroy_v2");
  int dev;
  void* ctx;
  CU(cu.init(0));
  CU(cu.device_get(&dev, device_id));
  CU(cu.retain(&ctx, dev));
  CU(cu.set_current(ctx));
}

static CUdeviceptr dalloc(const char* name, size_t bytes) {
  CUdeviceptr p = 0;
  CU(cu.mem_alloc(&p, bytes));
  printf("ptr %s 0x%llx\n", name, p);
  return p;
}

static DLTensor tensor(CUdeviceptr data, int device_id, int64_t* shape, int64_t* strides, int ndim, uint8_t code,
                       uint8_t bits, uint64_t byte_offset) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = (void*)(uintptr_t)data;
  t.device.device_type = kDLCUDA;
  t.device.device_id = device_id;
  t.ndim = ndim;
  t.dtype.code = code;
  t.dtype.bits = bits;
  t.dtype.lanes = 1;
  t.shape = shape;
  t.strides = strides;
  t.byte_offset = byte_offset;
  return t;
}

static void report(const char* what, tl_status_t st, tl_runtime_t* rt) {
  printf("launch %s %d %s\n", what, (int)st, st == TL_OK ? "" : tl_runtime_last_error(rt));
}

int main(int argc, char** argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: %s PKG DEVICE_TYPE DEVICE_ID open|run|check\n", argv[0]);
    return 2;
  }
  const char* mode = argv[4];
  int device_id = atoi(argv[3]);
  int check = strcmp(mode, "check") == 0;
  setvbuf(stdout, NULL, _IONBF, 0);
  tl_runtime_t* rt = NULL;
  tl_package_t* pkg = NULL;
  if (tl_runtime_create(NULL, &rt) != TL_OK) return 1;
  tl_package_open_options_t oo;
  tl_package_open_options_initialize(&oo);
  oo.device_type = atoi(argv[2]);
  oo.device_id = device_id;
  tl_status_t st = tl_package_open_ex(rt, argv[1], &oo, &pkg);
  printf("open %d %s\n", (int)st, tl_runtime_last_error(rt));
  if (st != TL_OK) {
    tl_runtime_release(rt);
    return 0;
  }
  DLDevice d = tl_package_device(pkg);
  printf("device %s %d %d target %s\n", tl_package_device_name(pkg), (int)d.device_type, (int)d.device_id,
         tl_package_target(pkg));
  if (strcmp(mode, "open") == 0) goto out;
  if (d.device_type == kDLCPU) { /* the CPU bundle of the same kernels: axpy on host memory */
    tl_kernel_t* k = NULL;
    float x[5] = {1, 2, 3, 4, 5}, y[5] = {1, 1, 1, 1, 1};
    int64_t n[1] = {5};
    DLTensor tx = tensor((CUdeviceptr)(uintptr_t)x, 0, n, NULL, 1, kDLFloat, 32, 0);
    DLTensor ty = tensor((CUdeviceptr)(uintptr_t)y, 0, n, NULL, 1, kDLFloat, 32, 0);
    tx.device.device_type = ty.device.device_type = kDLCPU;
    tl_value_t a[3] = {{&tx, 0, 0.0}, {&ty, 0, 0.0}, {NULL, 0, 2.0}};
    if (tl_package_kernel(pkg, "axpy", &k) != TL_OK) return 1;
    tl_launch_ex_options_t lo;
    tl_launch_ex_options_initialize(&lo);
    lo.stream = (void*)0x1234; /* ignored by the CPU */
    report("cpu-axpy", tl_kernel_launch_ex(k, a, 3, NULL, &lo), rt);
    report("cpu-sync", tl_package_synchronize(pkg, NULL), rt);
    int ok = 1;
    for (int i = 0; i < 5; ++i) ok &= y[i] == 1.0f + 2.0f * x[i];
    printf("check cpu-axpy %s\n", ok ? "ok" : "FAIL");
    failures += !ok;
    goto out;
  }
  driver_init(device_id);
  tl_kernel_t *axpy = NULL, *copy2d = NULL, *fill = NULL;
  if (tl_package_kernel(pkg, "axpy", &axpy) != TL_OK || tl_package_kernel(pkg, "copy2d", &copy2d) != TL_OK ||
      tl_package_kernel(pkg, "fill_i64", &fill) != TL_OK) {
    printf("FAIL kernels: %s\n", tl_runtime_last_error(rt));
    return 1;
  }
  /* axpy: x strided (every second element), y from byte 16 of its buffer */
  enum { N = 1000, M2 = 33, N2 = 300, NF = 100 };
  static float hx[2 * N], hy[N + 4], ry[N + 4];
  for (int i = 0; i < 2 * N; ++i) hx[i] = 0.5f * (float)i - 7.0f;
  for (int i = 0; i < N + 4; ++i) hy[i] = 1.0f + (float)i;
  CUdeviceptr dx = dalloc("x", sizeof hx), dy = dalloc("y", sizeof hy);
  CU(cu.htod(dx, hx, sizeof hx));
  CU(cu.htod(dy, hy, sizeof hy));
  int64_t n1[1] = {N}, sx[1] = {2};
  DLTensor tx = tensor(dx, device_id, n1, sx, 1, kDLFloat, 32, 0);
  DLTensor ty = tensor(dy, device_id, n1, NULL, 1, kDLFloat, 32, 16);
  tl_value_t a_axpy[3] = {{&tx, 0, 0.0}, {&ty, 0, 0.0}, {NULL, 0, 2.5}};
  report("axpy", tl_kernel_launch(axpy, a_axpy, 3, NULL), rt);

  /* copy2d: x is the transpose view (M2, N2) with strides (1, M2) of an (N2, M2) buffer */
  static float hs[N2 * M2], ho[M2 * N2];
  for (int i = 0; i < N2 * M2; ++i) hs[i] = (float)(i % 977) * 0.25f;
  CUdeviceptr ds = dalloc("src", sizeof hs), dout = dalloc("out", sizeof ho);
  CU(cu.htod(ds, hs, sizeof hs));
  int64_t s2[2] = {M2, N2}, st2[2] = {1, M2};
  DLTensor ts = tensor(ds, device_id, s2, st2, 2, kDLFloat, 32, 0);
  DLTensor to = tensor(dout, device_id, s2, NULL, 2, kDLFloat, 32, 0);
  tl_value_t a_copy[2] = {{&ts, 0, 0.0}, {&to, 0, 0.0}};
  void* stream = NULL;
  CU(cu.stream_create(&stream, 1 /* CU_STREAM_NON_BLOCKING */));
  printf("ptr stream %p\n", stream);
  tl_launch_ex_options_t lo;
  tl_launch_ex_options_initialize(&lo);
  lo.stream = stream;
  report("copy2d", tl_kernel_launch_ex(copy2d, a_copy, 2, NULL, &lo), rt);
  report("sync-stream", tl_package_synchronize(pkg, stream), rt);

  /* fill_i64: explicit grid, legacy default stream, then a whole-device synchronize */
  static int64_t hf[NF];
  CUdeviceptr df = dalloc("fill", sizeof hf);
  int64_t nf[1] = {NF};
  DLTensor tf = tensor(df, device_id, nf, NULL, 1, kDLInt, 64, 0);
  tl_value_t a_fill[2] = {{&tf, 0, 0.0}, {NULL, -7, 0.0}};
  int64_t grid[3] = {2, 1, 1};
  report("fill", tl_kernel_launch_ex(fill, a_fill, 2, grid, NULL), rt);
  report("sync-all", tl_package_synchronize(pkg, NULL), rt);

  /* refusals: a host tensor, a tensor of another device id, a grid over the device's y limit */
  int64_t host_shape[1] = {4};
  float host[4] = {0};
  DLTensor th = tensor((CUdeviceptr)(uintptr_t)host, device_id, host_shape, NULL, 1, kDLFloat, 32, 0);
  th.device.device_type = kDLCPU;
  tl_value_t a_host[3] = {{&th, 0, 0.0}, {&ty, 0, 0.0}, {NULL, 0, 1.0}};
  report("host-tensor", tl_kernel_launch(axpy, a_host, 3, NULL), rt);
  DLTensor tother = tx;
  tother.device.device_id = device_id + 1;
  tl_value_t a_other[3] = {{&tother, 0, 0.0}, {&ty, 0, 0.0}, {NULL, 0, 1.0}};
  report("other-device", tl_kernel_launch(axpy, a_other, 3, NULL), rt);
  int64_t big[3] = {1, 70000, 1};
  report("grid-limit", tl_kernel_launch_ex(fill, a_fill, 2, big, NULL), rt);

  /* fork(): CUDA does not survive it; the child's launch is refused with a message, and its
   * release of the inherited package frees host memory only */
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    report("fork-child", tl_kernel_launch(axpy, a_axpy, 3, NULL), rt);
    tl_package_release(pkg);
    tl_runtime_release(rt);
    _exit(0);
  }
  int wstatus = 0;
  waitpid(child, &wstatus, 0);
  printf("fork child exit %d\n", WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
  if (check) {
    CU(cu.dtoh(ry, dy, sizeof ry));
    int bad = 0;
    for (int i = 0; i < N + 4; ++i) {
      float want = i < 4 ? hy[i] : 2.5f * hx[2 * (i - 4)] + hy[i];
      if (ry[i] != want && bad++ < 3) printf("FAIL axpy y[%d] = %g, want %g\n", i, (double)ry[i], (double)want);
    }
    printf("check axpy %s (%d elements, x stride 2, y byte_offset 16)\n", bad ? "FAIL" : "ok", N);
    failures += bad != 0;
    CU(cu.dtoh(ho, dout, sizeof ho));
    bad = 0;
    for (int r = 0; r < M2; ++r)
      for (int c = 0; c < N2; ++c)
        if (ho[r * N2 + c] != hs[c * M2 + r] && bad++ < 3)
          printf("FAIL copy2d out[%d,%d] = %g, want %g\n", r, c, (double)ho[r * N2 + c], (double)hs[c * M2 + r]);
    printf("check copy2d %s (%dx%d from a transposed view, on a stream)\n", bad ? "FAIL" : "ok", M2, N2);
    failures += bad != 0;
    CU(cu.dtoh(hf, df, sizeof hf));
    bad = 0;
    for (int i = 0; i < NF; ++i)
      if (hf[i] != -7 + i && bad++ < 3) printf("FAIL fill[%d] = %lld\n", i, (long long)hf[i]);
    printf("check fill_i64 %s (%d elements, grid (2,1,1))\n", bad ? "FAIL" : "ok", NF);
    failures += bad != 0;
  }
  cu.stream_destroy(stream);
  cu.mem_free(dx);
  cu.mem_free(dy);
  cu.mem_free(ds);
  cu.mem_free(dout);
  cu.mem_free(df);
out:
  tl_package_release(pkg);
  tl_runtime_release(rt);
  printf("done %d\n", failures);
  return failures != 0;
}
