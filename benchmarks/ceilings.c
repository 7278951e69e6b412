/* ceilings.c - this machine's two ceilings, measured: FP32 FMA throughput and STREAM triad.
 *
 * Usage: ceilings THREADS   prints one JSON object:
 *   {"threads": T, "fma_avx512_gflops": ..., "fma_avx2_gflops": ..., "triad_gbs": ...,
 *    "triad_nt_gbs": ..., "triad_l2_gbs": ...}
 * FMA: each thread runs 24 independent vector accumulators of vfmadd231ps (2 FLOPs per lane).
 * Triad: a[i] = b[i] + s * c[i] over three 256 MiB float arrays (bytes counted: 12 per element,
 * no write-allocate), best of 5 sweeps; "_nt" with non-temporal stores; "_l2" with 3 x 1 MiB
 * arrays per thread (cache resident). Compiled by benchmarks/ceilings.py with -O2 -mavx512f
 * -mfma -pthread; the AVX-512 figures need an AVX-512 machine (0 when absent).
 */
#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

typedef struct {
  int id, nthreads, mode;  /* mode 0 fma512, 1 fma256, 2 triad, 3 triad nt, 4 triad cached */
  long iters;
  float *a, *b, *c;
  size_t n;
  float sink;
  pthread_barrier_t* bar;
  double t;
} job_t;

__attribute__((target("avx512f"))) static float fma512(long iters) {
  __m512 acc[24];
  const __m512 x = _mm512_set1_ps(1.0000001f), y = _mm512_set1_ps(0.9999999f);
  for (int i = 0; i < 24; ++i) acc[i] = _mm512_set1_ps((float)i);
  for (long it = 0; it < iters; ++it) {
#pragma GCC unroll 24
    for (int i = 0; i < 24; ++i) acc[i] = _mm512_fmadd_ps(acc[i], x, y);
  }
  __m512 s = acc[0];
  for (int i = 1; i < 24; ++i) s = _mm512_add_ps(s, acc[i]);
  return _mm512_reduce_add_ps(s);
}

__attribute__((target("avx2,fma"))) static float fma256(long iters) {
  __m256 acc[12];
  const __m256 x = _mm256_set1_ps(1.0000001f), y = _mm256_set1_ps(0.9999999f);
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps((float)i);
  for (long it = 0; it < iters; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], x, y);
  }
  __m256 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm256_add_ps(s, acc[i]);
  float o[8];
  _mm256_storeu_ps(o, s);
  return o[0] + o[7];
}

__attribute__((target("avx512f"))) static void triad(float* a, const float* b, const float* c, size_t n, int nt) {
  const __m512 s = _mm512_set1_ps(3.0f);
  size_t i = 0;
  if (nt) {
    for (; i + 16 <= n; i += 16) _mm512_stream_ps(a + i, _mm512_fmadd_ps(_mm512_load_ps(c + i), s, _mm512_load_ps(b + i)));
    _mm_sfence();
  } else {
    for (; i + 16 <= n; i += 16) _mm512_store_ps(a + i, _mm512_fmadd_ps(_mm512_load_ps(c + i), s, _mm512_load_ps(b + i)));
  }
  for (; i < n; ++i) a[i] = b[i] + 3.0f * c[i];
}

static void* worker(void* p) {
  job_t* j = (job_t*)p;
  pthread_barrier_wait(j->bar);
  double t0 = now();
  if (j->mode == 0) j->sink = fma512(j->iters);
  else if (j->mode == 1) j->sink = fma256(j->iters);
  else {
    size_t per = j->n / j->nthreads, lo = per * j->id;
    for (long r = 0; r < j->iters; ++r) triad(j->a + lo, j->b + lo, j->c + lo, per, j->mode == 3);
  }
  j->t = now() - t0;
  pthread_barrier_wait(j->bar);
  return NULL;
}

/* wall seconds of one run of mode on T threads (slowest thread) */
static double run(int T, int mode, long iters, float* a, float* b, float* c, size_t n) {
  pthread_t th[64];
  job_t jobs[64];
  pthread_barrier_t bar;
  pthread_barrier_init(&bar, NULL, (unsigned)T);
  for (int i = 0; i < T; ++i) {
    jobs[i] = (job_t){.id = i, .nthreads = T, .mode = mode, .iters = iters, .a = a, .b = b, .c = c, .n = n, .bar = &bar};
    if (i) pthread_create(&th[i], NULL, worker, &jobs[i]);
  }
  worker(&jobs[0]);
  double t = jobs[0].t;
  for (int i = 1; i < T; ++i) {
    pthread_join(th[i], NULL);
    if (jobs[i].t > t) t = jobs[i].t;
  }
  pthread_barrier_destroy(&bar);
  return t;
}

static double best(int T, int mode, long iters, float* a, float* b, float* c, size_t n, int reps) {
  double t = 1e30;
  for (int r = 0; r < reps; ++r) {
    double x = run(T, mode, iters, a, b, c, n);
    if (x < t) t = x;
  }
  return t;
}

int main(int argc, char** argv) {
  int T = argc > 1 ? atoi(argv[1]) : 1;
  if (T < 1 || T > 64) T = 1;
  __builtin_cpu_init();
  int has512 = __builtin_cpu_supports("avx512f");
  const long fit = 20000000;
  double f512 = 0, f256 = 0;
  if (has512) f512 = 24.0 * 16 * 2 * fit * T / best(T, 0, fit, 0, 0, 0, 0, 5) / 1e9;
  f256 = 12.0 * 8 * 2 * fit * T / best(T, 1, fit, 0, 0, 0, 0, 5) / 1e9;
  size_t n = (size_t)64 << 20;  /* 64 Mi floats = 256 MiB per array */
  float *a = aligned_alloc(64, n * 4), *b = aligned_alloc(64, n * 4), *c = aligned_alloc(64, n * 4);
  if (!a || !b || !c) { fprintf(stderr, "out of memory\n"); return 1; }
  for (size_t i = 0; i < n; ++i) { a[i] = 0.f; b[i] = (float)(i & 1023); c[i] = 0.5f; }
  double tri = 0, tri_nt = 0, tri_l2 = 0;
  if (has512) {
    tri = 12.0 * n / best(T, 2, 1, a, b, c, n, 5) / 1e9;
    tri_nt = 12.0 * n / best(T, 3, 1, a, b, c, n, 5) / 1e9;
    size_t small = (size_t)T * (256 << 10);  /* 1 MiB per array per thread */
    tri_l2 = 12.0 * small * 200 / best(T, 4, 200, a, b, c, small, 5) / 1e9;
  }
  printf("{\"threads\": %d, \"fma_avx512_gflops\": %.1f, \"fma_avx2_gflops\": %.1f, \"triad_gbs\": %.1f, "
         "\"triad_nt_gbs\": %.1f, \"triad_l2_gbs\": %.1f}\n", T, f512, f256, tri, tri_nt, tri_l2);
  free(a); free(b); free(c);
  return 0;
}
