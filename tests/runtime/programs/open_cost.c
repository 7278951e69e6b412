/* open_cost.c PACKAGE N: opens and releases PACKAGE N times through a counting allocator and
 * prints "bytes_per_open=B peak_live=L" (the bytes alloc_fn handed out per open, and the most
 * live at once), or the runtime's error. */
#include <stdio.h>
#include <stdlib.h>
#include <tl/runtime.h>

static size_t g_total, g_live, g_peak;
typedef struct { size_t size; size_t pad[7]; } hdr_t;   /* 64 bytes: keeps 64-byte alignment */

static void* count_alloc(void* ctx, size_t n, size_t alignment) {
  (void)ctx;
  if (alignment > 64) return NULL;
  hdr_t* h = (hdr_t*)aligned_alloc(64, (sizeof(hdr_t) + n + 63) / 64 * 64);
  if (h == NULL) return NULL;
  h->size = n;
  g_total += n;
  g_live += n;
  if (g_live > g_peak) g_peak = g_live;
  return h + 1;
}

static void count_free(void* ctx, void* p) {
  (void)ctx;
  if (p == NULL) return;
  hdr_t* h = (hdr_t*)p - 1;
  g_live -= h->size;
  free(h);
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  int n = atoi(argv[2]);
  tl_runtime_options_t o;
  tl_runtime_options_initialize(&o);
  o.alloc_fn = count_alloc;
  o.free_fn = count_free;
  tl_runtime_t* rt = NULL;
  if (tl_runtime_create(&o, &rt) != TL_OK) return 3;
  size_t before = g_total;
  for (int i = 0; i < n; ++i) {
    tl_package_t* p = NULL;
    if (tl_package_open(rt, argv[1], &p) != TL_OK) {
      printf("error: %s\n", tl_runtime_last_error(rt));
      return 1;
    }
    tl_package_release(p);
  }
  printf("bytes_per_open=%zu peak_live=%zu\n", (g_total - before) / (size_t)n, g_peak);
  tl_runtime_release(rt);
  return 0;
}
