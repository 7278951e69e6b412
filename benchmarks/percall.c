/* percall.c - the C per-call cost of tl_kernel_launch on a 1-element tensor.
 *
 * Usage: percall PACKAGE [KERNEL] [CALLS] [ROUNDS]   prints one JSON object:
 *   {"kernel": ..., "calls": N, "rounds": R, "median_ns": ..., "min_ns": ..., "entry_median_ns": ...,
 *    "overhead_ns": ...}
 * KERNEL (default add__DT_float32) takes (x, y, out) float32 rank-2 tensors; each is 1x1
 * (contiguous, strides NULL). Each round times CALLS back-to-back tl_kernel_launch calls with
 * CLOCK_MONOTONIC; median/min are over the rounds' per-call times. "entry_median_ns" times the
 * kernel's entry point called directly (same arguments, grid and workspace, no runtime), so
 * "overhead_ns" = median_ns - entry_median_ns is what the runtime's launch path adds. The result
 * is checked (out == x + y) so the loops cannot be no-ops. Built by benchmarks/percall.py against the
 * runtime of the tree (build/runtime or $TL_RUNTIME_LIB's directory).
 */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tl/runtime.h"

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

typedef struct {
  tl_kernel_entry_t entry;
  tl_arg_t* args;
  tl_grid_t* grid;
  int64_t total;
  void* ws;
} direct_t;

/* One batch of CALLS calls: through tl_kernel_launch (direct == NULL) or the entry point. */
static double batch_ns(tl_kernel_t* k, const tl_value_t* args, const direct_t* direct, long calls) {
  double t0 = now_ns();
  if (direct != NULL) {
    for (long i = 0; i < calls; ++i)
      if (direct->entry(direct->args, direct->grid, 0, direct->total, direct->ws) != 0) return -1.0;
  } else {
    for (long i = 0; i < calls; ++i)
      if (tl_kernel_launch(k, args, 3, NULL) != TL_OK) return -1.0;
  }
  return (now_ns() - t0) / (double)calls;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s PACKAGE [KERNEL] [CALLS] [ROUNDS]\n", argv[0]);
    return 2;
  }
  const char* kname = argc > 2 ? argv[2] : "add__DT_float32";
  long calls = argc > 3 ? atol(argv[3]) : 1000;
  int rounds = argc > 4 ? atoi(argv[4]) : 101;
  if (calls < 1 || rounds < 1 || rounds > 1000) {
    fprintf(stderr, "percall: CALLS and ROUNDS must be positive (ROUNDS <= 1000)\n");
    return 2;
  }
  tl_runtime_t* rt;
  tl_package_t* pkg;
  tl_kernel_t* k;
  if (tl_runtime_create(NULL, &rt) != TL_OK) {
    fprintf(stderr, "percall: %s\n", tl_runtime_last_error(NULL));
    return 1;
  }
  if (tl_package_open(rt, argv[1], &pkg) != TL_OK || tl_package_kernel(pkg, kname, &k) != TL_OK) {
    fprintf(stderr, "percall: %s\n", tl_runtime_last_error(rt));
    return 1;
  }
  float x = 1.5f, y = 2.25f, out = 0.0f;
  int64_t shape[2] = {1, 1};
  DLTensor tx = {&x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
  DLTensor ty = tx, to = tx;
  ty.data = &y;
  to.data = &out;
  tl_value_t args[3] = {{.tensor = &tx}, {.tensor = &ty}, {.tensor = &to}};
  double per[1000], per_entry[1000];
  if (batch_ns(k, args, NULL, calls) < 0) {   /* warm-up, and the launch's own error if any */
    fprintf(stderr, "percall: %s\n", tl_runtime_last_error(rt));
    return 1;
  }
  if (out != x + y) {
    fprintf(stderr, "percall: wrong result %g (expected %g)\n", out, x + y);
    return 1;
  }
  /* the same launch without the runtime: the entry point on tl_tensor_t arguments */
  const tl_kernel_desc_t* desc = tl_kernel_desc(k);
  tl_tensor_t tt[3];
  tl_arg_t cargs[3];
  float* bufs[3] = {&x, &y, &out};
  for (int i = 0; i < 3; ++i) {
    memset(&tt[i], 0, sizeof tt[i]);
    tt[i].data = bufs[i];
    for (int d = 0; d < TL_MAX_RANK; ++d) tt[i].shape[d] = 1;
    tt[i].strides[0] = 1;
    tt[i].strides[1] = 1;
    cargs[i].tensor = &tt[i];
  }
  tl_grid_t grid;
  if (desc->grid == NULL || desc->grid(cargs, &grid) != 0) {
    fprintf(stderr, "percall: kernel %s has no grid rule\n", kname);
    return 1;
  }
  int64_t total = grid.size[0] * grid.size[1] * grid.size[2];
  void* ws = NULL;
  if (desc->workspace_bytes > 0 &&
      posix_memalign(&ws, TL_WORKSPACE_ALIGN, (size_t)desc->workspace_bytes) != 0) {
    fprintf(stderr, "percall: out of memory\n");
    return 1;
  }
  out = 0.0f;
  direct_t direct = {desc->entry, cargs, &grid, total, ws};
  if (batch_ns(k, args, &direct, calls) < 0 || out != x + y) {
    fprintf(stderr, "percall: the direct entry call failed or gave a wrong result\n");
    return 1;
  }
  for (int r = 0; r < rounds; ++r) {   /* interleaved: launch, entry, launch, entry, ... */
    per[r] = batch_ns(k, args, NULL, calls);
    per_entry[r] = batch_ns(k, args, &direct, calls);
    if (per[r] < 0 || per_entry[r] < 0) {
      fprintf(stderr, "percall: a launch failed: %s\n", tl_runtime_last_error(rt));
      return 1;
    }
  }
  qsort(per, (size_t)rounds, sizeof per[0], cmp);
  qsort(per_entry, (size_t)rounds, sizeof per_entry[0], cmp);
  double med = per[rounds / 2], med_entry = per_entry[rounds / 2];
  free(ws);
  printf("{\"kernel\": \"%s\", \"calls\": %ld, \"rounds\": %d, \"median_ns\": %.2f, \"min_ns\": %.2f, "
         "\"entry_median_ns\": %.2f, \"overhead_ns\": %.2f}\n",
         kname, calls, rounds, med, per[0], med_entry, med - med_entry);
  tl_package_release(pkg);
  tl_runtime_release(rt);
  return 0;
}
