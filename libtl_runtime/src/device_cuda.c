/* device_cuda.c - the CUDA device: NVIDIA GPUs through the driver API of libcuda.so.1.
 *
 * Nothing links against the CUDA toolkit: probe() dlopens libcuda.so.1 ($TL_LIBCUDA overrides the
 * path, for tests) and resolves every driver function through cuGetProcAddress (the versioned
 * cuGetProcAddress_v2 of CUDA 12+, else the 11.3 one); libtl_runtime.so has no NEEDED entry for
 * libcuda, and a host that never opens a CUDA bundle never loads it (probe runs only when a
 * manifest's CUDA bundle would win, device.c).
 *
 * Payload (format "elf-shared-object+cuda"): a host shared object for this machine with the
 * ordinary bundle table (tl_bundle_query), loaded the CPU's way, whose kernels have entry == NULL
 * and a device_entry in the device image it carries (tl_bundle_t.device_image: a cubin or PTX).
 * The image is loaded into the device's primary context (the one torch and CuPy use) with
 * cuLibraryLoadData where the driver has it (CUDA >= 12.0), else cuModuleLoadDataEx. The primary
 * context is pushed around every driver call and popped again, so the caller's current context is
 * left as it was.
 *
 * Launch: the runtime has checked the arguments on the host (launch.c); the device packs them
 * into the by-value parameter block of tl/bundle_abi.h (TL_CUDA_ARG_BYTES) and enqueues the kernel
 * with cuLaunchKernel(extra = CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE) on the launch's stream,
 * asynchronously. A grid over the device's limits is refused, not launched wrong. Every CUresult
 * becomes a tl status with a message naming the driver call, the driver's error name and text, and
 * the kernel. fork(): CUDA does not survive fork, so a child refuses launches with a message, and
 * releasing a package in the child only frees host memory. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "device.h"

/* ---------------------------------------------------------------------------------------------
 * The few driver API types and constants used (values from cuda.h, fixed by the driver ABI) */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUlib_st* CUlibrary;
typedef struct CUkern_st* CUkernel;
typedef struct CUstream_st* CUstream;
typedef unsigned long long CUdeviceptr;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_INVALID_IMAGE 200
#define CUDA_ERROR_NO_BINARY_FOR_GPU 209
#define CUDA_ERROR_INVALID_PTX 218
#define CUDA_ERROR_UNSUPPORTED_PTX_VERSION 222
#define CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK 1
#define CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X 5
#define CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y 6
#define CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z 7
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN 97
#define CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8
#define CU_GET_PROC_ADDRESS_LEGACY_STREAM 1
#define CU_LAUNCH_PARAM_END ((void*)0x00)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void*)0x01)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void*)0x02)
#define TL_CUDA_STATIC_SHARED_LIMIT (48 * 1024) /* dynamic shared memory above this needs the opt-in */

typedef CUresult (*pfn_get_proc_v2_t)(const char*, void**, int, unsigned long long, int*);
typedef CUresult (*pfn_get_proc_t)(const char*, void**, int, unsigned long long);

/* The driver entry points, resolved once by probe (guarded by device.c's probe lock, read-only
 * afterwards). */
static struct {
  void* lib;
  int version;                       /* cuDriverGetVersion */
  int have_library;                  /* cuLibrary* resolved (driver >= 12.0) */
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int*);
  CUresult (*cuGetErrorName)(CUresult, const char**);
  CUresult (*cuGetErrorString)(CUresult, const char**);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxPushCurrent)(CUcontext);
  CUresult (*cuCtxPopCurrent)(CUcontext*);
  CUresult (*cuCtxSynchronize)(void);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuLibraryLoadData)(CUlibrary*, const void*, int*, void**, unsigned, int*, void**, unsigned);
  CUresult (*cuLibraryGetKernel)(CUkernel*, CUlibrary, const char*);
  CUresult (*cuLibraryUnload)(CUlibrary);
  CUresult (*cuKernelGetFunction)(CUfunction*, CUkernel);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void**, void**);
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
} drv;

static pid_t probe_pid;              /* the process that initialised the driver */

/* One loaded CUDA bundle (tl_payload_t.state). */
typedef struct {
  int32_t device_id;
  CUdevice device;
  CUcontext ctx;                     /* the device's primary context, retained */
  CUlibrary library;                 /* or module, whichever loaded the image */
  CUmodule module;
  uint32_t num_kernels;
  CUfunction* functions;             /* per kernel of the bundle, in table order */
  int64_t max_grid[3];               /* the device's grid limits */
  pid_t pid;                         /* the process that loaded it (fork check) */
} cuda_state_t;

/* "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for r, into buf. */
static const char* cu_describe(CUresult r, char* buf, size_t cap) {
  const char* name = NULL;
  const char* text = NULL;
  if (drv.cuGetErrorName == NULL || drv.cuGetErrorName(r, &name) != CUDA_SUCCESS) name = NULL;
  if (drv.cuGetErrorString == NULL || drv.cuGetErrorString(r, &text) != CUDA_SUCCESS) text = NULL;
  if (name != NULL && text != NULL)
    snprintf(buf, cap, "%s (%s)", name, text);
  else if (name != NULL)
    snprintf(buf, cap, "%s", name);
  else
    snprintf(buf, cap, "CUresult %d", (int)r);
  return buf;
}

static tl_status_t cu_status(CUresult r) {
  switch (r) {
    case CUDA_ERROR_OUT_OF_MEMORY: return TL_ERROR_OUT_OF_MEMORY;
    case CUDA_ERROR_INVALID_IMAGE: return TL_ERROR_BAD_PACKAGE;
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION: return TL_ERROR_UNSUPPORTED;
    default: return TL_ERROR_INTERNAL;
  }
}

/* Sets rt's error for a failed driver call: "<what>: <call> failed: <name> (<text>)". */
static tl_status_t cu_error(const tl_runtime_t* rt, const char* what, const char* call, CUresult r) {
  char buf[256];
  return tl__set_error(rt, cu_status(r), "%s: %s failed: %s", what, call, cu_describe(r, buf, sizeof buf));
}

/* ---------------------------------------------------------------------------------------------
 * probe: dlopen, cuGetProcAddress, cuInit, a device count > 0 */

typedef struct {
  const char* name;                  /* the base name cuGetProcAddress takes */
  void** slot;
  int optional;                      /* 1: may be absent (cuLibrary*: CUDA >= 12.0) */
} cu_symbol_t;

#define SYM(n, opt) {#n, (void**)(void*)&drv.n, opt}

static int resolve(char* why, size_t cap) {
  void* v2 = dlsym(drv.lib, "cuGetProcAddress_v2");
  void* v1 = v2 == NULL ? dlsym(drv.lib, "cuGetProcAddress") : NULL;
  void* ver = dlsym(drv.lib, "cuDriverGetVersion");
  pfn_get_proc_v2_t get_v2 = NULL;
  pfn_get_proc_t get_v1 = NULL;
  memcpy(&get_v2, &v2, sizeof v2);
  memcpy(&get_v1, &v1, sizeof v1);
  memcpy(&drv.cuDriverGetVersion, &ver, sizeof ver);
  if (get_v2 == NULL && get_v1 == NULL) {
    snprintf(why, cap, "libcuda has no cuGetProcAddress (a driver older than CUDA 11.3)");
    return 0;
  }
  if (drv.cuDriverGetVersion == NULL || drv.cuDriverGetVersion(&drv.version) != CUDA_SUCCESS) {
    snprintf(why, cap, "cuDriverGetVersion failed or is missing in libcuda");
    return 0;
  }
  /* the ABI of each entry point as of CUDA 12.0 (or the driver's own version when older): asking
   * for a version above the driver's is an error */
  int want = drv.version < 12000 ? drv.version : 12000;
  const cu_symbol_t syms[] = {
      SYM(cuInit, 0), SYM(cuGetErrorName, 0), SYM(cuGetErrorString, 0), SYM(cuDeviceGetCount, 0),
      SYM(cuDeviceGet, 0), SYM(cuDeviceGetAttribute, 0), SYM(cuDevicePrimaryCtxRetain, 0),
      SYM(cuDevicePrimaryCtxRelease, 0), SYM(cuCtxPushCurrent, 0), SYM(cuCtxPopCurrent, 0),
      SYM(cuCtxSynchronize, 0), SYM(cuStreamSynchronize, 0), SYM(cuModuleLoadDataEx, 0),
      SYM(cuModuleGetFunction, 0), SYM(cuModuleUnload, 0), SYM(cuFuncSetAttribute, 0), SYM(cuLaunchKernel, 0),
      SYM(cuMemAlloc, 0), SYM(cuMemFree, 0), SYM(cuLibraryLoadData, 1), SYM(cuLibraryGetKernel, 1),
      SYM(cuLibraryUnload, 1), SYM(cuKernelGetFunction, 1),
  };
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; ++i) {
    void* fn = NULL;
    CUresult r = get_v2 != NULL ? get_v2(syms[i].name, &fn, want, CU_GET_PROC_ADDRESS_LEGACY_STREAM, NULL)
                                : get_v1(syms[i].name, &fn, want, CU_GET_PROC_ADDRESS_LEGACY_STREAM);
    if (r != CUDA_SUCCESS) fn = NULL;
    if (fn == NULL && !syms[i].optional) {
      snprintf(why, cap, "cuGetProcAddress found no %s in libcuda (driver version %d)", syms[i].name, drv.version);
      return 0;
    }
    *syms[i].slot = fn;
  }
  drv.have_library = drv.cuLibraryLoadData != NULL && drv.cuLibraryGetKernel != NULL && drv.cuLibraryUnload != NULL &&
                     drv.cuKernelGetFunction != NULL;
  return 1;
}

static int cuda_probe(char* why, size_t cap) {
  const char* path = getenv("TL_LIBCUDA");
  if (path == NULL || path[0] == '\0') path = "libcuda.so.1";
  drv.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (drv.lib == NULL) {
    const char* err = dlerror();
    snprintf(why, cap, "the NVIDIA driver library %s cannot be loaded (%s)", path, err ? err : "dlopen failed");
    return 0;
  }
  if (!resolve(why, cap)) goto fail;
  char buf[200];
  CUresult r = drv.cuInit(0);
  if (r != CUDA_SUCCESS) {
    snprintf(why, cap, "cuInit failed: %s", cu_describe(r, buf, sizeof buf));
    goto fail;
  }
  int count = 0;
  r = drv.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS) {
    snprintf(why, cap, "cuDeviceGetCount failed: %s", cu_describe(r, buf, sizeof buf));
    goto fail;
  }
  if (count <= 0) {
    snprintf(why, cap, "the NVIDIA driver reports no CUDA device on this host");
    goto fail;
  }
  probe_pid = getpid();
  return 1;
fail:
  dlclose(drv.lib);
  memset(&drv, 0, sizeof drv);
  return 0;
}

/* ---------------------------------------------------------------------------------------------
 * fits: the manifest's "sm" against the device's compute capability */

/* "sm_90a" -> kind 's', 9, 0, suffix 'a'; "compute_80" -> 'c', 8, 0, 0. 0 when malformed. */
static int parse_sm(const char* sm, char* kind, int* major, int* minor, char* suffix) {
  const char* p;
  if (strncmp(sm, "sm_", 3) == 0) {
    *kind = 's';
    p = sm + 3;
  } else if (strncmp(sm, "compute_", 8) == 0) {
    *kind = 'c';
    p = sm + 8;
  } else {
    return 0;
  }
  int n = 0, digits = 0;
  while (*p >= '0' && *p <= '9' && digits < 4) n = n * 10 + (*p++ - '0'), ++digits;
  if (digits < 2) return 0;
  *suffix = 0;
  if (*p == 'a' || *p == 'f') *suffix = *p++;
  if (*p != '\0') return 0;
  *major = n / 10;
  *minor = n % 10;
  return 1;
}

static int cuda_fits(int32_t device_id, const char* sm, char* why, size_t cap) {
  char kind, suffix;
  int major, minor;
  if (sm == NULL) {
    snprintf(why, cap, "its manifest entry has no 'sm' (e.g. \"sm_90a\", \"sm_80\", \"compute_80\")");
    return 0;
  }
  if (!parse_sm(sm, &kind, &major, &minor, &suffix)) {
    snprintf(why, cap, "its 'sm' \"%s\" is not sm_XY[a|f] or compute_XY[a]", sm);
    return 0;
  }
  char buf[200];
  int count = 0;
  CUresult r = drv.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS) {
    snprintf(why, cap, "cuDeviceGetCount failed: %s", cu_describe(r, buf, sizeof buf));
    return 0;
  }
  if (device_id < 0 || device_id >= count) {
    snprintf(why, cap, "the driver reports %d CUDA device%s (ids 0..%d)", count, count == 1 ? "" : "s", count - 1);
    return 0;
  }
  CUdevice dev;
  int cc_major = 0, cc_minor = 0;
  if ((r = drv.cuDeviceGet(&dev, device_id)) != CUDA_SUCCESS ||
      (r = drv.cuDeviceGetAttribute(&cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)) != CUDA_SUCCESS ||
      (r = drv.cuDeviceGetAttribute(&cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)) != CUDA_SUCCESS) {
    snprintf(why, cap, "reading its compute capability failed: %s", cu_describe(r, buf, sizeof buf));
    return 0;
  }
  int have = cc_major * 10 + cc_minor, need = major * 10 + minor, ok;
  const char* rule;
  if (suffix == 'a') {           /* arch-specific (wgmma, setmaxnreg...): that exact GPU generation */
    ok = have == need;
    rule = "exactly";
  } else if (kind == 's') {      /* a cubin (sm_XY or family sm_XYf): same major, minor at least Y */
    ok = cc_major == major && cc_minor >= minor;
    rule = "a cubin runs on the same major version with at least minor";
  } else {                       /* PTX: the driver compiles it for any newer GPU */
    ok = have >= need;
    rule = "PTX runs on";
  }
  if (!ok) {
    if (suffix == 'a')
      snprintf(why, cap, "%s needs compute capability exactly %d.%d, the device has %d.%d", sm, major, minor, cc_major,
               cc_minor);
    else if (kind == 's')
      snprintf(why, cap, "%s needs compute capability %d.x with x >= %d (%s), the device has %d.%d", sm, major, minor,
               rule, cc_major, cc_minor);
    else
      snprintf(why, cap, "%s needs compute capability >= %d.%d (%s newer GPUs too), the device has %d.%d", sm, major,
               minor, rule, cc_major, cc_minor);
  }
  return ok;
}

/* ---------------------------------------------------------------------------------------------
 * the primary context around driver calls */

/* Pushes st's context; on failure sets the error. */
static tl_status_t ctx_enter(const tl_runtime_t* rt, CUcontext ctx, const char* what) {
  CUresult r = drv.cuCtxPushCurrent(ctx);
  return r == CUDA_SUCCESS ? TL_OK : cu_error(rt, what, "cuCtxPushCurrent", r);
}

static void ctx_leave(void) {
  CUcontext popped;
  (void)drv.cuCtxPopCurrent(&popped);
}

/* ---------------------------------------------------------------------------------------------
 * payloads */

static void cuda_release_payload(tl_runtime_t* rt, tl_payload_t* p) {
  cuda_state_t* s = (cuda_state_t*)p->state;
  if (s != NULL) {
    /* in a child after fork the driver's state is not ours: only host memory is freed */
    if (s->pid == getpid() && s->ctx != NULL) {
      if (drv.cuCtxPushCurrent(s->ctx) == CUDA_SUCCESS) {
        if (s->library != NULL) (void)drv.cuLibraryUnload(s->library);
        if (s->module != NULL) (void)drv.cuModuleUnload(s->module);
        ctx_leave();
      }
      (void)drv.cuDevicePrimaryCtxRelease(s->device);
    }
    tl__free(rt, s->functions);
    tl__free(rt, s);
    p->state = NULL;
  }
  tl__device_cpu.release_payload(rt, p);
}

/* The bundle's own checks for a CUDA bundle (the runtime's generic ones follow in
 * tl__package_from_payload): the new layout, an image, and every kernel's device fields. */
static tl_status_t check_cuda_bundle(tl_runtime_t* rt, const char* what, const char* variant, const tl_bundle_t* b) {
  if (b == NULL)
    return tl__set_error(rt, TL_ERROR_VERSION, "%s: tl_bundle_query refused ABI version %u", what, TL_BUNDLE_ABI_VERSION);
  if (b->abi_version != TL_BUNDLE_ABI_VERSION || b->struct_size != sizeof(tl_bundle_t) ||
      b->kernel_desc_size != sizeof(tl_kernel_desc_t) || b->param_size != sizeof(tl_param_t))
    return tl__set_error(rt, TL_ERROR_VERSION,
                         "%s: CUDA bundle '%s' has ABI version %u and struct sizes (bundle %u, kernel %u, param %u); "
                         "this runtime needs %u and (%zu, %zu, %zu), the layout with the device fields", what, variant,
                         b->abi_version, b->struct_size, b->kernel_desc_size, b->param_size, TL_BUNDLE_ABI_VERSION,
                         sizeof(tl_bundle_t), sizeof(tl_kernel_desc_t), sizeof(tl_param_t));
  if (b->device_image == NULL || b->device_image_size == 0 || b->device_image_format == NULL ||
      (strcmp(b->device_image_format, "cubin") != 0 && strcmp(b->device_image_format, "ptx") != 0))
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE,
                         "%s: CUDA bundle '%s' carries no device image (device_image, device_image_size and "
                         "device_image_format \"cubin\" or \"ptx\" must be set)", what, variant);
  if (strcmp(b->device_image_format, "ptx") == 0 && b->device_image[b->device_image_size - 1] != '\0')
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE,
                         "%s: CUDA bundle '%s': its PTX image is not NUL-terminated (device_image_size must count the NUL)",
                         what, variant);
  if (b->num_kernels > 0 && b->kernels == NULL) return TL_OK; /* the generic check names it */
  for (uint32_t i = 0; i < b->num_kernels; ++i) {
    const tl_kernel_desc_t* d = &b->kernels[i];
    const char* name = d->name ? d->name : "?";
    if (d->entry != NULL || d->device_entry == NULL || d->device_entry[0] == '\0')
      return tl__set_error(rt, TL_ERROR_BAD_PACKAGE,
                           "%s: CUDA bundle '%s' kernel '%s' must have entry NULL and a device_entry", what, variant, name);
    if (d->block_threads == 0 || d->block_threads > 1024)
      return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: CUDA bundle '%s' kernel '%s': block_threads %u is not in 1..1024",
                           what, variant, name, d->block_threads);
    if (d->workspace_bytes != 0)
      return tl__set_error(rt, TL_ERROR_UNSUPPORTED,
                           "%s: CUDA bundle '%s' kernel '%s' asks for %llu bytes of workspace; the CUDA device does not "
                           "provide workspaces yet (docs/design.md)", what, variant, name,
                           (unsigned long long)d->workspace_bytes);
    uint32_t bytes = TL_CUDA_GRID_BYTES;
    for (uint32_t p = 0; d->params != NULL && p < d->num_params; ++p)
      bytes += d->params[p].rank <= TL_MAX_RANK ? TL_CUDA_ARG_BYTES(&d->params[p]) : TL_CUDA_MAX_PARAM_BYTES;
    if (bytes > TL_CUDA_MAX_PARAM_BYTES)
      return tl__set_error(rt, TL_ERROR_BAD_PACKAGE,
                           "%s: CUDA bundle '%s' kernel '%s': its parameter block is %u bytes, at most %u", what, variant,
                           name, bytes, TL_CUDA_MAX_PARAM_BYTES);
  }
  return TL_OK;
}

/* Loads the image into the (pushed) primary context and finds every kernel. */
static tl_status_t load_image(tl_runtime_t* rt, const char* what, const char* variant, const tl_bundle_t* b,
                              cuda_state_t* s) {
  char where[160];
  snprintf(where, sizeof where, "%s: CUDA bundle '%s'", what, variant);
  CUresult r;
  if (drv.have_library) {
    r = drv.cuLibraryLoadData(&s->library, b->device_image, NULL, NULL, 0, NULL, NULL, 0);
    if (r != CUDA_SUCCESS) {
      s->library = NULL;
      return cu_error(rt, where, "cuLibraryLoadData", r);
    }
  } else {
    r = drv.cuModuleLoadDataEx(&s->module, b->device_image, 0, NULL, NULL);
    if (r != CUDA_SUCCESS) {
      s->module = NULL;
      return cu_error(rt, where, "cuModuleLoadDataEx", r);
    }
  }
  int optin = 0;
  (void)drv.cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, s->device);
  for (uint32_t i = 0; i < b->num_kernels; ++i) {
    const tl_kernel_desc_t* d = &b->kernels[i];
    char kwhere[256];
    snprintf(kwhere, sizeof kwhere, "%s kernel %s (entry %s)", where, d->name, d->device_entry);
    CUfunction f = NULL;
    if (drv.have_library) {
      CUkernel k = NULL;
      r = drv.cuLibraryGetKernel(&k, s->library, d->device_entry);
      if (r != CUDA_SUCCESS) return cu_error(rt, kwhere, "cuLibraryGetKernel", r);
      r = drv.cuKernelGetFunction(&f, k);
      if (r != CUDA_SUCCESS) return cu_error(rt, kwhere, "cuKernelGetFunction", r);
    } else {
      r = drv.cuModuleGetFunction(&f, s->module, d->device_entry);
      if (r != CUDA_SUCCESS) return cu_error(rt, kwhere, "cuModuleGetFunction", r);
    }
    if (d->shared_bytes > TL_CUDA_STATIC_SHARED_LIMIT) {
      if (optin > 0 && d->shared_bytes > (uint32_t)optin)
        return tl__set_error(rt, TL_ERROR_UNSUPPORTED, "%s: needs %u bytes of shared memory, the device has at most %d",
                             kwhere, d->shared_bytes, optin);
      r = drv.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)d->shared_bytes);
      if (r != CUDA_SUCCESS) return cu_error(rt, kwhere, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", r);
    }
    s->functions[i] = f;
  }
  return TL_OK;
}

static tl_status_t cuda_load_payload(tl_runtime_t* rt, const char* what, const char* variant, const char* format,
                                     int32_t device_id, const unsigned char* data, size_t size, tl_payload_t* out) {
  tl_status_t st = tl__device_cpu.load_payload(rt, what, variant, format, device_id, data, size, out);
  if (st != TL_OK) return st;
  const tl_bundle_t* b = out->bundle;
  st = check_cuda_bundle(rt, what, variant, b);
  if (st != TL_OK) goto fail;
  if (getpid() != probe_pid) {
    st = tl__set_error(rt, TL_ERROR_UNSUPPORTED, "%s: CUDA was initialised by the parent process; a child after "
                       "fork() cannot use it (open CUDA packages in the process that uses them)", what);
    goto fail;
  }
  cuda_state_t* s = (cuda_state_t*)tl__calloc(rt, 1, sizeof *s);
  CUfunction* fns = (CUfunction*)tl__calloc(rt, b->num_kernels ? b->num_kernels : 1, sizeof *fns);
  if (s == NULL || fns == NULL) {
    tl__free(rt, s);
    tl__free(rt, fns);
    st = tl__set_error(rt, TL_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    goto fail;
  }
  s->functions = fns;
  s->num_kernels = b->num_kernels;
  s->device_id = device_id;
  s->pid = getpid();
  out->state = s;
  char where[160];
  snprintf(where, sizeof where, "%s: CUDA bundle '%s' on device %d", what, variant, (int)device_id);
  CUresult r = drv.cuDeviceGet(&s->device, device_id);
  if (r != CUDA_SUCCESS) {
    st = cu_error(rt, where, "cuDeviceGet", r);
    goto fail;
  }
  static const int grid_attr[3] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                   CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
  for (int a = 0; a < 3; ++a) {
    int v = 0;
    r = drv.cuDeviceGetAttribute(&v, grid_attr[a], s->device);
    if (r != CUDA_SUCCESS) {
      st = cu_error(rt, where, "cuDeviceGetAttribute(MAX_GRID_DIM)", r);
      goto fail;
    }
    s->max_grid[a] = v;
  }
  r = drv.cuDevicePrimaryCtxRetain(&s->ctx, s->device);
  if (r != CUDA_SUCCESS) {
    s->ctx = NULL;
    st = cu_error(rt, where, "cuDevicePrimaryCtxRetain", r);
    goto fail;
  }
  st = ctx_enter(rt, s->ctx, where);
  if (st != TL_OK) goto fail;
  st = load_image(rt, what, variant, b, s);
  ctx_leave();
  if (st != TL_OK) goto fail;
  return TL_OK;
fail:
  cuda_release_payload(rt, out);
  return st;
}

/* ---------------------------------------------------------------------------------------------
 * memory */

/* Each allocation holds a reference of the device's primary context (released by its free), so
 * the context outlives it even when no package holds one. */
static void* cuda_alloc(tl_runtime_t* rt, int32_t device_id, size_t size, size_t alignment) {
  (void)alignment; /* cuMemAlloc aligns to at least 256 bytes */
  CUdevice dev;
  CUcontext ctx = NULL;
  CUdeviceptr p = 0;
  if (drv.lib == NULL || drv.cuDeviceGet(&dev, device_id) != CUDA_SUCCESS ||
      drv.cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS)
    return NULL;
  if (ctx_enter(rt, ctx, "cuda alloc") == TL_OK) {
    if (drv.cuMemAlloc(&p, size) != CUDA_SUCCESS) p = 0;
    ctx_leave();
  }
  if (p == 0) (void)drv.cuDevicePrimaryCtxRelease(dev);
  return (void*)(uintptr_t)p;
}

static void cuda_free(tl_runtime_t* rt, int32_t device_id, void* ptr) {
  CUdevice dev;
  CUcontext ctx = NULL;
  if (ptr == NULL || drv.lib == NULL || drv.cuDeviceGet(&dev, device_id) != CUDA_SUCCESS ||
      drv.cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS)
    return;
  if (ctx_enter(rt, ctx, "cuda free") == TL_OK) {
    (void)drv.cuMemFree((CUdeviceptr)(uintptr_t)ptr);
    ctx_leave();
  }
  (void)drv.cuDevicePrimaryCtxRelease(dev); /* this call's reference */
  (void)drv.cuDevicePrimaryCtxRelease(dev); /* the allocation's */
}

/* ---------------------------------------------------------------------------------------------
 * launch */

static int32_t job_error(tl_status_t st) { return TL_JOB_STATUS(st); }

static int32_t cuda_launch(tl_runtime_t* rt, const tl_job_t* job) {
  const tl_kernel_t* k = job->kernel;
  const tl_kernel_desc_t* d = k->desc;
  cuda_state_t* s = (cuda_state_t*)k->package->payload.state;
  if (getpid() != s->pid)
    return job_error(tl__set_error(rt, TL_ERROR_UNSUPPORTED,
                                   "kernel %s: this CUDA package was opened before fork(); CUDA cannot be used in the "
                                   "child process (open the package in the child)", d->name));
  const int64_t* g = job->grid->size;
  static const char* const axis[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a)
    if (g[a] > s->max_grid[a])
      return job_error(tl__set_error(rt, TL_ERROR_INVALID_ARGUMENT,
                                     "kernel %s: grid (%lld, %lld, %lld) exceeds the CUDA device's limit on axis %s "
                                     "(at most %lld blocks; device limits %lld, %lld, %lld)", d->name,
                                     (long long)g[0], (long long)g[1], (long long)g[2], axis[a],
                                     (long long)s->max_grid[a], (long long)s->max_grid[0], (long long)s->max_grid[1],
                                     (long long)s->max_grid[2]));
  /* the parameter block (tl/bundle_abi.h); every field 8 bytes, so the buffer holds int64s */
  uint64_t block[TL_CUDA_MAX_PARAM_BYTES / 8];
  size_t n = 0;
  for (uint32_t i = 0; i < d->num_params; ++i) {
    const tl_param_t* p = &d->params[i];
    const tl_arg_t* a = &job->args[i];
    if (p->kind == TL_PARAM_TENSOR) {
      const tl_tensor_t* t = a->tensor;
      block[n++] = (uint64_t)(uintptr_t)t->data;
      memcpy(&block[n], t->shape, 8 * (size_t)p->rank);
      n += p->rank;
      memcpy(&block[n], t->strides, 8 * (size_t)p->rank);
      n += p->rank;
    } else if (p->dtype == TL_DTYPE_FLOAT16 || p->dtype == TL_DTYPE_BFLOAT16 || p->dtype == TL_DTYPE_FLOAT32) {
      memcpy(&block[n++], &a->f64, 8);
    } else {
      memcpy(&block[n++], &a->i64, 8);
    }
  }
  memcpy(&block[n], g, 8 * TL_MAX_GRID);
  n += TL_MAX_GRID;
  size_t bytes = n * 8;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, block, CU_LAUNCH_PARAM_BUFFER_SIZE, &bytes, CU_LAUNCH_PARAM_END};
  char where[96];
  snprintf(where, sizeof where, "kernel %s", d->name);
  tl_status_t st = ctx_enter(rt, s->ctx, where);
  if (st != TL_OK) return job_error(st);
  CUresult r = drv.cuLaunchKernel(s->functions[k->index], (unsigned)g[0], (unsigned)g[1], (unsigned)g[2],
                                  d->block_threads, 1, 1, d->shared_bytes, (CUstream)job->stream, NULL, extra);
  ctx_leave();
  if (r != CUDA_SUCCESS) {
    char buf[256];
    return job_error(tl__set_error(rt, cu_status(r), "kernel %s (entry %s): cuLaunchKernel failed: %s", d->name,
                                   d->device_entry, cu_describe(r, buf, sizeof buf)));
  }
  return 0;
}

static int32_t cuda_synchronize(tl_runtime_t* rt, const tl_package_t* pkg, void* stream, const char* kernel) {
  const cuda_state_t* s = (const cuda_state_t*)pkg->payload.state;
  char where[128];
  if (kernel != NULL)
    snprintf(where, sizeof where, "kernel %s", kernel);
  else
    snprintf(where, sizeof where, "tl_package_synchronize (device %d)", (int)s->device_id);
  if (getpid() != s->pid)
    return job_error(tl__set_error(rt, TL_ERROR_UNSUPPORTED, "%s: this CUDA package was opened before fork(); CUDA "
                                   "cannot be used in the child process", where));
  tl_status_t st = ctx_enter(rt, s->ctx, where);
  if (st != TL_OK) return job_error(st);
  CUresult r = stream != NULL ? drv.cuStreamSynchronize((CUstream)stream) : drv.cuCtxSynchronize();
  ctx_leave();
  if (r != CUDA_SUCCESS)
    return job_error(cu_error(rt, where, stream != NULL ? "cuStreamSynchronize" : "cuCtxSynchronize", r));
  return 0;
}

static const char* const cuda_formats[] = {TL_FORMAT_CUDA, NULL};

/* Device memory (kDLCUDA) of the device the package was opened for, and managed memory. */
const tl_device_t tl__device_cuda = {
    .name = "cuda",
    .dl_device_type = kDLCUDA,
    .formats = cuda_formats,
    .accepted_mask = TL_DEVICE_BIT(kDLCUDA) | TL_DEVICE_BIT(kDLCUDAManaged),
    .check_device_id = 1,
    .host_entry = 0,
    .probe = cuda_probe,
    .fits = cuda_fits,
    .load_payload = cuda_load_payload,
    .load_file = NULL,
    .release_payload = cuda_release_payload,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .launch = cuda_launch,
    .synchronize = cuda_synchronize,
};
