/* errors.c - the per-thread last error messages: one slot per runtime, one handle-less slot. */
#include <stdio.h>
#include <string.h>
#include "internal.h"

/* Each thread keeps a small table keyed by runtime id (ids are never reused, so a message of a
 * released runtime can never show up on a new one that happens to get the same address), and a
 * handle-less slot for failures that have no usable runtime (a failed tl_runtime_create, a NULL,
 * released or foreign handle). Every set and clear stamps its slot from the thread's clock;
 * tl_runtime_last_error(rt) returns the newer of rt's slot and the handle-less one. */
#define TL_ERROR_SLOTS 8
typedef struct {
  uint64_t runtime_id;                 /* 0: free */
  uint64_t stamp;
  char message[TL_ERROR_MESSAGE_MAX];
} tl_error_slot_t;

static _Thread_local tl_error_slot_t tl_error_slots[TL_ERROR_SLOTS];
static _Thread_local tl_error_slot_t tl_loose_error;
static _Thread_local uint64_t tl_error_clock;

static tl_error_slot_t* find_slot(uint64_t id, int create) {
  tl_error_slot_t* oldest = &tl_error_slots[0];
  for (int i = 0; i < TL_ERROR_SLOTS; ++i) {
    if (tl_error_slots[i].runtime_id == id) return &tl_error_slots[i];
    if (tl_error_slots[i].stamp < oldest->stamp) oldest = &tl_error_slots[i];
  }
  if (!create) return NULL;
  oldest->runtime_id = id;
  oldest->message[0] = '\0';
  return oldest;
}

static void vset(tl_error_slot_t* slot, const char* fmt, va_list ap) {
  slot->stamp = ++tl_error_clock;
  vsnprintf(slot->message, sizeof slot->message, fmt, ap);
}

tl_status_t tl__set_error(const tl_runtime_t* rt, tl_status_t status, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vset(rt == NULL ? &tl_loose_error : find_slot(rt->id, 1), fmt, ap);
  va_end(ap);
  return status;
}

tl_status_t tl__set_loose_error(tl_status_t status, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vset(&tl_loose_error, fmt, ap);
  va_end(ap);
  return status;
}

void tl__clear_loose_error(void) {
  tl_loose_error.stamp = ++tl_error_clock;
  tl_loose_error.message[0] = '\0';
}

/* A cleared slot must outrank an older handle-less message, so it is stamped too; a runtime
 * without a slot needs one only when there is a handle-less message to outrank. */
void tl__clear_error(const tl_runtime_t* rt) {
  if (rt == NULL) return;
  tl_error_slot_t* slot = find_slot(rt->id, tl_loose_error.message[0] != '\0');
  if (slot == NULL) return;
  slot->stamp = ++tl_error_clock;
  slot->message[0] = '\0';
}

TL_API const char* tl_runtime_last_error(const tl_runtime_t* runtime) {
  if (runtime == NULL) return tl_loose_error.message;
  uint32_t m = atomic_load_explicit(&((tl_runtime_t*)runtime)->shell.magic, memory_order_acquire);
  if (m != TL_MAGIC_RUNTIME && m != TL_MAGIC_RUNTIME_DEAD) {
    tl__set_loose_error(TL_ERROR_INVALID_ARGUMENT, "tl_runtime_last_error: %p is %s, not a runtime handle",
                        (const void*)runtime, tl__magic_name(m));
    return tl_loose_error.message;
  }
  tl_error_slot_t* slot = find_slot(runtime->id, 0);
  if (slot == NULL || slot->stamp < tl_loose_error.stamp) return tl_loose_error.message;
  return slot->message;
}
