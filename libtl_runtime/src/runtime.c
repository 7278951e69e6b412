/* runtime.c - the runtime handle: options, creation, threads, CPU features, version. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define TL_STR2(x) #x
#define TL_STR(x) TL_STR2(x)

static atomic_uint_fast64_t tl_next_runtime_id = 1;

TL_API void tl_runtime_options_initialize(tl_runtime_options_t* options) {
  if (options == NULL) return;
  memset(options, 0, sizeof *options);
  options->struct_size = (uint32_t)sizeof *options;
}

TL_API void tl_launch_options_initialize(tl_launch_options_t* options) {
  if (options == NULL) return;
  memset(options, 0, sizeof *options);
  options->struct_size = (uint32_t)sizeof *options;
}

TL_API const char* tl_runtime_version(void) {
  return TL_STR(TL_RUNTIME_VERSION_MAJOR) "." TL_STR(TL_RUNTIME_VERSION_MINOR) "." TL_STR(TL_RUNTIME_VERSION_PATCH);
}

/* Live runtimes, so that the child of a fork() can drop pools whose threads it does not have. */
static pthread_mutex_t tl_registry_mutex = PTHREAD_MUTEX_INITIALIZER;
static tl_runtime_t* tl_registry_head = NULL;
static pthread_once_t tl_atfork_once = PTHREAD_ONCE_INIT;

static void atfork_prepare(void) { pthread_mutex_lock(&tl_registry_mutex); }
static void atfork_parent(void) { pthread_mutex_unlock(&tl_registry_mutex); }
/* In the child only the forking thread exists: the pool's workers are gone and pool_mutex may be
 * held by a thread that no longer exists. Re-initialise the locks and start pools afresh. */
static void atfork_child(void) {
  pthread_mutex_init(&tl_registry_mutex, NULL);
  for (tl_runtime_t* rt = tl_registry_head; rt != NULL; rt = rt->fork_next) {
    pthread_mutex_init(&rt->pool_mutex, NULL);
    tl__pool_forget_after_fork(rt->pool);
    rt->pool = NULL;
  }
}
static void install_atfork(void) { pthread_atfork(atfork_prepare, atfork_parent, atfork_child); }

TL_API tl_status_t tl_runtime_create(const tl_runtime_options_t* options, tl_runtime_t** out_runtime) {
  if (out_runtime == NULL) return tl__set_create_error(TL_ERROR_INVALID_ARGUMENT, "out_runtime is NULL");
  *out_runtime = NULL;
  tl__set_create_error(TL_OK, "%s", "");
  tl_runtime_options_t opts;
  tl_runtime_options_initialize(&opts);
  if (options != NULL) {
    const size_t v1 = offsetof(tl_runtime_options_t, alloc_fn);   /* runtime 0.1.0 before the allocator hook */
    if (options->struct_size != sizeof(tl_runtime_options_t) && options->struct_size != v1)
      return tl__set_create_error(TL_ERROR_VERSION,
                                  "tl_runtime_options_t.struct_size is %u, but runtime %s takes %zu or %zu "
                                  "(call tl_runtime_options_initialize)",
                                  options->struct_size, tl_runtime_version(), v1, sizeof(tl_runtime_options_t));
    memcpy(&opts, options, options->struct_size);
  }
  if (opts.num_threads < 0)
    return tl__set_create_error(TL_ERROR_INVALID_ARGUMENT, "num_threads must be >= 0 (0: one per online CPU), got %d",
                                (int)opts.num_threads);
  if (opts.num_threads > TL_MAX_THREADS)
    return tl__set_create_error(TL_ERROR_INVALID_ARGUMENT, "num_threads must be at most %d (TL_MAX_THREADS), got %d",
                                TL_MAX_THREADS, (int)opts.num_threads);
  if ((opts.alloc_fn == NULL) != (opts.free_fn == NULL))
    return tl__set_create_error(TL_ERROR_INVALID_ARGUMENT, "alloc_fn and free_fn must both be set or both be NULL");
  if (opts.alloc_fn == NULL) {
    opts.alloc_fn = tl__default_alloc;
    opts.free_fn = tl__default_free;
    opts.alloc_context = NULL;
  }
  tl_runtime_t* rt = (tl_runtime_t*)opts.alloc_fn(opts.alloc_context, sizeof(tl_runtime_t), 64);
  if (rt == NULL) return tl__set_create_error(TL_ERROR_OUT_OF_MEMORY, "out of memory creating the runtime");
  memset(rt, 0, sizeof *rt);
  atomic_init(&rt->inline_ws, NULL);
  rt->alloc_fn = opts.alloc_fn;
  rt->free_fn = opts.free_fn;
  rt->alloc_context = opts.alloc_context;
  rt->id = atomic_fetch_add(&tl_next_runtime_id, 1);
  atomic_init(&rt->num_threads, opts.num_threads > 0 ? opts.num_threads : tl__online_cpus());
  rt->parallel_for = opts.parallel_for;
  rt->user_context = opts.user_context;
  if (pthread_mutex_init(&rt->pool_mutex, NULL) != 0) {
    tl__free(rt, rt);
    return tl__set_create_error(TL_ERROR_OUT_OF_MEMORY, "cannot create a mutex");
  }
  tl__detect_cpu_features(rt->cpu_features, sizeof rt->cpu_features);
  pthread_once(&tl_atfork_once, install_atfork);
  pthread_mutex_lock(&tl_registry_mutex);
  rt->fork_next = tl_registry_head;
  tl_registry_head = rt;
  pthread_mutex_unlock(&tl_registry_mutex);
  *out_runtime = rt;
  return TL_OK;
}

TL_API void tl_runtime_release(tl_runtime_t* runtime) {
  if (runtime == NULL) return;
  pthread_mutex_lock(&tl_registry_mutex);
  for (tl_runtime_t** p = &tl_registry_head; *p != NULL; p = &(*p)->fork_next) {
    if (*p == runtime) {
      *p = runtime->fork_next;
      break;
    }
  }
  pthread_mutex_unlock(&tl_registry_mutex);
  tl__pool_destroy(runtime->pool);
  tl__inline_ws_free(runtime);
  pthread_mutex_destroy(&runtime->pool_mutex);
  tl__clear_error(runtime);
  tl__free(runtime, runtime);
}

TL_API tl_status_t tl_runtime_set_num_threads(tl_runtime_t* runtime, int32_t num_threads) {
  if (runtime == NULL) return TL_ERROR_INVALID_ARGUMENT;
  if (num_threads < 0)
    return tl__set_error(runtime, TL_ERROR_INVALID_ARGUMENT,
                         "num_threads must be >= 0 (0: one per online CPU), got %d", (int)num_threads);
  if (num_threads > TL_MAX_THREADS)
    return tl__set_error(runtime, TL_ERROR_INVALID_ARGUMENT, "num_threads must be at most %d (TL_MAX_THREADS), got %d",
                         TL_MAX_THREADS, (int)num_threads);
  if (num_threads == 0) num_threads = tl__online_cpus();
  pthread_mutex_lock(&runtime->pool_mutex);
  if (atomic_load(&runtime->num_threads) != num_threads) {
    tl__pool_destroy(runtime->pool);   /* recreated lazily with the new size */
    runtime->pool = NULL;
    atomic_store(&runtime->num_threads, num_threads);
  }
  pthread_mutex_unlock(&runtime->pool_mutex);
  tl__clear_error(runtime);
  return TL_OK;
}

TL_API int32_t tl_runtime_num_threads(const tl_runtime_t* runtime) {
  if (runtime == NULL) return 0;
  return atomic_load(&((tl_runtime_t*)runtime)->num_threads);
}

TL_API const char* tl_runtime_cpu_features(const tl_runtime_t* runtime) {
  if (runtime == NULL) return "";
  return runtime->cpu_features;
}
