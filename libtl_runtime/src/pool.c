/* pool.c - running the programs of a launch: inline, on the runtime's thread pool (the caller
 * participates; workers take chunks from an atomic counter), or on the host's parallel_for. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

typedef struct {
  void* data;
  uint64_t size;
} tl_workspace_t;

/* Makes ws hold at least bytes (aligned to TL_WORKSPACE_ALIGN); returns 0 or -1. */
static int workspace_reserve(const tl_runtime_t* rt, tl_workspace_t* ws, uint64_t bytes) {
  if (bytes == 0 || bytes <= ws->size) return 0;
  uint64_t rounded = (bytes + TL_WORKSPACE_ALIGN - 1) & ~(uint64_t)(TL_WORKSPACE_ALIGN - 1);
  if (rounded < bytes || rounded > (uint64_t)SIZE_MAX) return -1;
  void* p = tl__alloc(rt, (size_t)rounded, TL_WORKSPACE_ALIGN);
  if (p == NULL) return -1;
  tl__free(rt, ws->data);
  ws->data = p;
  ws->size = rounded;
  return 0;
}

struct tl_pool {
  const tl_runtime_t* rt;           /* whose allocator owns this pool's memory */
  int nworkers;
  pthread_t* threads;
  tl_workspace_t* workspaces;   /* nworkers + 1: the last one is the caller's */
  pthread_mutex_t mu;
  pthread_cond_t cv_start;
  pthread_cond_t cv_done;
  atomic_uint_fast64_t generation;  /* bumped (under mu) when a job is posted */
  atomic_int stop;
  atomic_int active;                /* workers still inside the current job */
  const tl_job_t* job;
  int64_t chunk;
  atomic_int_fast64_t next;
  atomic_int result;
};

typedef struct {
  tl_pool_t* pool;
  int index;
} tl_worker_arg_t;

static void run_chunks(tl_pool_t* pool, const tl_job_t* job, tl_workspace_t* ws) {
  for (;;) {
    if (atomic_load_explicit(&pool->result, memory_order_relaxed) != 0) return;
    int64_t first = atomic_fetch_add_explicit(&pool->next, pool->chunk, memory_order_relaxed);
    if (first >= job->total) return;
    int64_t last = first + pool->chunk < job->total ? first + pool->chunk : job->total;
    int32_t r;
    if (workspace_reserve(pool->rt, ws, job->workspace_bytes) != 0) {
      r = TL_JOB_ENOMEM;
    } else {
      r = job->entry(job->args, job->grid, first, last, job->workspace_bytes ? ws->data : NULL);
    }
    if (r != 0) {
      int expected = 0;
      atomic_compare_exchange_strong(&pool->result, &expected, (int)r);
      return;
    }
  }
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* Workers spin this many rounds for the next job before sleeping: back-to-back launches
 * then skip the futex wake-up (tens of microseconds). */
#define TL_SPIN_ROUNDS 4000

static void* worker_main(void* varg) {
  tl_worker_arg_t* arg = (tl_worker_arg_t*)varg;
  tl_pool_t* pool = arg->pool;
  tl_workspace_t* ws = &pool->workspaces[arg->index];
  tl__free(pool->rt, arg);
  uint64_t seen = 0;
  for (;;) {
    uint64_t g = atomic_load_explicit(&pool->generation, memory_order_acquire);
    for (int i = 0; i < TL_SPIN_ROUNDS && g == seen && !atomic_load_explicit(&pool->stop, memory_order_relaxed); ++i) {
      cpu_relax();
      g = atomic_load_explicit(&pool->generation, memory_order_acquire);
    }
    if (g == seen) {
      pthread_mutex_lock(&pool->mu);
      while (!atomic_load(&pool->stop) && atomic_load(&pool->generation) == seen)
        pthread_cond_wait(&pool->cv_start, &pool->mu);
      g = atomic_load(&pool->generation);
      pthread_mutex_unlock(&pool->mu);
    }
    if (atomic_load(&pool->stop)) break;
    seen = g;
    run_chunks(pool, pool->job, ws);
    if (atomic_fetch_sub_explicit(&pool->active, 1, memory_order_acq_rel) == 1) {
      pthread_mutex_lock(&pool->mu);
      pthread_cond_signal(&pool->cv_done);
      pthread_mutex_unlock(&pool->mu);
    }
  }
  return NULL;
}

void tl__pool_destroy(tl_pool_t* pool) {
  if (pool == NULL) return;
  pthread_mutex_lock(&pool->mu);
  atomic_store(&pool->stop, 1);
  pthread_cond_broadcast(&pool->cv_start);
  pthread_mutex_unlock(&pool->mu);
  for (int i = 0; i < pool->nworkers; ++i) pthread_join(pool->threads[i], NULL);
  pthread_cond_destroy(&pool->cv_start);
  pthread_cond_destroy(&pool->cv_done);
  pthread_mutex_destroy(&pool->mu);
  tl__pool_forget_after_fork(pool);
}

/* Frees the pool's memory without touching its threads or locks (also used in a forked child,
 * where the workers do not exist and the locks may be held by threads that are gone). */
void tl__pool_forget_after_fork(tl_pool_t* pool) {
  if (pool == NULL) return;
  const tl_runtime_t* rt = pool->rt;
  for (int i = 0; i <= pool->nworkers; ++i) tl__free(rt, pool->workspaces[i].data);
  tl__free(rt, pool->workspaces);
  tl__free(rt, pool->threads);
  tl__free(rt, pool);
}

static tl_pool_t* pool_create(const tl_runtime_t* rt, int nworkers) {
  tl_pool_t* pool = (tl_pool_t*)tl__calloc(rt, 1, sizeof *pool);
  if (pool == NULL) return NULL;
  pool->rt = rt;
  pool->threads = (pthread_t*)tl__calloc(rt, (size_t)nworkers, sizeof(pthread_t));
  pool->workspaces = (tl_workspace_t*)tl__calloc(rt, (size_t)nworkers + 1, sizeof(tl_workspace_t));
  if (pool->threads == NULL || pool->workspaces == NULL) {
    tl__free(rt, pool->threads);
    tl__free(rt, pool->workspaces);
    tl__free(rt, pool);
    return NULL;
  }
  pthread_mutex_init(&pool->mu, NULL);
  pthread_cond_init(&pool->cv_start, NULL);
  pthread_cond_init(&pool->cv_done, NULL);
  atomic_init(&pool->next, 0);
  atomic_init(&pool->result, 0);
  atomic_init(&pool->generation, 0);
  atomic_init(&pool->stop, 0);
  atomic_init(&pool->active, 0);
  for (int i = 0; i < nworkers; ++i) {
    tl_worker_arg_t* arg = (tl_worker_arg_t*)tl__alloc(rt, sizeof *arg, 16);
    if (arg == NULL) break;
    arg->pool = pool;
    arg->index = i;
    if (pthread_create(&pool->threads[i], NULL, worker_main, arg) != 0) {
      tl__free(rt, arg);
      break;
    }
    pool->nworkers = i + 1;
  }
  if (pool->nworkers == 0 && nworkers > 0) {
    tl__pool_destroy(pool);
    return NULL;
  }
  return pool;
}

/* Inline launches (one program, or one thread) take their workspace from the stack when it is
 * small, else from one block cached on the runtime: taken by an atomic exchange and put back by a
 * compare-exchange, so back-to-back launches allocate nothing and concurrent ones each get their
 * own (a launch that finds the slot empty allocates; one that finds it refilled frees its block).
 * Blocks over TL_INLINE_WS_KEEP bytes are not kept. */
#define TL_INLINE_WS_STACK 4096
#define TL_INLINE_WS_KEEP (1u << 20)

struct tl_ws_block {
  uint64_t size;   /* bytes usable after the TL_WORKSPACE_ALIGN-byte header */
};

void tl__inline_ws_free(tl_runtime_t* rt) {
  struct tl_ws_block* blk = atomic_exchange(&rt->inline_ws, NULL);
  tl__free(rt, blk);
}

static int32_t run_inline(tl_runtime_t* rt, const tl_job_t* job) {
  if (job->workspace_bytes == 0) return job->entry(job->args, job->grid, 0, job->total, NULL);
  if (job->workspace_bytes <= TL_INLINE_WS_STACK) {
    _Alignas(TL_WORKSPACE_ALIGN) unsigned char small[TL_INLINE_WS_STACK];
    return job->entry(job->args, job->grid, 0, job->total, small);
  }
  struct tl_ws_block* blk = atomic_exchange_explicit(&rt->inline_ws, NULL, memory_order_acquire);
  if (blk != NULL && blk->size < job->workspace_bytes) {
    tl__free(rt, blk);
    blk = NULL;
  }
  if (blk == NULL) {
    uint64_t rounded = (job->workspace_bytes + TL_WORKSPACE_ALIGN - 1) & ~(uint64_t)(TL_WORKSPACE_ALIGN - 1);
    if (rounded < job->workspace_bytes || rounded > (uint64_t)SIZE_MAX - TL_WORKSPACE_ALIGN) return TL_JOB_ENOMEM;
    blk = (struct tl_ws_block*)tl__alloc(rt, (size_t)rounded + TL_WORKSPACE_ALIGN, TL_WORKSPACE_ALIGN);
    if (blk == NULL) return TL_JOB_ENOMEM;
    blk->size = rounded;
  }
  int32_t r = job->entry(job->args, job->grid, 0, job->total, (unsigned char*)blk + TL_WORKSPACE_ALIGN);
  struct tl_ws_block* empty = NULL;
  if (blk->size > TL_INLINE_WS_KEEP ||
      !atomic_compare_exchange_strong_explicit(&rt->inline_ws, &empty, blk, memory_order_release, memory_order_relaxed))
    tl__free(rt, blk);
  return r;
}

typedef struct {
  const tl_runtime_t* rt;
  const tl_job_t* job;
  int64_t nchunks;
  atomic_int result;
} tl_host_task_t;

static void host_task(void* ctx, int64_t i) {
  tl_host_task_t* t = (tl_host_task_t*)ctx;
  const tl_job_t* job = t->job;
  if (i < 0 || i >= t->nchunks || atomic_load(&t->result) != 0) return;
  int64_t first = (int64_t)((__int128)job->total * i / t->nchunks);
  int64_t last = (int64_t)((__int128)job->total * (i + 1) / t->nchunks);
  if (first >= last) return;
  tl_workspace_t ws = {NULL, 0};
  int32_t r;
  if (workspace_reserve(t->rt, &ws, job->workspace_bytes) != 0) {
    r = TL_JOB_ENOMEM;
  } else {
    r = job->entry(job->args, job->grid, first, last, ws.data);
  }
  tl__free(t->rt, ws.data);
  if (r != 0) {
    int expected = 0;
    atomic_compare_exchange_strong(&t->result, &expected, (int)r);
  }
}

int32_t tl__run_job(tl_runtime_t* rt, const tl_job_t* job) {
  int32_t nthreads = atomic_load_explicit(&rt->num_threads, memory_order_relaxed);
  if (job->total <= 1 || nthreads <= 1) return run_inline(rt, job);

  if (rt->parallel_for != NULL) {
    tl_host_task_t task;
    task.rt = rt;
    task.job = job;
    task.nchunks = job->total < (int64_t)nthreads * 4 ? job->total : (int64_t)nthreads * 4;
    atomic_init(&task.result, 0);
    rt->parallel_for(rt->user_context, task.nchunks, host_task, &task);
    return atomic_load(&task.result);
  }

  /* One pooled launch at a time: a launch that finds the pool busy (another thread of a server is
   * using it) runs on its own calling thread instead of queueing behind it. */
  if (pthread_mutex_trylock(&rt->pool_mutex) != 0) return run_inline(rt, job);
  nthreads = atomic_load(&rt->num_threads);
  if (rt->pool == NULL) {
    rt->pool = nthreads > 1 ? pool_create(rt, nthreads - 1) : NULL;
  }
  tl_pool_t* pool = rt->pool;
  if (pool == NULL) {
    pthread_mutex_unlock(&rt->pool_mutex);
    return run_inline(rt, job);   /* could not start threads: still correct, just serial */
  }
  int64_t workers = (int64_t)pool->nworkers + 1;
  int64_t chunk = job->total / (workers * 4);
  pool->chunk = chunk < 1 ? 1 : chunk;
  atomic_store(&pool->next, 0);
  atomic_store(&pool->result, 0);
  pool->job = job;
  atomic_store(&pool->active, pool->nworkers);
  pthread_mutex_lock(&pool->mu);
  atomic_fetch_add_explicit(&pool->generation, 1, memory_order_release);
  pthread_cond_broadcast(&pool->cv_start);
  pthread_mutex_unlock(&pool->mu);

  run_chunks(pool, job, &pool->workspaces[pool->nworkers]);

  for (int i = 0; i < TL_SPIN_ROUNDS && atomic_load_explicit(&pool->active, memory_order_acquire) > 0; ++i) cpu_relax();
  if (atomic_load_explicit(&pool->active, memory_order_acquire) > 0) {
    pthread_mutex_lock(&pool->mu);
    while (atomic_load(&pool->active) > 0) pthread_cond_wait(&pool->cv_done, &pool->mu);
    pthread_mutex_unlock(&pool->mu);
  }
  pool->job = NULL;
  int32_t r = atomic_load(&pool->result);
  pthread_mutex_unlock(&rt->pool_mutex);
  return r;
}

int32_t tl__online_cpus(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) return 1;
  if (n > 1024) n = 1024;
  return (int32_t)n;
}
