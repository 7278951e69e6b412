/* internal.h - private declarations shared by the libtl_runtime sources. Not installed. */
#ifndef TL_RUNTIME_INTERNAL_H
#define TL_RUNTIME_INTERNAL_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include "tl/runtime.h"

#define TL_ERROR_MESSAGE_MAX 1024

typedef struct tl_pool tl_pool_t;

/* handles.c: every handle is a shell (see handles.c); the header is its first member. */
typedef struct tl_shell_hdr {
  _Atomic uint32_t magic;              /* TL_MAGIC_<KIND> while live, TL_MAGIC_<KIND>_DEAD once released */
  uint32_t reserved;
  struct tl_shell_hdr* qnext;          /* the quarantine FIFO's link (dead shells only) */
} tl_shell_hdr_t;

#define TL_MAGIC_RUNTIME 0x544c5254u       /* "TLRT" */
#define TL_MAGIC_RUNTIME_DEAD 0x746c7274u  /* "tlrt" */
#define TL_MAGIC_PACKAGE 0x544c504bu       /* "TLPK" */
#define TL_MAGIC_PACKAGE_DEAD 0x746c706bu
#define TL_MAGIC_KERNEL 0x544c4b4eu        /* "TLKN" */
#define TL_MAGIC_KERNEL_DEAD 0x746c6b6eu

typedef enum { TL_SHELL_RUNTIME, TL_SHELL_PACKAGE, TL_SHELL_KERNEL, TL_SHELL_KINDS } tl_shell_kind_t;
/* A zeroed shell (magic 0) of kind, or NULL when out of memory. */
void* tl__shell_new(tl_shell_kind_t kind);
/* Stores dead_magic and queues the shell for reuse; the caller no longer touches it. */
void tl__shell_retire(tl_shell_kind_t kind, void* shell, uint32_t dead_magic);
void tl__shells_atfork_prepare(void);
void tl__shells_atfork_parent(void);
void tl__shells_atfork_child(void);
/* "a released tl_package_t", ... for messages */
const char* tl__magic_name(uint32_t magic);

/* The life word of a runtime or package: (user references << 32) | inner references (calls
 * running on it now; for a runtime also one per live package). The handle dies (new calls are
 * refused) when the user references reach 0; its resources are freed when the word reaches 0. */
#define TL_LIFE_USER ((uint64_t)1 << 32)
#define TL_LIFE_INNER UINT64_C(0xffffffff)
/* 1: an inner reference taken (the handle is alive); 0: refused (no user reference left). */
int tl__life_enter(_Atomic uint64_t* life);
/* Drops an inner reference; 1 when it was the last reference of any kind (the caller frees). */
int tl__life_leave(_Atomic uint64_t* life);
/* Adds an inner reference; the caller already holds one. */
void tl__life_hold(_Atomic uint64_t* life);
/* Adds a user reference: 1 done, 0 refused (already released), -1 too many references. */
int tl__life_retain(_Atomic uint64_t* life);
/* Drops a user reference: -1 there was none (double release), 0 done, 1 it was the last reference
 * of any kind (the caller frees). */
int tl__life_release(_Atomic uint64_t* life);

struct tl_runtime {
  tl_shell_hdr_t shell;
  _Atomic uint64_t life;               /* user references << 32 | live packages + running calls */
  uint64_t id;                         /* unique per runtime ever created (keys the error table) */
  _Atomic int32_t num_threads;         /* total workers including the caller, >= 1 */
  tl_parallel_for_fn_t parallel_for;   /* host-owned threads, or NULL */
  void* user_context;
  char cpu_features[512];
  pthread_mutex_t pool_mutex;          /* guards pool and num_threads changes; held during a pooled launch */
  tl_pool_t* pool;                     /* created lazily at the first parallel launch */
  tl_alloc_fn_t alloc_fn;              /* never NULL (defaults installed by tl_runtime_create) */
  tl_free_fn_t free_fn;
  void* alloc_context;
  struct tl_runtime* fork_next;        /* registry of live runtimes, for the pthread_atfork child handler */
  _Atomic(struct tl_ws_block*) inline_ws; /* a workspace kept for the next inline launch (pool.c), or NULL */
};

#define TL_KERNEL_NAME_KEPT 40

/* The bundle's descriptor sizes the runtime reads: the current one, and the layout before the shape
 * contract fields (dims, dim_names, num_dim_names) were appended. */
#define TL_KERNEL_DESC_SIZE_V0 offsetof(tl_kernel_desc_t, dims)
/* ... and before the device kernel fields (device_entry, block_threads, shared_bytes). */
#define TL_KERNEL_DESC_SIZE_V1 offsetof(tl_kernel_desc_t, device_entry)
/* tl_bundle_t before the device image fields (device_image, ...) were appended. */
#define TL_BUNDLE_SIZE_V0 offsetof(tl_bundle_t, device_image)

/* Kernel i of a bundle whose kernel_desc_size was checked; only the fields within
 * kernel_desc_size may be read (use tl_kernel_t.desc_copy for the rest). */
static inline const tl_kernel_desc_t* tl__bundle_kernel(const tl_bundle_t* b, uint32_t i) {
  return (const tl_kernel_desc_t*)(const void*)((const char*)b->kernels + (size_t)i * b->kernel_desc_size);
}

/* One compare of a kernel's shape contract, precomputed from tl_kernel_desc_t.dims at load: the
 * extent of axis `axis` of tensor argument `tensor` (an ordinal among the tensor arguments) must
 * equal `fixed` (sym < 0) or the extent of `ref_axis` of tensor `ref_tensor` (the first axis of
 * symbol `sym`). param / ref_param are the parameter indices, for the message. */
typedef struct {
  uint32_t tensor, ref_tensor;
  uint32_t param, ref_param;
  uint8_t axis, ref_axis;
  int32_t sym;
  int64_t fixed;
} tl_dim_check_t;

struct tl_kernel {                     /* a shell of its own, owned by the package (borrowed by callers) */
  tl_shell_hdr_t shell;
  const tl_kernel_desc_t* desc;        /* &desc_copy: valid while the package lives */
  tl_kernel_desc_t desc_copy;          /* the bundle's descriptor, fields it lacks (older, shorter layout) zero;
                                          its pointers point into the bundle */
  tl_dim_check_t* checks;              /* the shape contract's compares (NULL: none), freed with the package */
  uint32_t num_checks;
  tl_package_t* package;
  uint32_t index;                      /* its position in the bundle's kernel table */
  char name[TL_KERNEL_NAME_KEPT];      /* for messages once the package (and desc) is gone; truncated */
};

/* A payload loaded by a device (device.h): the device's own state plus the kernel table the bundle
 * exports. */
typedef struct {
  void* handle;                        /* the device's (CPU: the dlopen handle), NULL when none */
  int fd;                              /* CPU: the memfd kept open while loaded so /proc/self/fd/N stays
                                          unique; -1 when none */
  void* state;                         /* other device state, owned by the device */
  const tl_bundle_t* bundle;           /* the kernel table (tl_bundle_query's answer), NULL when none */
} tl_payload_t;

struct tl_device;

struct tl_package {
  tl_shell_hdr_t shell;
  _Atomic uint64_t life;               /* user references << 32 | running launches and calls */
  tl_runtime_t* runtime;               /* holds one inner reference of it while the package lives */
  const struct tl_device* device;      /* the chosen bundle's device (device.h) */
  tl_payload_t payload;                /* what the device loaded */
  uint64_t accepted_mask;              /* device->accepted_mask: the DLPack device types a launch takes */
  int32_t device_id;                   /* the DLPack device_id it runs on */
  int32_t check_device_id;             /* device->check_device_id */
  int32_t fast_device_type;            /* the device's own DLPack type when any device_id will do (the
                                          CPU's kDLCPU), else -1: a tensor of this type needs no other
                                          device test at launch */
  const tl_bundle_t* bundle;
  char* target;
  uint32_t num_kernels;
  tl_kernel_t** kernels;               /* num_kernels shells */
};

/* Validating entry into a call: NULL, a wrong kind, a dead magic or a released handle is
 * TL_ERROR_INVALID_ARGUMENT with the thread's handle-less error set (naming fn); else the call
 * holds an inner reference until the matching leave, which frees the handle if it was the last. */
tl_status_t tl__runtime_enter(const tl_runtime_t* rt, const char* fn);
void tl__runtime_leave(tl_runtime_t* rt);
tl_status_t tl__package_enter(const tl_package_t* pkg, const char* fn);
void tl__package_leave(tl_package_t* pkg);
/* For a kernel: enters its package (*out_pkg). */
tl_status_t tl__kernel_enter(const tl_kernel_t* kernel, const char* fn, tl_package_t** out_pkg);

/* errors.c. Each thread has a message slot per runtime (by id) and one handle-less slot; every
 * set or clear stamps its slot from the thread's clock, and tl_runtime_last_error(rt) shows the
 * newer of rt's slot and the handle-less one. */
/* rt == NULL: the handle-less slot. */
tl_status_t tl__set_error(const tl_runtime_t* rt, tl_status_t status, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
void tl__clear_error(const tl_runtime_t* rt);
/* The handle-less slot: a failed tl_runtime_create, or a call given a NULL, dead or foreign handle. */
tl_status_t tl__set_loose_error(tl_status_t status, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void tl__clear_loose_error(void);

/* alloc.c: every allocation of the runtime goes through rt's allocator */
void* tl__alloc(const tl_runtime_t* rt, size_t size, size_t alignment);
void* tl__calloc(const tl_runtime_t* rt, size_t n, size_t size);
void* tl__realloc(const tl_runtime_t* rt, void* p, size_t old_size, size_t new_size);
char* tl__strdup(const tl_runtime_t* rt, const char* s);
void tl__free(const tl_runtime_t* rt, void* p);
void* tl__default_alloc(void* ctx, size_t size, size_t alignment);
void tl__default_free(void* ctx, void* p);

/* runtime.c: fork safety (pthread_atfork) */
void tl__pool_forget_after_fork(tl_pool_t* pool);
/* runtime.c: frees the runtime (its life word reached 0) */
void tl__runtime_destroy(tl_runtime_t* rt);

/* cpu.c */
void tl__detect_cpu_features(char* out, size_t cap);
const char* tl__host_arch(void);
/* 1 when every feature of the comma-separated list `need` is in `have`; else 0 and *missing
 * receives the first missing one (NUL-terminated, truncated to cap). */
int tl__features_subset(const char* need, const char* have, char* missing, size_t cap);
int tl__has_feature(const char* have, const char* name);

/* pool.c */
typedef struct {
  tl_kernel_entry_t entry;
  const tl_arg_t* args;
  const tl_grid_t* grid;
  int64_t total;
  uint64_t workspace_bytes;
  const tl_kernel_t* kernel;           /* the kernel launched (devices that need more than entry) */
  void* stream;                        /* tl_launch_ex_options_t.stream (NULL: the device's default) */
} tl_job_t;
/* Runs all programs of job; returns the first non-zero entry return value, or 0. A negative
 * value < -1000 means an allocation failure. */
int32_t tl__run_job(tl_runtime_t* rt, const tl_job_t* job);
void tl__pool_destroy(tl_pool_t* pool);
/* Frees the workspace cached for inline launches (tl_runtime_release). */
void tl__inline_ws_free(tl_runtime_t* rt);
int32_t tl__online_cpus(void);

/* elfcheck.c: header, machine and segment bounds of a bundle image, before dlopen */
tl_status_t tl__check_elf(const tl_runtime_t* rt, const char* what, const char* variant, const unsigned char* data,
                          size_t size);

/* package_life.c: frees the package's bundle and tables, kills its kernel shells and its own, and
 * drops its runtime reference (its life word reached 0, or a failed open) */
void tl__package_free(tl_package_t* pkg);

/* zipdiag.c: a sentence on what a file libarchive refused looks like (not a ZIP: its first bytes;
 * a truncated ZIP: where it ends and what is missing); "" when there is nothing to add. */
void tl__describe_zip(const char* path, long long size, char* out, size_t cap);

/* bundle loading (package.c): takes ownership of payload (released on failure); dev loaded it */
tl_status_t tl__package_from_payload(tl_runtime_t* rt, const struct tl_device* dev, int32_t device_id,
                                     tl_payload_t* payload, const char* what, tl_package_t** out);

#define TL_JOB_ENOMEM (-1001)
/* A device's launch or synchronize that set the runtime's error itself returns TL_JOB_STATUS(st):
 * tl_kernel_launch returns st and keeps the device's message. */
#define TL_JOB_STATUS(st) (-2000 - (int32_t)(st))
#define TL_JOB_IS_STATUS(r) ((r) <= -2000 && (r) > -2100)
#define TL_JOB_STATUS_OF(r) ((tl_status_t)(-2000 - (r)))

#endif
