/* check.c - tl_kernel_check: is a kernel handle the kernel a generated wrapper was made for?
 * The signature hash is defined in tl/runtime.h; tlc computes the same value from the manifest
 * (tlc/package/header.py signature_hash) when it writes a package's header. */
#include <string.h>
#include "internal.h"

#define FNV_OFFSET UINT64_C(14695981039346656037)
#define FNV_PRIME UINT64_C(1099511628211)

static uint64_t fnv_bytes(uint64_t h, const char* s, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    h ^= (unsigned char)s[i];
    h *= FNV_PRIME;
  }
  return h;
}

static uint64_t fnv_str(uint64_t h, const char* s) { return s != NULL ? fnv_bytes(h, s, strlen(s)) : h; }

static uint64_t fnv_u32(uint64_t h, uint32_t v) {   /* v in decimal, no snprintf on the launch path */
  char buf[10];
  size_t n = 0;
  do {
    buf[sizeof buf - 1 - n++] = (char)('0' + v % 10u);
    v /= 10u;
  } while (v != 0);
  return fnv_bytes(h, buf + sizeof buf - n, n);
}

static uint64_t signature_hash(const tl_kernel_desc_t* d) {
  uint64_t h = fnv_str(FNV_OFFSET, d->name);
  for (uint32_t i = 0; i < d->num_params; ++i) {
    const tl_param_t* p = &d->params[i];
    h = fnv_str(h, "|");
    h = fnv_str(h, p->name);
    h = fnv_str(h, ":");
    h = fnv_u32(h, p->kind);
    h = fnv_str(h, ":");
    h = fnv_u32(h, p->dtype);
    h = fnv_str(h, ":");
    h = fnv_u32(h, p->rank);
    h = fnv_str(h, ":");
    h = fnv_u32(h, p->access);
  }
  return h;
}

static tl_status_t check(const tl_kernel_t* kernel, const char* expected_name, uint64_t expected_signature_hash) {
  const tl_kernel_desc_t* d = kernel->desc;
  const tl_runtime_t* rt = kernel->package->runtime;
  if (expected_name == NULL)
    return tl__set_error(rt, TL_ERROR_INVALID_ARGUMENT, "tl_kernel_check: expected_name is NULL (kernel handle: %s)",
                         d->name);
  uint64_t got = signature_hash(d);
  if (strcmp(d->name, expected_name) != 0)
    return tl__set_error(rt, TL_ERROR_INVALID_ARGUMENT,
                         "wrong kernel: the wrapper for kernel %s was called with a handle of kernel %s",
                         expected_name, d->name);
  if (got != expected_signature_hash)
    return tl__set_error(rt, TL_ERROR_INVALID_ARGUMENT,
                         "kernel %s: the package's kernel has signature hash 0x%016llx, the wrapper was generated "
                         "for 0x%016llx (the header and the package come from different builds; use the "
                         "header of this package)",
                         d->name, (unsigned long long)got, (unsigned long long)expected_signature_hash);
  return TL_OK;
}

/* The kernel handle is checked (NULL, released, wrong kind) and its package held while the
 * descriptor is read. */
TL_API tl_status_t tl_kernel_check(const tl_kernel_t* kernel, const char* expected_name,
                                   uint64_t expected_signature_hash) {
  tl_package_t* pkg = NULL;
  tl_status_t st = tl__kernel_enter(kernel, "tl_kernel_check", &pkg);
  if (st != TL_OK) return st;
  st = check(kernel, expected_name, expected_signature_hash);
  tl__package_leave(pkg);
  return st;
}
