/* runtime.c - the runtime handle: options, creation, threads, CPU features, version. */
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

TL_API tl_status_t tl_runtime_create(const tl_runtime_options_t* options, tl_runtime_t** out_runtime) {
  if (out_runtime == NULL) return TL_ERROR_INVALID_ARGUMENT;
  *out_runtime = NULL;
  tl_runtime_options_t opts;
  tl_runtime_options_initialize(&opts);
  if (options != NULL) {
    if (options->struct_size != sizeof(tl_runtime_options_t)) return TL_ERROR_VERSION;
    opts = *options;
  }
  if (opts.num_threads < 0) return TL_ERROR_INVALID_ARGUMENT;
  tl_runtime_t* rt = (tl_runtime_t*)calloc(1, sizeof *rt);
  if (rt == NULL) return TL_ERROR_OUT_OF_MEMORY;
  rt->id = atomic_fetch_add(&tl_next_runtime_id, 1);
  atomic_init(&rt->num_threads, opts.num_threads > 0 ? opts.num_threads : tl__online_cpus());
  rt->parallel_for = opts.parallel_for;
  rt->user_context = opts.user_context;
  if (pthread_mutex_init(&rt->pool_mutex, NULL) != 0) {
    free(rt);
    return TL_ERROR_OUT_OF_MEMORY;
  }
  tl__detect_cpu_features(rt->cpu_features, sizeof rt->cpu_features);
  *out_runtime = rt;
  return TL_OK;
}

TL_API void tl_runtime_release(tl_runtime_t* runtime) {
  if (runtime == NULL) return;
  tl__pool_destroy(runtime->pool);
  pthread_mutex_destroy(&runtime->pool_mutex);
  tl__clear_error(runtime);
  free(runtime);
}

TL_API tl_status_t tl_runtime_set_num_threads(tl_runtime_t* runtime, int32_t num_threads) {
  if (runtime == NULL) return TL_ERROR_INVALID_ARGUMENT;
  if (num_threads < 0)
    return tl__set_error(runtime, TL_ERROR_INVALID_ARGUMENT,
                         "num_threads must be >= 0 (0: one per online CPU), got %d", (int)num_threads);
  if (num_threads == 0) num_threads = tl__online_cpus();
  pthread_mutex_lock(&runtime->pool_mutex);
  if (atomic_load(&runtime->num_threads) != num_threads) {
    tl__pool_destroy(runtime->pool);   /* recreated lazily with the new size */
    runtime->pool = NULL;
    atomic_store(&runtime->num_threads, num_threads);
  }
  pthread_mutex_unlock(&runtime->pool_mutex);
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
