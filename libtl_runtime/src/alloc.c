/* alloc.c - the runtime's allocations, through the host's allocator hook or malloc. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

void* tl__default_alloc(void* ctx, size_t size, size_t alignment) {
  (void)ctx;
  if (alignment <= 16) return malloc(size ? size : 1);
  void* p = NULL;
  return posix_memalign(&p, alignment, size ? size : 1) == 0 ? p : NULL;
}

void tl__default_free(void* ctx, void* p) {
  (void)ctx;
  free(p);
}

void* tl__alloc(const tl_runtime_t* rt, size_t size, size_t alignment) {
  return rt->alloc_fn(rt->alloc_context, size ? size : 1, alignment < 16 ? 16 : alignment);
}

void* tl__calloc(const tl_runtime_t* rt, size_t n, size_t size) {
  if (size != 0 && n > SIZE_MAX / size) return NULL;
  size_t bytes = n * size;
  void* p = tl__alloc(rt, bytes, 16);
  if (p != NULL && bytes > 0) memset(p, 0, bytes);
  return p;
}

/* Like realloc, but the caller passes the old size (the hook has no realloc). On failure p is kept. */
void* tl__realloc(const tl_runtime_t* rt, void* p, size_t old_size, size_t new_size) {
  void* q = tl__alloc(rt, new_size, 16);
  if (q == NULL) return NULL;
  if (p != NULL) {
    memcpy(q, p, old_size < new_size ? old_size : new_size);
    tl__free(rt, p);
  }
  return q;
}

char* tl__strdup(const tl_runtime_t* rt, const char* s) {
  size_t n = strlen(s) + 1;
  char* d = (char*)tl__alloc(rt, n, 1);
  if (d != NULL) memcpy(d, s, n);
  return d;
}

void tl__free(const tl_runtime_t* rt, void* p) {
  if (p != NULL) rt->free_fn(rt->alloc_context, p);
}
