/* stub_libcuda.c - a stand-in for the NVIDIA driver's libcuda.so.1, for the CUDA device tests on a
 * machine without a GPU (tests/runtime/test_cuda_device.py builds it into DIR/libcuda.so.1 and points
 * TL_LIBCUDA at it). "Device memory" is host memory; kernels do not run.
 * Environment:
 *   TL_STUB_CUDA_LOG=FILE     appends one line per driver call: its name, and for cuLaunchKernel the
 *                             grid, block, shared bytes, stream and the parameter block in hex
 *                             ("loaded" when the library is loaded at all)
 *   TL_STUB_CUDA_FAIL=a,b     these calls (base names, e.g. cuLaunchKernel) return
 *                             TL_STUB_CUDA_FAIL_CODE (default 1, CUDA_ERROR_INVALID_VALUE)
 *   TL_STUB_CUDA_DEVICES=N    the device count (default 1)
 *   TL_STUB_CUDA_CC=X.Y       the compute capability (default 9.0)
 *   TL_STUB_CUDA_NO_LIBRARY=1 cuGetProcAddress finds no cuLibrary* / cuKernel* entry points (a driver < 12.0)
 *   TL_STUB_CUDA_NO_PROC=1    the library exports no cuGetProcAddress at all (checked by the v2 lookup) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
#define EXPORT __attribute__((visibility("default")))

static void logf_(const char* fmt, const char* a) {
  const char* path = getenv("TL_STUB_CUDA_LOG");
  if (path == NULL || path[0] == '\0') return;
  FILE* f = fopen(path, "a");
  if (f == NULL) return;
  fprintf(f, fmt, a);
  fputc('\n', f);
  fclose(f);
}

__attribute__((constructor)) static void loaded(void) { logf_("%s", "loaded"); }

/* Logs the call; returns the injected error for it, or 0. */
static CUresult call(const char* name) {
  logf_("%s", name);
  const char* fail = getenv("TL_STUB_CUDA_FAIL");
  if (fail == NULL) return 0;
  size_t n = strlen(name);
  for (const char* p = fail; (p = strstr(p, name)) != NULL; p += n)
    if ((p == fail || p[-1] == ',') && (p[n] == '\0' || p[n] == ',')) {
      const char* code = getenv("TL_STUB_CUDA_FAIL_CODE");
      return code ? atoi(code) : 1;
    }
  return 0;
}

static CUresult s_cuInit(unsigned f) { (void)f; return call("cuInit"); }
static CUresult s_cuDriverGetVersion(int* v) { *v = 13000; return call("cuDriverGetVersion"); }
static CUresult s_cuGetErrorName(CUresult r, const char** s) {
  *s = r == 1 ? "CUDA_ERROR_INVALID_VALUE" : r == 2 ? "CUDA_ERROR_OUT_OF_MEMORY" : r == 209 ? "CUDA_ERROR_NO_BINARY_FOR_GPU"
     : r == 700 ? "CUDA_ERROR_ILLEGAL_ADDRESS" : r == 100 ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_UNKNOWN";
  return 0;
}
static CUresult s_cuGetErrorString(CUresult r, const char** s) {
  *s = r == 1 ? "invalid argument" : r == 2 ? "out of memory" : r == 209 ? "no kernel image is available for execution on the device"
     : r == 700 ? "an illegal memory access was encountered" : r == 100 ? "no CUDA-capable device is detected" : "unknown error";
  return 0;
}
static CUresult s_cuDeviceGetCount(int* n) {
  const char* d = getenv("TL_STUB_CUDA_DEVICES");
  *n = d ? atoi(d) : 1;
  return call("cuDeviceGetCount");
}
static CUresult s_cuDeviceGet(int* dev, int ordinal) { *dev = ordinal; return call("cuDeviceGet"); }
static CUresult s_cuDeviceGetAttribute(int* v, int attr, int dev) {
  (void)dev;
  const char* cc = getenv("TL_STUB_CUDA_CC");
  int major = 9, minor = 0;
  if (cc) sscanf(cc, "%d.%d", &major, &minor);
  switch (attr) {
    case 1: *v = 1024; break;
    case 5: *v = 2147483647; break;
    case 6: case 7: *v = 65535; break;
    case 75: *v = major; break;
    case 76: *v = minor; break;
    case 97: *v = 232448; break;
    default: *v = 0;
  }
  return call("cuDeviceGetAttribute");
}
static int ctx_obj;
static CUresult s_cuDevicePrimaryCtxRetain(void** ctx, int dev) { (void)dev; *ctx = &ctx_obj; return call("cuDevicePrimaryCtxRetain"); }
static CUresult s_cuDevicePrimaryCtxRelease(int dev) { (void)dev; return call("cuDevicePrimaryCtxRelease"); }
static CUresult s_cuCtxPushCurrent(void* c) { (void)c; return call("cuCtxPushCurrent"); }
static CUresult s_cuCtxPopCurrent(void** c) { *c = &ctx_obj; return call("cuCtxPopCurrent"); }
static CUresult s_cuCtxSetCurrent(void* c) { (void)c; return call("cuCtxSetCurrent"); }
static CUresult s_cuCtxSynchronize(void) { return call("cuCtxSynchronize"); }
static CUresult s_cuStreamSynchronize(void* s) {
  char buf[64];
  snprintf(buf, sizeof buf, "cuStreamSynchronize %p", s);
  CUresult r = call("cuStreamSynchronize");
  logf_("%s", buf);
  return r;
}
static int obj;
static CUresult s_cuModuleLoadDataEx(void** m, const void* img, unsigned n, int* o, void** v) {
  (void)img; (void)n; (void)o; (void)v; *m = &obj; return call("cuModuleLoadDataEx");
}
static CUresult s_cuModuleGetFunction(void** f, void* m, const char* name) { (void)m; *f = &obj; logf_("function %s", name); return call("cuModuleGetFunction"); }
static CUresult s_cuModuleUnload(void* m) { (void)m; return call("cuModuleUnload"); }
static CUresult s_cuLibraryLoadData(void** l, const void* code, int* a, void** b, unsigned c, int* d, void** e, unsigned f) {
  (void)code; (void)a; (void)b; (void)c; (void)d; (void)e; (void)f; *l = &obj; return call("cuLibraryLoadData");
}
static CUresult s_cuLibraryGetKernel(void** k, void* l, const char* name) { (void)l; *k = &obj; logf_("kernel %s", name); return call("cuLibraryGetKernel"); }
static CUresult s_cuLibraryUnload(void* l) { (void)l; return call("cuLibraryUnload"); }
static CUresult s_cuKernelGetFunction(void** f, void* k) { (void)k; *f = &obj; return call("cuKernelGetFunction"); }
static CUresult s_cuFuncSetAttribute(void* f, int a, int v) {
  (void)f;
  char buf[64];
  snprintf(buf, sizeof buf, "cuFuncSetAttribute %d %d", a, v);
  CUresult r = call("cuFuncSetAttribute");
  logf_("%s", buf);
  return r;
}
static CUresult s_cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                 unsigned shared, void* stream, void** params, void** extra) {
  (void)f;
  CUresult r = call("cuLaunchKernel");
  char line[16384];
  int n = snprintf(line, sizeof line, "launch grid %u %u %u block %u %u %u shared %u stream %p params %s extra ", gx, gy,
                   gz, bx, by, bz, shared, stream, params ? "set" : "NULL");
  const unsigned char* buf = NULL;
  size_t size = 0;
  for (int i = 0; extra && extra[i] != NULL; i += 2) {
    if (extra[i] == (void*)1) buf = (const unsigned char*)extra[i + 1];
    if (extra[i] == (void*)2) size = *(const size_t*)extra[i + 1];
  }
  for (size_t i = 0; buf && i < size && n + 3 < (int)sizeof line; ++i) n += snprintf(line + n, sizeof line - n, "%02x", buf[i]);
  logf_("%s", line);
  return r;
}
static CUresult s_cuMemAlloc(unsigned long long* p, size_t n) {
  CUresult r = call("cuMemAlloc");
  if (r == 0) *p = (unsigned long long)(uintptr_t)aligned_alloc(256, (n + 255) / 256 * 256);
  return r;
}
static CUresult s_cuMemFree(unsigned long long p) { free((void*)(uintptr_t)p); return call("cuMemFree"); }
static CUresult s_cuMemcpyHtoD(unsigned long long d, const void* s, size_t n) { memcpy((void*)(uintptr_t)d, s, n); return call("cuMemcpyHtoD"); }
static CUresult s_cuMemcpyDtoH(void* d, unsigned long long s, size_t n) { memcpy(d, (void*)(uintptr_t)s, n); return call("cuMemcpyDtoH"); }
static int stream_obj;
static CUresult s_cuStreamCreate(void** s, unsigned f) { (void)f; *s = &stream_obj; return call("cuStreamCreate"); }
static CUresult s_cuStreamDestroy(void* s) { (void)s; return call("cuStreamDestroy"); }

#define E(n) {#n, (void*)s_##n}
static const struct { const char* name; void* fn; } table[] = {
    E(cuInit), E(cuDriverGetVersion), E(cuGetErrorName), E(cuGetErrorString), E(cuDeviceGetCount), E(cuDeviceGet),
    E(cuDeviceGetAttribute), E(cuDevicePrimaryCtxRetain), E(cuDevicePrimaryCtxRelease), E(cuCtxPushCurrent),
    E(cuCtxPopCurrent), E(cuCtxSetCurrent), E(cuCtxSynchronize), E(cuStreamSynchronize), E(cuModuleLoadDataEx),
    E(cuModuleGetFunction), E(cuModuleUnload), E(cuLibraryLoadData), E(cuLibraryGetKernel), E(cuLibraryUnload),
    E(cuKernelGetFunction), E(cuFuncSetAttribute), E(cuLaunchKernel), E(cuMemAlloc), E(cuMemFree),
    E(cuMemcpyHtoD), E(cuMemcpyDtoH), E(cuStreamCreate), E(cuStreamDestroy),
};

EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version, unsigned long long flags, int* status) {
  (void)flags;
  char buf[96];
  snprintf(buf, sizeof buf, "cuGetProcAddress %s %d", symbol, version);
  logf_("%s", buf);
  *pfn = NULL;
  if (getenv("TL_STUB_CUDA_NO_PROC")) return 500;
  const char* nolib = getenv("TL_STUB_CUDA_NO_LIBRARY");
  if (nolib && nolib[0] == '1' && (strncmp(symbol, "cuLibrary", 9) == 0 || strncmp(symbol, "cuKernel", 8) == 0)) {
    if (status) *status = 1;
    return 0;
  }
  for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i)
    if (strcmp(table[i].name, symbol) == 0) {
      *pfn = table[i].fn;
      if (status) *status = 0;
      return call("cuGetProcAddress") == 0 ? 0 : 1;
    }
  if (status) *status = 1;
  return 0;
}

/* the exports a program that links or dlsyms libcuda directly uses (cuda_use.c) */
EXPORT CUresult cuDriverGetVersion(int* v) { return s_cuDriverGetVersion(v); }
EXPORT CUresult cuInit(unsigned f) { return s_cuInit(f); }
EXPORT CUresult cuDeviceGet(int* d, int o) { return s_cuDeviceGet(d, o); }
EXPORT CUresult cuDevicePrimaryCtxRetain(void** c, int d) { return s_cuDevicePrimaryCtxRetain(c, d); }
EXPORT CUresult cuCtxSetCurrent(void* c) { return s_cuCtxSetCurrent(c); }
EXPORT CUresult cuMemAlloc_v2(unsigned long long* p, size_t n) { return s_cuMemAlloc(p, n); }
EXPORT CUresult cuMemFree_v2(unsigned long long p) { return s_cuMemFree(p); }
EXPORT CUresult cuMemcpyHtoD_v2(unsigned long long d, const void* s, size_t n) { return s_cuMemcpyHtoD(d, s, n); }
EXPORT CUresult cuMemcpyDtoH_v2(void* d, unsigned long long s, size_t n) { return s_cuMemcpyDtoH(d, s, n); }
EXPORT CUresult cuStreamCreate(void** s, unsigned f) { return s_cuStreamCreate(s, f); }
EXPORT CUresult cuStreamDestroy_v2(void* s) { return s_cuStreamDestroy(s); }
