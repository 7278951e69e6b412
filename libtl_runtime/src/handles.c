/* handles.c - the shells behind tl_runtime_t, tl_package_t and tl_kernel_t pointers.
 *
 * A handle the caller holds points at a shell: a small struct from malloc that is never given
 * back to the allocator. When a handle dies (its last reference is released) its shell gets a dead
 * magic word and joins a per-kind FIFO quarantine; a new handle takes the oldest dead shell only
 * once more than TL_QUARANTINE_<KIND> dead shells wait. So a call given a released handle reads
 * live memory (no use-after-free, also under ASan) and finds the dead magic, as long as at most
 * that many handles of its kind died after it; beyond that its shell may have become another
 * handle (best-effort detection, documented in runtime.h). */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

typedef struct {
  size_t size;
  size_t quarantine;                 /* dead shells kept before the oldest is reused */
  tl_shell_hdr_t* head;              /* oldest dead shell */
  tl_shell_hdr_t* tail;
  size_t dead;
} tl_shell_pool_t;

static pthread_mutex_t tl_shell_mutex = PTHREAD_MUTEX_INITIALIZER;
static tl_shell_pool_t tl_shell_pools[TL_SHELL_KINDS] = {
    {sizeof(tl_runtime_t), TL_QUARANTINE_RUNTIMES, NULL, NULL, 0},
    {sizeof(tl_package_t), TL_QUARANTINE_PACKAGES, NULL, NULL, 0},
    {sizeof(tl_kernel_t), TL_QUARANTINE_KERNELS, NULL, NULL, 0},
};

void* tl__shell_new(tl_shell_kind_t kind) {
  tl_shell_pool_t* p = &tl_shell_pools[kind];
  tl_shell_hdr_t* s = NULL;
  pthread_mutex_lock(&tl_shell_mutex);
  if (p->dead > p->quarantine) {
    s = p->head;
    p->head = s->qnext;
    if (p->head == NULL) p->tail = NULL;
    p->dead--;
  }
  pthread_mutex_unlock(&tl_shell_mutex);
  if (s == NULL) {
    void* mem = NULL;
    if (posix_memalign(&mem, 64, p->size) != 0) return NULL;
    s = (tl_shell_hdr_t*)mem;
    atomic_init(&s->magic, 0u);
  } else {
    atomic_store_explicit(&s->magic, 0u, memory_order_relaxed);
  }
  memset((char*)s + sizeof *s, 0, p->size - sizeof *s);
  s->qnext = NULL;
  return s;
}

void tl__shell_retire(tl_shell_kind_t kind, void* shell, uint32_t dead_magic) {
  tl_shell_pool_t* p = &tl_shell_pools[kind];
  tl_shell_hdr_t* s = (tl_shell_hdr_t*)shell;
  atomic_store_explicit(&s->magic, dead_magic, memory_order_release);
  pthread_mutex_lock(&tl_shell_mutex);
  s->qnext = NULL;
  if (p->tail != NULL) p->tail->qnext = s;
  else p->head = s;
  p->tail = s;
  p->dead++;
  pthread_mutex_unlock(&tl_shell_mutex);
}

void tl__shells_atfork_prepare(void) { pthread_mutex_lock(&tl_shell_mutex); }
void tl__shells_atfork_parent(void) { pthread_mutex_unlock(&tl_shell_mutex); }
void tl__shells_atfork_child(void) { pthread_mutex_init(&tl_shell_mutex, NULL); }

const char* tl__magic_name(uint32_t magic) {
  switch (magic) {
    case TL_MAGIC_RUNTIME: return "a live tl_runtime_t";
    case TL_MAGIC_RUNTIME_DEAD: return "a released tl_runtime_t";
    case TL_MAGIC_PACKAGE: return "a live tl_package_t";
    case TL_MAGIC_PACKAGE_DEAD: return "a released tl_package_t";
    case TL_MAGIC_KERNEL: return "a live tl_kernel_t";
    case TL_MAGIC_KERNEL_DEAD: return "a tl_kernel_t of a released package";
    case 0: return "a released handle whose memory is being reused";
    default: return "not a libtl_runtime handle (a wrong or corrupt pointer)";
  }
}

/* ------------------------------------------------------------------------------------------ */
/* the life word: user references << 32 | running calls and inner references */

int tl__life_enter(_Atomic uint64_t* life) {
  uint64_t v = atomic_load_explicit(life, memory_order_relaxed);
  do {
    if ((v >> 32) == 0 || (v & TL_LIFE_INNER) == TL_LIFE_INNER) return 0;
  } while (!atomic_compare_exchange_weak_explicit(life, &v, v + 1, memory_order_acquire, memory_order_relaxed));
  return 1;
}

int tl__life_leave(_Atomic uint64_t* life) {
  return atomic_fetch_sub_explicit(life, 1, memory_order_acq_rel) == 1;
}

void tl__life_hold(_Atomic uint64_t* life) { atomic_fetch_add_explicit(life, 1, memory_order_relaxed); }

int tl__life_retain(_Atomic uint64_t* life) {
  uint64_t v = atomic_load_explicit(life, memory_order_relaxed);
  do {
    if ((v >> 32) == 0) return 0;
    if ((v >> 32) >= 0x7fffffffu) return -1;
  } while (!atomic_compare_exchange_weak_explicit(life, &v, v + TL_LIFE_USER, memory_order_relaxed,
                                                  memory_order_relaxed));
  return 1;
}

int tl__life_release(_Atomic uint64_t* life) {
  uint64_t v = atomic_load_explicit(life, memory_order_relaxed);
  do {
    if ((v >> 32) == 0) return -1;
  } while (!atomic_compare_exchange_weak_explicit(life, &v, v - TL_LIFE_USER, memory_order_acq_rel,
                                                  memory_order_relaxed));
  return v - TL_LIFE_USER == 0 ? 1 : 0;
}
