/* internal.h - private declarations shared by the libtl_runtime sources. Not installed. */
#ifndef TL_RUNTIME_INTERNAL_H
#define TL_RUNTIME_INTERNAL_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include "tl/runtime.h"

#define TL_ERROR_MESSAGE_MAX 1024

typedef struct tl_pool tl_pool_t;

struct tl_runtime {
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

struct tl_kernel {
  const tl_kernel_desc_t* desc;
  tl_package_t* package;
};

struct tl_package {
  tl_runtime_t* runtime;
  void* dl_handle;
  int memfd;                           /* kept open while loaded so /proc/self/fd/N stays unique; -1 if none */
  const tl_bundle_t* bundle;
  char* target;
  uint32_t num_kernels;
  tl_kernel_t* kernels;
  pthread_mutex_t life_mutex;          /* guards inflight and released */
  pthread_cond_t life_cond;            /* signalled when inflight drops to 0 */
  int64_t inflight;                    /* launches running now */
  int released;                        /* tl_package_release began: new launches are refused */
};

/* package.c: launch bracketing. Enter refuses (TL_ERROR_INVALID_ARGUMENT) once the package is
 * being released; leave wakes a release waiting for the last running launch. */
tl_status_t tl__package_enter(tl_package_t* pkg, const char* kernel_name);
void tl__package_leave(tl_package_t* pkg);

/* errors.c */
tl_status_t tl__set_error(const tl_runtime_t* rt, tl_status_t status, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
void tl__clear_error(const tl_runtime_t* rt);
/* The message of a failed tl_runtime_create (no handle yet): tl_runtime_last_error(NULL). */
tl_status_t tl__set_create_error(tl_status_t status, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

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

/* bundle loading (package.c) */
tl_status_t tl__package_from_handle(tl_runtime_t* rt, void* handle, int memfd, const char* what,
                                    tl_package_t** out);

#define TL_JOB_ENOMEM (-1001)

#endif
