/* device_cpu.c - the CPU device: payloads are ELF shared objects for this machine, checked
 * (elfcheck.c), written to a memfd and dlopened; launches run on the runtime's thread pool or the
 * host's parallel_for (pool.c); tensors live in host memory. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "device.h"

static int cpu_probe(char* why, size_t cap) {
  (void)why;
  (void)cap;
  return 1;
}

/* Resolves the bundle's kernel table; the caller checks it (tl__package_from_payload). */
static tl_status_t query_bundle(tl_runtime_t* rt, const char* what, tl_payload_t* out) {
  tl_bundle_query_fn_t query = NULL;
  void* sym = dlsym(out->handle, TL_BUNDLE_QUERY_SYMBOL);
  memcpy(&query, &sym, sizeof query);
  if (query == NULL)
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: bundle does not export %s", what, TL_BUNDLE_QUERY_SYMBOL);
  static const tl_host_env_t env = {sizeof(tl_host_env_t), TL_BUNDLE_ABI_VERSION, NULL};
  out->bundle = query(TL_BUNDLE_ABI_VERSION, &env);
  return TL_OK;
}

static void cpu_release_payload(tl_runtime_t* rt, tl_payload_t* p) {
  (void)rt;
  if (p->handle != NULL) dlclose(p->handle);
  if (p->fd >= 0) close(p->fd);
  p->handle = NULL;
  p->fd = -1;
  p->bundle = NULL;
}

static tl_status_t cpu_load_payload(tl_runtime_t* rt, const char* what, const char* variant, const char* format,
                                    int32_t device_id, const unsigned char* data, size_t size, tl_payload_t* out) {
  (void)format; /* only TL_FORMAT_ELF is listed, selection checked it */
  (void)device_id;
  out->handle = NULL;
  out->fd = -1;
  out->state = NULL;
  out->bundle = NULL;
  tl_status_t est = tl__check_elf(rt, what, variant, data, size);
  if (est != TL_OK) return est;
  char label[96];
  snprintf(label, sizeof label, "tl-bundle:%s", variant);
  int fd = memfd_create(label, MFD_CLOEXEC);
  if (fd < 0)
    return tl__set_error(rt, TL_ERROR_INTERNAL, "%s: memfd_create failed: %s", what, strerror(errno));
  size_t done = 0;
  while (done < size) {
    ssize_t n = write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      close(fd);
      return tl__set_error(rt, TL_ERROR_INTERNAL, "%s: writing the bundle to memory failed: %s", what, strerror(err));
    }
    done += (size_t)n;
  }
  char fdpath[64];
  snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
  void* handle = dlopen(fdpath, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) {
    const char* err = dlerror();
    close(fd);
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: cannot load bundle '%s': %s", what, variant,
                         err ? err : "dlopen failed");
  }
  out->handle = handle;
  out->fd = fd;
  tl_status_t st = query_bundle(rt, what, out);
  if (st != TL_OK) cpu_release_payload(rt, out);
  return st;
}

static tl_status_t cpu_load_file(tl_runtime_t* rt, const char* path, tl_payload_t* out) {
  out->handle = NULL;
  out->fd = -1;
  out->state = NULL;
  out->bundle = NULL;
  /* dlopen needs a path with a slash to avoid the library search path */
  char* full = realpath(path, NULL);
  if (full == NULL) return tl__set_error(rt, TL_ERROR_NOT_FOUND, "%s: %s", path, strerror(errno));
  void* handle = dlopen(full, RTLD_NOW | RTLD_LOCAL);
  free(full);
  if (handle == NULL) {
    const char* err = dlerror();
    return tl__set_error(rt, TL_ERROR_BAD_PACKAGE, "%s: cannot load bundle: %s", path, err ? err : "dlopen failed");
  }
  out->handle = handle;
  tl_status_t st = query_bundle(rt, path, out);
  if (st != TL_OK) cpu_release_payload(rt, out);
  return st;
}

static void* cpu_alloc(tl_runtime_t* rt, int32_t device_id, size_t size, size_t alignment) {
  (void)device_id;
  return tl__alloc(rt, size, alignment);
}

static void cpu_free(tl_runtime_t* rt, int32_t device_id, void* p) {
  (void)device_id;
  tl__free(rt, p);
}

static const char* const cpu_formats[] = {TL_FORMAT_ELF, NULL};

/* Host memory: plain (kDLCPU) and the page-locked host memory of the CUDA and ROCm drivers. */
const tl_device_t tl__device_cpu = {
    .name = "cpu",
    .dl_device_type = kDLCPU,
    .formats = cpu_formats,
    .accepted_mask = TL_DEVICE_BIT(kDLCPU) | TL_DEVICE_BIT(kDLCUDAHost) | TL_DEVICE_BIT(kDLROCMHost),
    .check_device_id = 0,
    .host_entry = 1,
    .probe = cpu_probe,
    .fits = NULL,
    .load_payload = cpu_load_payload,
    .load_file = cpu_load_file,
    .release_payload = cpu_release_payload,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .launch = tl__run_job,
    .synchronize = NULL,
};
