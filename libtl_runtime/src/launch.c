/* launch.c - argument checking, DLTensor -> tl_tensor_t conversion, grid resolution, launch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device.h"

#define TL_STACK_ARGS 32

static const char* const dtype_names[TL_DTYPE_COUNT] = {"bool",    "int8",     "int32",  "int64",
                                                        "float16", "bfloat16", "float32"};
static const uint8_t dtype_bits[TL_DTYPE_COUNT] = {8, 8, 32, 64, 16, 16, 32};

static int dtype_matches(uint32_t want, DLDataType got) {
  if (got.lanes != 1) return 0;
  switch (want) {
    case TL_DTYPE_BOOL: return got.bits == 8 && (got.code == kDLBool || got.code == kDLUInt);
    case TL_DTYPE_INT8: return got.code == kDLInt && got.bits == 8;
    case TL_DTYPE_INT32: return got.code == kDLInt && got.bits == 32;
    case TL_DTYPE_INT64: return got.code == kDLInt && got.bits == 64;
    case TL_DTYPE_FLOAT16: return got.code == kDLFloat && got.bits == 16;
    case TL_DTYPE_BFLOAT16: return got.code == kDLBfloat && got.bits == 16;
    case TL_DTYPE_FLOAT32: return got.code == kDLFloat && got.bits == 32;
    default: return 0;
  }
}

static void format_dltype(DLDataType t, char* buf, size_t cap) {
  const char* base = NULL;
  switch (t.code) {
    case kDLInt: base = "int"; break;
    case kDLUInt: base = "uint"; break;
    case kDLFloat: base = "float"; break;
    case kDLBfloat: base = "bfloat"; break;
    case kDLBool: base = "bool"; break;
    default: break;
  }
  if (base == NULL)
    snprintf(buf, cap, "dtype(code=%u, bits=%u)", t.code, t.bits);
  else if (t.code == kDLBool && t.bits == 8)
    snprintf(buf, cap, "bool");
  else
    snprintf(buf, cap, "%s%u", base, t.bits);
  if (t.lanes != 1) {
    size_t len = strlen(buf);
    snprintf(buf + len, cap - len, "x%u", t.lanes);
  }
}

typedef struct {
  uintptr_t lo, hi; /* byte extent [lo, hi); empty when the tensor has no elements */
  int nonempty;
  int written;
  uint32_t param;
} tl_extent_t;

static tl_status_t arg_error(const tl_kernel_t* k, uint32_t p, const char* fmt, const char* a, const char* b) {
  char detail[512];
  snprintf(detail, sizeof detail, fmt, a, b);
  return tl__set_error(k->package->runtime, TL_ERROR_INVALID_ARGUMENT, "kernel %s: argument '%s' (#%u): %s",
                       k->desc->name, k->desc->params[p].name, p, detail);
}

/* The launch path's device test: a tensor whose DLPack device type is the package's
 * fast_device_type (tl_package_t) passes with one compare; every other tensor is checked here
 * against the device's accepted types and device id. */
static int device_ok(const tl_package_t* pkg, const DLTensor* t) {
  const uint32_t dt = (uint32_t)t->device.device_type;
  if (dt >= 64 || ((pkg->accepted_mask >> dt) & 1) == 0) return 0;
  return !pkg->check_device_id || t->device.device_id == pkg->device_id;
}

/* The tensor's DLPack device is not one the package's device takes: names both devices. */
static tl_status_t device_mismatch(const tl_kernel_t* k, uint32_t p, const DLTensor* t) {
  const tl_package_t* pkg = k->package;
  char got[64], want[192], buf[32], takes[160];
  snprintf(got, sizeof got, "%s:%d", tl__dl_device_name((int32_t)t->device.device_type, buf, sizeof buf),
           (int)t->device.device_id);
  tl__device_accepted(pkg->device, takes, sizeof takes);
  if (pkg->check_device_id)
    snprintf(want, sizeof want, "'%s' (device id %d, takes %s tensors)", pkg->device->name, (int)pkg->device_id, takes);
  else
    snprintf(want, sizeof want, "'%s' (takes %s tensors)", pkg->device->name, takes);
  return arg_error(k, p, "is on device %s but the kernel's bundle runs on device %s", got, want);
}

/* A written tensor whose distinct indices reach the same element: a stride of 0 on an axis of
 * extent > 1, or (sorting axes by |stride|) an axis whose stride does not step past the whole span
 * of the smaller axes. The sorted test is exact for the common layouts and conservative otherwise. */
static tl_status_t check_self_overlap(const tl_kernel_t* k, uint32_t p, const int64_t* shape, const int64_t* strides,
                                      int ndim) {
  char a[32], b[64];
  int order[TL_MAX_RANK], n = 0;
  for (int d = 0; d < ndim; ++d) {
    if (shape[d] <= 1) continue;
    if (strides[d] == 0) {
      snprintf(a, sizeof a, "%d", d);
      snprintf(b, sizeof b, "%lld", (long long)shape[d]);
      return arg_error(k, p, "is written by the kernel but has stride 0 on axis %s (extent %s), so distinct "
                       "elements alias; pass a tensor that does not overlap itself (e.g. a contiguous copy)", a, b);
    }
    order[n++] = d;
  }
  for (int i = 1; i < n; ++i)  /* insertion sort by |stride| */
    for (int j = i; j > 0 && llabs(strides[order[j]]) < llabs(strides[order[j - 1]]); --j) {
      int tmp = order[j]; order[j] = order[j - 1]; order[j - 1] = tmp;
    }
  __int128 span = 0; /* elements spanned by the smaller axes, minus one */
  for (int i = 0; i < n; ++i) {
    int d = order[i];
    __int128 st = strides[d] < 0 ? -(__int128)strides[d] : (__int128)strides[d];
    if (st <= span) {
      snprintf(a, sizeof a, "%d", d);
      snprintf(b, sizeof b, "%lld", (long long)strides[d]);
      return arg_error(k, p, "is written by the kernel but its strides make distinct indices alias (axis %s, "
                       "stride %s); pass a tensor that does not overlap itself (e.g. a contiguous copy)", a, b);
    }
    span += st * (shape[d] - 1);
  }
  return TL_OK;
}

static tl_status_t convert_tensor(const tl_kernel_t* k, uint32_t p, const DLTensor* t, tl_tensor_t* out,
                                  tl_extent_t* ext, int32_t fast_type) {
  const tl_param_t* prm = &k->desc->params[p];
  char want[64], got[64];
  if (t == NULL) return arg_error(k, p, "expected a %s tensor, got NULL%s", dtype_names[prm->dtype], "");
  if (__builtin_expect((int32_t)t->device.device_type != fast_type, 0) && !device_ok(k->package, t))
    return device_mismatch(k, p, t);
  if (!dtype_matches(prm->dtype, t->dtype)) {
    format_dltype(t->dtype, got, sizeof got);
    return arg_error(k, p, "expected dtype %s, got %s", dtype_names[prm->dtype], got);
  }
  if (t->ndim < 0 || (uint32_t)t->ndim != prm->rank) {
    snprintf(want, sizeof want, "%u", prm->rank);
    snprintf(got, sizeof got, "%d", (int)t->ndim);
    return arg_error(k, p, "expected rank %s, got rank %s", want, got);
  }
  int ndim = t->ndim;
  if (ndim > 0 && t->shape == NULL) return arg_error(k, p, "shape is NULL%s%s", "", "");
  int64_t contiguous[TL_MAX_RANK];
  const int64_t* strides = t->strides;
  int empty = 0;
  for (int d = 0; d < ndim; ++d) {
    if (t->shape[d] < 0) {
      snprintf(want, sizeof want, "%d", d);
      snprintf(got, sizeof got, "%lld", (long long)t->shape[d]);
      return arg_error(k, p, "shape[%s] must be >= 0, got %s", want, got);
    }
    if (t->shape[d] == 0) empty = 1;
  }
  if (strides == NULL) {
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; --d) {
      contiguous[d] = s;
      if (__builtin_mul_overflow(s, t->shape[d] > 0 ? t->shape[d] : 1, &s))
        return arg_error(k, p, "shape is too large%s%s", "", "");
    }
    strides = contiguous;
  }
  size_t itemsize = dtype_bits[prm->dtype] / 8;
  char* data = (char*)t->data;
  if (data == NULL && !empty) return arg_error(k, p, "data is NULL but the tensor has elements%s%s", "", "");
  if (data != NULL) data += t->byte_offset;
  if (!empty && ((uintptr_t)data % itemsize) != 0) {
    snprintf(want, sizeof want, "%zu", itemsize);
    snprintf(got, sizeof got, "%p", (void*)data);
    return arg_error(k, p, "data is misaligned: %s is not a multiple of %s bytes (the dtype's size)", got, want);
  }
  if (!empty && (prm->access & TL_ACCESS_WRITE) != 0) {
    tl_status_t sst = check_self_overlap(k, p, t->shape, strides, ndim);
    if (sst != TL_OK) return sst;
  }
  __int128 lo = 0, hi = 0;
  for (int d = 0; d < ndim; ++d) {
    __int128 span = (__int128)strides[d] * (t->shape[d] > 0 ? t->shape[d] - 1 : 0);
    if (span < 0) lo += span; else hi += span;
  }
  lo *= (__int128)itemsize;
  hi = (hi + 1) * (__int128)itemsize;
  ext->nonempty = !empty;
  ext->lo = ext->hi = 0;
  if (!empty) {
    __int128 base = (__int128)(uintptr_t)data;
    if (base + lo < 0 || base + hi > (__int128)UINTPTR_MAX)
      return arg_error(k, p, "strides reach outside the address space%s%s", "", "");
    ext->lo = (uintptr_t)(base + lo);
    ext->hi = (uintptr_t)(base + hi);
  }
  ext->written = (prm->access & TL_ACCESS_WRITE) != 0;
  ext->param = p;
  out->data = data;
  for (int d = 0; d < TL_MAX_RANK; ++d) {
    out->shape[d] = d < ndim ? t->shape[d] : 1;
    out->strides[d] = d < ndim ? strides[d] : 0;
  }
  return TL_OK;
}

static int same_view(const tl_tensor_t* a, const tl_tensor_t* b, uint32_t rank) {
  if (a->data != b->data) return 0;
  for (uint32_t d = 0; d < rank; ++d)
    if (a->shape[d] != b->shape[d] || (a->shape[d] > 1 && a->strides[d] != b->strides[d])) return 0;
  return 1;
}

/* The kernel's shape contract (tl_kernel_desc_t.dims), as the compares planned at load
 * (tl_kernel_t.checks): one integer compare per constrained axis after the first of its symbol.
 * tensors[] holds the converted tensor arguments in parameter order. */
static tl_status_t check_dims(const tl_kernel_t* k, const tl_tensor_t* tensors) {
  for (uint32_t i = 0; i < k->num_checks; ++i) {
    const tl_dim_check_t* c = &k->checks[i];
    int64_t got = tensors[c->tensor].shape[c->axis];
    int64_t want = c->sym < 0 ? c->fixed : tensors[c->ref_tensor].shape[c->ref_axis];
    if (__builtin_expect(got == want, 1)) continue;
    const tl_kernel_desc_t* d = k->desc;
    if (c->sym < 0)
      return tl__set_error(k->package->runtime, TL_ERROR_INVALID_ARGUMENT,
                           "kernel %s: argument '%s' axis %u is %lld but the kernel's signature fixes it to %lld",
                           d->name, d->params[c->param].name, (unsigned)c->axis, (long long)got, (long long)want);
    const char* sym = d->dim_names[c->sym];
    return tl__set_error(k->package->runtime, TL_ERROR_INVALID_ARGUMENT,
                         "kernel %s: argument '%s' axis %u (%s) is %lld but argument '%s' axis %u (%s) is %lld", d->name,
                         d->params[c->param].name, (unsigned)c->axis, sym, (long long)got, d->params[c->ref_param].name,
                         (unsigned)c->ref_axis, sym, (long long)want);
  }
  return TL_OK;
}

static tl_status_t check_scalar(const tl_kernel_t* k, uint32_t p, const tl_value_t* v, tl_arg_t* out) {
  const tl_param_t* prm = &k->desc->params[p];
  char got[64];
  switch (prm->dtype) {
    case TL_DTYPE_BOOL: out->i64 = v->i64 != 0; break;
    case TL_DTYPE_INT8:
      if (v->i64 < -128 || v->i64 > 127) {
        snprintf(got, sizeof got, "%lld", (long long)v->i64);
        return arg_error(k, p, "int8 scalar out of range [-128, 127]: %s%s", got, "");
      }
      out->i64 = v->i64;
      break;
    case TL_DTYPE_INT32:
      if (v->i64 < INT32_MIN || v->i64 > INT32_MAX) {
        snprintf(got, sizeof got, "%lld", (long long)v->i64);
        return arg_error(k, p, "int32 scalar out of range: %s%s", got, "");
      }
      out->i64 = v->i64;
      break;
    case TL_DTYPE_INT64: out->i64 = v->i64; break;
    default: out->f64 = v->f64; break;
  }
  return TL_OK;
}

static tl_status_t launch_entered(tl_kernel_t* kernel, const tl_value_t* args, uint32_t num_args,
                                  const int64_t* grid_in, void* stream, int blocking);

static inline __attribute__((always_inline)) tl_status_t check_arg_count(const tl_kernel_desc_t* desc, tl_runtime_t* rt, const tl_value_t* args,
                                   uint32_t num_args) {
  if (num_args != desc->num_params)
    return tl__set_error(rt, TL_ERROR_INVALID_ARGUMENT, "kernel %s takes %u arguments, got %u", desc->name,
                         desc->num_params, num_args);
  if (num_args > 0 && args == NULL)
    return tl__set_error(rt, TL_ERROR_INVALID_ARGUMENT, "kernel %s: args is NULL", desc->name);
  return TL_OK;
}

/* The kernel's package is entered for the whole launch: a tl_package_release (or
 * tl_runtime_release) racing it only drops a reference, and the last of them frees. */
TL_API tl_status_t tl_kernel_launch(tl_kernel_t* kernel, const tl_value_t* args, uint32_t num_args,
                                    const tl_launch_options_t* options) {
  tl_package_t* pkg = NULL;
  tl_status_t st = tl__kernel_enter(kernel, "tl_kernel_launch", &pkg);
  if (st != TL_OK) return st;
  const tl_kernel_desc_t* desc = kernel->desc;
  tl_runtime_t* rt = pkg->runtime;
  st = check_arg_count(desc, rt, args, num_args);
  if (st != TL_OK) {
  } else if (options != NULL && options->struct_size != sizeof(tl_launch_options_t))
    st = tl__set_error(rt, TL_ERROR_VERSION, "kernel %s: tl_launch_options_t.struct_size is %u, expected %zu "
                       "(call tl_launch_options_initialize)", desc->name, options->struct_size,
                       sizeof(tl_launch_options_t));
  else
    st = launch_entered(kernel, args, num_args, options != NULL && options->has_grid ? options->grid : NULL, NULL, 1);
  if (st == TL_OK) tl__clear_error(rt);
  tl__package_leave(pkg);   /* may free the package and the runtime */
  return st;
}

TL_API void tl_launch_ex_options_initialize(tl_launch_ex_options_t* options) {
  if (options == NULL) return;
  memset(options, 0, sizeof *options);
  options->struct_size = (uint32_t)sizeof *options;
}

TL_API tl_status_t tl_kernel_launch_ex(tl_kernel_t* kernel, const tl_value_t* args, uint32_t num_args,
                                       const int64_t* grid, const tl_launch_ex_options_t* options) {
  tl_package_t* pkg = NULL;
  tl_status_t st = tl__kernel_enter(kernel, "tl_kernel_launch_ex", &pkg);
  if (st != TL_OK) return st;
  const tl_kernel_desc_t* desc = kernel->desc;
  tl_runtime_t* rt = pkg->runtime;
  st = check_arg_count(desc, rt, args, num_args);
  if (st != TL_OK) {
  } else if (options != NULL && options->struct_size != sizeof(tl_launch_ex_options_t))
    st = tl__set_error(rt, TL_ERROR_VERSION, "kernel %s: tl_launch_ex_options_t.struct_size is %u, expected %zu "
                       "(call tl_launch_ex_options_initialize)", desc->name, options->struct_size,
                       sizeof(tl_launch_ex_options_t));
  else if (options != NULL && options->flags != 0)
    st = tl__set_error(rt, TL_ERROR_INVALID_ARGUMENT, "kernel %s: tl_launch_ex_options_t.flags is %u, must be 0",
                       desc->name, options->flags);
  else
    st = launch_entered(kernel, args, num_args, grid, options != NULL ? options->stream : NULL, 0);
  if (st == TL_OK) tl__clear_error(rt);
  tl__package_leave(pkg);
  return st;
}

/* A device's launch/synchronize answer as a status (the device may have set the message). */
static tl_status_t job_status(tl_runtime_t* rt, const char* name, uint64_t workspace_bytes, int32_t r) {
  if (r == 0) return TL_OK;
  if (r == TL_JOB_ENOMEM)
    return tl__set_error(rt, TL_ERROR_OUT_OF_MEMORY, "kernel %s: out of memory allocating %llu bytes of workspace",
                         name, (unsigned long long)workspace_bytes);
  if (TL_JOB_IS_STATUS(r)) return TL_JOB_STATUS_OF(r);
  return tl__set_error(rt, TL_ERROR_INTERNAL, "kernel %s failed: its entry returned %d", name, (int)r);
}

TL_API tl_status_t tl_package_synchronize(tl_package_t* package, void* stream) {
  tl_status_t st = tl__package_enter(package, "tl_package_synchronize");
  if (st != TL_OK) return st;
  tl_runtime_t* rt = package->runtime;
  const tl_device_t* dev = package->device;
  int32_t r = dev->synchronize != NULL ? dev->synchronize(rt, package, stream, NULL) : 0;
  st = TL_JOB_IS_STATUS(r) ? TL_JOB_STATUS_OF(r)
       : r != 0 ? tl__set_error(rt, TL_ERROR_INTERNAL, "tl_package_synchronize: device '%s' returned %d", dev->name, (int)r)
                : TL_OK;
  if (st == TL_OK) tl__clear_error(rt);
  tl__package_leave(package);
  return st;
}

static tl_status_t launch_entered(tl_kernel_t* kernel, const tl_value_t* args, uint32_t num_args,
                                  const int64_t* grid_in, void* stream, int blocking) {
  const tl_kernel_desc_t* desc = kernel->desc;
  tl_runtime_t* rt = kernel->package->runtime;
  tl_arg_t stack_args[TL_STACK_ARGS];
  tl_tensor_t stack_tensors[TL_STACK_ARGS];
  tl_extent_t stack_ext[TL_STACK_ARGS];
  tl_arg_t* cargs = stack_args;
  tl_tensor_t* tensors = stack_tensors;
  tl_extent_t* ext = stack_ext;
  void* heap = NULL;
  if (num_args > TL_STACK_ARGS) {
    size_t n = num_args;
    heap = tl__alloc(rt, n * (sizeof *cargs + sizeof *tensors + sizeof *ext), 16);
    if (heap == NULL) return tl__set_error(rt, TL_ERROR_OUT_OF_MEMORY, "kernel %s: out of memory", desc->name);
    tensors = (tl_tensor_t*)heap;
    cargs = (tl_arg_t*)(tensors + n);
    ext = (tl_extent_t*)(cargs + n);
  }
  tl_status_t st = TL_OK;
  uint32_t ntensors = 0;
  const tl_package_t* pkg = kernel->package;
  const int32_t fast_type = pkg->fast_device_type;
  for (uint32_t i = 0; i < num_args; ++i) {
    if (desc->params[i].kind == TL_PARAM_TENSOR) {
      st = convert_tensor(kernel, i, args[i].tensor, &tensors[ntensors], &ext[ntensors], fast_type);
      if (st != TL_OK) goto done;
      cargs[i].tensor = &tensors[ntensors];
      ntensors++;
    } else {
      st = check_scalar(kernel, i, &args[i], &cargs[i]);
      if (st != TL_OK) goto done;
    }
  }
  if (kernel->num_checks != 0) {
    st = check_dims(kernel, tensors);
    if (st != TL_OK) goto done;
  }
  /* a written tensor may not share memory with any other argument, unless it is the exact same view */
  for (uint32_t a = 0; a < ntensors; ++a) {
    if (!ext[a].written || !ext[a].nonempty) continue;
    for (uint32_t b = 0; b < ntensors; ++b) {
      if (b == a || !ext[b].nonempty) continue;
      if (ext[a].lo < ext[b].hi && ext[b].lo < ext[a].hi) {
        const tl_param_t* pa = &desc->params[ext[a].param];
        const tl_param_t* pb = &desc->params[ext[b].param];
        if (pa->dtype == pb->dtype && pa->rank == pb->rank && same_view(&tensors[a], &tensors[b], pa->rank)) continue;
        st = tl__set_error(rt, TL_ERROR_INVALID_ARGUMENT,
                           "kernel %s: argument '%s' is written by the kernel and overlaps the memory of argument '%s'; "
                           "pass non-overlapping tensors (or the exact same view)",
                           desc->name, pa->name, pb->name);
        goto done;
      }
    }
  }

  tl_grid_t grid;
  if (grid_in != NULL) {
    for (int d = 0; d < TL_MAX_GRID; ++d) grid.size[d] = grid_in[d];
  } else {
    int32_t gs = desc->grid == NULL ? 1 : desc->grid(cargs, &grid);
    if (gs == 2) {
      st = tl__set_error(rt, TL_ERROR_INVALID_ARGUMENT,
                         "kernel %s: its grid rule divides by zero (check the arguments it uses)", desc->name);
      goto done;
    }
    if (gs != 0) {
      st = tl__set_error(rt, TL_ERROR_INVALID_ARGUMENT, "kernel %s has no grid rule; pass a grid", desc->name);
      goto done;
    }
  }
  int64_t total = 1;
  for (int d = 0; d < TL_MAX_GRID; ++d) {
    if (grid.size[d] < 0) {
      st = tl__set_error(rt, TL_ERROR_INVALID_ARGUMENT, "kernel %s: grid (%lld, %lld, %lld) has a negative size",
                         desc->name, (long long)grid.size[0], (long long)grid.size[1], (long long)grid.size[2]);
      goto done;
    }
  }
  for (int d = 0; d < TL_MAX_GRID; ++d) {
    if (grid.size[d] == 0) { total = 0; break; }
    int64_t next;
    if (__builtin_mul_overflow(total, grid.size[d], &next) || next > TL_MAX_GRID_PROGRAMS) {
      st = tl__set_error(rt, TL_ERROR_INVALID_ARGUMENT,
                         "kernel %s: grid (%lld, %lld, %lld) has too many programs: the product of its sizes must be "
                         "at most 2^48 (TL_MAX_GRID_PROGRAMS)", desc->name,
                         (long long)grid.size[0], (long long)grid.size[1], (long long)grid.size[2]);
      goto done;
    }
    total = next;
  }
  if (total == 0) goto done;

  tl_job_t job = {desc->entry, cargs, &grid, total, desc->workspace_bytes, kernel, stream};
  const tl_device_t* dev = pkg->device;
  int32_t r = dev->launch(rt, &job);
  if (r == 0 && blocking && dev->synchronize != NULL) r = dev->synchronize(rt, pkg, NULL, desc->name);
  if (__builtin_expect(r != 0, 0)) st = job_status(rt, desc->name, desc->workspace_bytes, r);
done:
  tl__free(rt, heap);
  return st;
}

static tl_status_t value_from_dlpack(const tl_kernel_t* kernel, uint32_t param_index,
                                     const DLManagedTensorVersioned* tensor, tl_value_t* out) {
  const tl_kernel_desc_t* desc = kernel->desc;
  tl_runtime_t* rt = kernel->package->runtime;
  if (param_index >= desc->num_params)
    return tl__set_error(rt, TL_ERROR_INVALID_ARGUMENT, "kernel %s: param_index %u out of range (%u parameters)",
                         desc->name, param_index, desc->num_params);
  const tl_param_t* prm = &desc->params[param_index];
  if (out == NULL)
    return tl__set_error(rt, TL_ERROR_INVALID_ARGUMENT, "kernel %s: argument '%s' (#%u): out is NULL", desc->name,
                         prm->name, param_index);
  if (prm->kind != TL_PARAM_TENSOR)
    return tl__set_error(rt, TL_ERROR_INVALID_ARGUMENT,
                         "kernel %s: argument '%s' (#%u) is a scalar, not a tensor parameter", desc->name, prm->name,
                         param_index);
  if (tensor == NULL)
    return tl__set_error(rt, TL_ERROR_INVALID_ARGUMENT, "kernel %s: argument '%s' (#%u): tensor is NULL",
                         desc->name, prm->name, param_index);
  if (tensor->version.major != DLPACK_MAJOR_VERSION)
    return tl__set_error(rt, TL_ERROR_VERSION,
                         "kernel %s: argument '%s' (#%u): DLManagedTensorVersioned of DLPack major version %u, "
                         "this runtime reads major version %d",
                         desc->name, prm->name, param_index, tensor->version.major, DLPACK_MAJOR_VERSION);
  if ((tensor->flags & DLPACK_FLAG_BITMASK_READ_ONLY) && (prm->access & TL_ACCESS_WRITE))
    return tl__set_error(rt, TL_ERROR_INVALID_ARGUMENT,
                         "kernel %s: argument '%s' (#%u): the kernel writes this parameter, the tensor is read-only "
                         "(DLPACK_FLAG_BITMASK_READ_ONLY)",
                         desc->name, prm->name, param_index);
  out->tensor = &tensor->dl_tensor;
  out->i64 = 0;
  out->f64 = 0.0;
  return TL_OK;
}

/* The kernel handle is checked (NULL, released, wrong kind) and its package held while the
 * descriptor is read. */
TL_API tl_status_t tl_value_from_dlpack(const tl_kernel_t* kernel, uint32_t param_index,
                                        const DLManagedTensorVersioned* tensor, tl_value_t* out) {
  tl_package_t* pkg = NULL;
  tl_status_t st = tl__kernel_enter(kernel, "tl_value_from_dlpack", &pkg);
  if (st != TL_OK) return st;
  st = value_from_dlpack(kernel, param_index, tensor, out);
  tl__package_leave(pkg);
  return st;
}
