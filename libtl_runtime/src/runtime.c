/* runtime.c - the runtime handle: options, creation, threads, CPU features, version. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device.h"

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

static void atfork_prepare(void) {
  tl__devices_atfork_prepare();
  pthread_mutex_lock(&tl_registry_mutex);
  tl__shells_atfork_prepare();
}
static void atfork_parent(void) {
  tl__shells_atfork_parent();
  pthread_mutex_unlock(&tl_registry_mutex);
  tl__devices_atfork_parent();
}
/* In the child only the forking thread exists: the pool's workers are gone and pool_mutex may be
 * held by a thread that no longer exists. Re-initialise the locks and start pools afresh. */
static void atfork_child(void) {
  tl__shells_atfork_child();
  tl__devices_atfork_child();
  pthread_mutex_init(&tl_registry_mutex, NULL);
  for (tl_runtime_t* rt = tl_registry_head; rt != NULL; rt = rt->fork_next) {
    pthread_mutex_init(&rt->pool_mutex, NULL);
    tl__pool_forget_after_fork(rt->pool);
    rt->pool = NULL;
  }
}
static void install_atfork(void) { pthread_atfork(atfork_prepare, atfork_parent, atfork_child); }

static tl_status_t set_num_threads(tl_runtime_t* runtime, int32_t num_threads);

TL_API tl_status_t tl_runtime_create(const tl_runtime_options_t* options, tl_runtime_t** out_runtime) {
  if (out_runtime == NULL) return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT, "out_runtime is NULL");
  *out_runtime = NULL;
  tl__clear_loose_error();
  tl_runtime_options_t opts;
  tl_runtime_options_initialize(&opts);
  if (options != NULL) {
    const size_t v1 = offsetof(tl_runtime_options_t, alloc_fn);   /* runtime 0.1.0 before the allocator hook */
    if (options->struct_size != sizeof(tl_runtime_options_t) && options->struct_size != v1)
      return tl__set_loose_error(TL_ERROR_VERSION,
                                  "tl_runtime_options_t.struct_size is %u, but runtime %s takes %zu or %zu "
                                  "(call tl_runtime_options_initialize)",
                                  options->struct_size, tl_runtime_version(), v1, sizeof(tl_runtime_options_t));
    memcpy(&opts, options, options->struct_size);
  }
  if (opts.num_threads < 0)
    return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT, "num_threads must be >= 0 (0: one per online CPU), got %d",
                                (int)opts.num_threads);
  if (opts.num_threads > TL_MAX_THREADS)
    return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT, "num_threads must be at most %d (TL_MAX_THREADS), got %d",
                                TL_MAX_THREADS, (int)opts.num_threads);
  if ((opts.alloc_fn == NULL) != (opts.free_fn == NULL))
    return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT, "alloc_fn and free_fn must both be set or both be NULL");
  if (opts.alloc_fn == NULL) {
    opts.alloc_fn = tl__default_alloc;
    opts.free_fn = tl__default_free;
    opts.alloc_context = NULL;
  }
  tl_runtime_t* rt = (tl_runtime_t*)tl__shell_new(TL_SHELL_RUNTIME);
  if (rt == NULL) return tl__set_loose_error(TL_ERROR_OUT_OF_MEMORY, "out of memory creating the runtime");
  atomic_init(&rt->inline_ws, NULL);
  atomic_init(&rt->life, TL_LIFE_USER);
  rt->alloc_fn = opts.alloc_fn;
  rt->free_fn = opts.free_fn;
  rt->alloc_context = opts.alloc_context;
  rt->id = atomic_fetch_add(&tl_next_runtime_id, 1);
  atomic_init(&rt->num_threads, opts.num_threads > 0 ? opts.num_threads : tl__online_cpus());
  rt->parallel_for = opts.parallel_for;
  rt->user_context = opts.user_context;
  if (pthread_mutex_init(&rt->pool_mutex, NULL) != 0) {
    tl__shell_retire(TL_SHELL_RUNTIME, rt, TL_MAGIC_RUNTIME_DEAD);
    return tl__set_loose_error(TL_ERROR_OUT_OF_MEMORY, "cannot create a mutex");
  }
  tl__detect_cpu_features(rt->cpu_features, sizeof rt->cpu_features);
  pthread_once(&tl_atfork_once, install_atfork);
  pthread_mutex_lock(&tl_registry_mutex);
  rt->fork_next = tl_registry_head;
  tl_registry_head = rt;
  pthread_mutex_unlock(&tl_registry_mutex);
  atomic_store_explicit(&rt->shell.magic, TL_MAGIC_RUNTIME, memory_order_release);
  *out_runtime = rt;
  return TL_OK;
}

/* The last reference is gone: no package and no call uses the runtime any more. */
void tl__runtime_destroy(tl_runtime_t* runtime) {
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
  tl__shell_retire(TL_SHELL_RUNTIME, runtime, TL_MAGIC_RUNTIME_DEAD);
}

/* magic of a runtime handle, or the reason it is not one (NULL when it is) */
static const char* runtime_shell_problem(const tl_runtime_t* rt, uint32_t* magic) {
  *magic = atomic_load_explicit(&((tl_runtime_t*)rt)->shell.magic, memory_order_acquire);
  if (*magic == TL_MAGIC_RUNTIME) return NULL;
  if (*magic == TL_MAGIC_RUNTIME_DEAD) return "was released (its last reference is gone)";
  return tl__magic_name(*magic);
}

tl_status_t tl__runtime_enter(const tl_runtime_t* rt, const char* fn) {
  if (rt == NULL) return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT, "%s: runtime is NULL", fn);
  uint32_t m;
  const char* why = runtime_shell_problem(rt, &m);
  if (why != NULL && m != TL_MAGIC_RUNTIME_DEAD)
    return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT, "%s: %p is %s, not a runtime handle", fn, (const void*)rt, why);
  if (why != NULL || !tl__life_enter(&((tl_runtime_t*)rt)->life))
    return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT,
                               "%s: runtime %p was released (tl_runtime_release dropped its last reference); "
                               "call refused", fn, (const void*)rt);
  return TL_OK;
}

void tl__runtime_leave(tl_runtime_t* rt) {
  if (tl__life_leave(&rt->life)) tl__runtime_destroy(rt);
}

TL_API tl_status_t tl_runtime_retain(tl_runtime_t* runtime) {
  tl_status_t st = tl__runtime_enter(runtime, "tl_runtime_retain");
  if (st != TL_OK) return st;
  int r = tl__life_retain(&runtime->life);
  tl__runtime_leave(runtime);
  if (r < 0) return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT, "tl_runtime_retain: runtime %p has 2^31 - 1 "
                                        "references already", (void*)runtime);
  if (r == 0)
    return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT, "tl_runtime_retain: runtime %p was released", (void*)runtime);
  return TL_OK;
}

TL_API tl_status_t tl_runtime_release(tl_runtime_t* runtime) {
  if (runtime == NULL) return TL_OK;
  uint32_t m;
  const char* why = runtime_shell_problem(runtime, &m);
  if (why != NULL && m != TL_MAGIC_RUNTIME_DEAD)
    return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT, "tl_runtime_release: %p is %s, not a runtime handle",
                               (void*)runtime, why);
  int r = why != NULL ? -1 : tl__life_release(&runtime->life);
  if (r < 0)
    return tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT,
                               "tl_runtime_release: runtime %p was already released (a double release, or a release "
                               "without a matching tl_runtime_create/tl_runtime_retain)", (void*)runtime);
  if (r == 1) tl__runtime_destroy(runtime);
  return TL_OK;
}

TL_API tl_status_t tl_runtime_set_num_threads(tl_runtime_t* runtime, int32_t num_threads) {
  tl_status_t st = tl__runtime_enter(runtime, "tl_runtime_set_num_threads");
  if (st != TL_OK) return st;
  st = set_num_threads(runtime, num_threads);
  tl__runtime_leave(runtime);
  return st;
}

static tl_status_t set_num_threads(tl_runtime_t* runtime, int32_t num_threads) {
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
  if (tl__runtime_enter(runtime, "tl_runtime_num_threads") != TL_OK) return 0;
  tl_runtime_t* rt = (tl_runtime_t*)runtime;
  int32_t n = atomic_load(&rt->num_threads);
  tl__runtime_leave(rt);
  return n;
}

/* The features live in the shell, which is never freed: the string stays readable. */
TL_API const char* tl_runtime_cpu_features(const tl_runtime_t* runtime) {
  if (tl__runtime_enter(runtime, "tl_runtime_cpu_features") != TL_OK) return "";
  tl__runtime_leave((tl_runtime_t*)runtime);
  return runtime->cpu_features;
}
