/* package_life.c - a package's references (retain/release, entering calls), its end, and the
 * queries on it (target, device, kernels). */
#include <stdio.h>
#include <string.h>
#include "device.h"

/* Frees what the package holds, kills its kernel shells and its own, and drops its reference
 * of the runtime. Called when the life word reaches 0, or on a failed open (never handed out). */
void tl__package_free(tl_package_t* pkg) {
  if (pkg == NULL) return;
  tl_runtime_t* rt = pkg->runtime;
  for (uint32_t i = 0; pkg->kernels != NULL && i < pkg->num_kernels; ++i)
    if (pkg->kernels[i] != NULL) {
      tl__free(rt, pkg->kernels[i]->checks);
      pkg->kernels[i]->checks = NULL;
      tl__shell_retire(TL_SHELL_KERNEL, pkg->kernels[i], TL_MAGIC_KERNEL_DEAD);
    }
  pkg->device->release_payload(rt, &pkg->payload);
  tl__free(rt, pkg->kernels);
  tl__free(rt, pkg->target);
  tl__shell_retire(TL_SHELL_PACKAGE, pkg, TL_MAGIC_PACKAGE_DEAD);
  tl__runtime_leave(rt);
}

/* ------------------------------------------------------------------------------------------ */
/* life: enter/leave, retain/release */

static const char* package_shell_problem(const tl_package_t* pkg, uint32_t* magic) {
  *magic = atomic_load_explicit(&((tl_package_t*)pkg)->shell.magic, memory_order_acquire);
  if (*magic == TL_MAGIC_PACKAGE) return NULL;
  if (*magic == TL_MAGIC_PACKAGE_DEAD) return "released";
  return tl__magic_name(*magic);
}

tl_status_t tl__package_enter(const tl_package_t* package, const char* fn) {
  if (package == NULL) return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT, "%s: package is NULL", fn);
  uint32_t m;
  const char* why = package_shell_problem(package, &m);
  if (why != NULL && m != TL_MAGIC_PACKAGE_DEAD)
    return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT, "%s: %p is %s, not a package handle", fn,
                               (const void*)package, why);
  if (why != NULL || !tl__life_enter(&((tl_package_t*)package)->life))
    return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT,
                               "%s: package %p was released (tl_package_release dropped its last reference); "
                               "call refused", fn, (const void*)package);
  return TL_OK;
}

void tl__package_leave(tl_package_t* pkg) {
  if (tl__life_leave(&pkg->life)) tl__package_free(pkg);
}

tl_status_t tl__kernel_enter(const tl_kernel_t* kernel, const char* fn, tl_package_t** out_pkg) {
  if (kernel == NULL) return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT, "%s: kernel is NULL", fn);
  tl_kernel_t* k = (tl_kernel_t*)kernel;
  uint32_t m = atomic_load_explicit(&k->shell.magic, memory_order_acquire);
  if (m == TL_MAGIC_KERNEL) {
    tl_package_t* pkg = k->package;
    if (tl__life_enter(&pkg->life)) {
      /* the shell cannot die while its package is entered; check it was not reused meanwhile */
      if (atomic_load_explicit(&k->shell.magic, memory_order_acquire) == TL_MAGIC_KERNEL && k->package == pkg) {
        *out_pkg = pkg;
        return TL_OK;
      }
      tl__package_leave(pkg);
    }
    m = TL_MAGIC_KERNEL_DEAD;
  }
  if (m == TL_MAGIC_KERNEL_DEAD)
    return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT,
                               "%s: kernel '%s' (%p): its package was released (tl_package_release dropped its "
                               "last reference), and its kernel handles with it; call refused",
                               fn, k->name, (const void*)kernel);
  return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT, "%s: %p is %s, not a kernel handle", fn, (const void*)kernel,
                             tl__magic_name(m));
}

TL_API tl_status_t tl_package_retain(tl_package_t* package) {
  tl_status_t st = tl__package_enter(package, "tl_package_retain");
  if (st != TL_OK) return st;
  int r = tl__life_retain(&package->life);
  tl__package_leave(package);
  if (r < 0) return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT, "tl_package_retain: package %p has 2^31 - 1 "
                                        "references already", (void*)package);
  if (r == 0)
    return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT, "tl_package_retain: package %p was released", (void*)package);
  return TL_OK;
}

/* Drops a user reference; the package is freed when no reference (user or running launch) is left. */
TL_API tl_status_t tl_package_release(tl_package_t* package) {
  if (package == NULL) return TL_OK;
  uint32_t m;
  const char* why = package_shell_problem(package, &m);
  if (why != NULL && m != TL_MAGIC_PACKAGE_DEAD)
    return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT, "tl_package_release: %p is %s, not a package handle",
                               (void*)package, why);
  int r = why != NULL ? -1 : tl__life_release(&package->life);
  if (r < 0)
    return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT,
                               "tl_package_release: package %p was already released (a double release, or a release "
                               "without a matching tl_package_open/tl_package_retain)", (void*)package);
  if (r == 1) tl__package_free(package);
  return TL_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* queries */

TL_API const char* tl_package_target(const tl_package_t* package) {
  if (tl__package_enter(package, "tl_package_target") != TL_OK) return "";
  tl_package_t* pkg = (tl_package_t*)package;
  const char* t = pkg->target != NULL ? pkg->target : "";
  tl__package_leave(pkg);
  return t;
}

TL_API uint32_t tl_package_kernel_count(const tl_package_t* package) {
  if (tl__package_enter(package, "tl_package_kernel_count") != TL_OK) return 0;
  tl_package_t* pkg = (tl_package_t*)package;
  uint32_t n = pkg->num_kernels;
  tl__package_leave(pkg);
  return n;
}

TL_API const char* tl_package_kernel_name(const tl_package_t* package, uint32_t index) {
  if (tl__package_enter(package, "tl_package_kernel_name") != TL_OK) return NULL;
  tl_package_t* pkg = (tl_package_t*)package;
  const char* name = NULL;
  if (index < pkg->num_kernels) name = pkg->kernels[index]->desc->name;
  else tl__set_error(pkg->runtime, TL_ERROR_INVALID_ARGUMENT, "tl_package_kernel_name: index %u is out of range (the "
                     "package has %u kernels)", index, pkg->num_kernels);
  tl__package_leave(pkg);
  return name;
}

static tl_status_t find_kernel(tl_package_t* package, const char* name, tl_kernel_t** out_kernel) {
  if (out_kernel == NULL)
    return tl__set_error(package->runtime, TL_ERROR_INVALID_ARGUMENT, "tl_package_kernel: out_kernel is NULL");
  if (name == NULL) return tl__set_error(package->runtime, TL_ERROR_INVALID_ARGUMENT, "tl_package_kernel: kernel name is NULL");
  for (uint32_t i = 0; i < package->num_kernels; ++i) {
    if (strcmp(package->kernels[i]->desc->name, name) == 0) {
      *out_kernel = package->kernels[i];
      return TL_OK;
    }
  }
  char names[512] = "";
  for (uint32_t i = 0; i < package->num_kernels; ++i) {
    size_t len = strlen(names);
    snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "", package->kernels[i]->desc->name);
  }
  return tl__set_error(package->runtime, TL_ERROR_NOT_FOUND, "no kernel '%s' in package (target %s); kernels: %s", name,
                       package->target, names);
}

TL_API tl_status_t tl_package_kernel(tl_package_t* package, const char* name, tl_kernel_t** out_kernel) {
  if (out_kernel != NULL) *out_kernel = NULL;
  tl_status_t st = tl__package_enter(package, "tl_package_kernel");
  if (st != TL_OK) return st;
  st = find_kernel(package, name, out_kernel);
  tl__package_leave(package);
  return st;
}

TL_API const tl_kernel_desc_t* tl_kernel_desc(const tl_kernel_t* kernel) {
  tl_package_t* pkg = NULL;
  if (tl__kernel_enter(kernel, "tl_kernel_desc", &pkg) != TL_OK) return NULL;
  const tl_kernel_desc_t* d = kernel->desc;
  tl__package_leave(pkg);
  return d;
}

TL_API DLDevice tl_package_device(const tl_package_t* package) {
  DLDevice d = {(DLDeviceType)0, 0};
  if (tl__package_enter(package, "tl_package_device") != TL_OK) return d;
  tl_package_t* pkg = (tl_package_t*)package;
  d.device_type = (DLDeviceType)pkg->device->dl_device_type;
  d.device_id = pkg->device_id;
  tl__package_leave(pkg);
  return d;
}

/* The name is the device table's constant string: valid for the life of the library. */
TL_API const char* tl_package_device_name(const tl_package_t* package) {
  if (tl__package_enter(package, "tl_package_device_name") != TL_OK) return "";
  tl_package_t* pkg = (tl_package_t*)package;
  const char* name = pkg->device->name;
  tl__package_leave(pkg);
  return name;
}
