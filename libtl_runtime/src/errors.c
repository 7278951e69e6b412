/* errors.c - the per-thread, per-runtime last error message. */
#include <stdio.h>
#include <string.h>
#include "internal.h"

/* Each thread keeps a small table keyed by runtime id (ids are never reused, so a message of a
 * released runtime can never show up on a new one that happens to get the same address). */
#define TL_ERROR_SLOTS 8
typedef struct {
  uint64_t runtime_id;                 /* 0: free */
  uint64_t stamp;
  char message[TL_ERROR_MESSAGE_MAX];
} tl_error_slot_t;

static _Thread_local tl_error_slot_t tl_error_slots[TL_ERROR_SLOTS];
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

tl_status_t tl__set_error(const tl_runtime_t* rt, tl_status_t status, const char* fmt, ...) {
  if (rt == NULL) return status;
  tl_error_slot_t* slot = find_slot(rt->id, 1);
  slot->stamp = ++tl_error_clock;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(slot->message, sizeof slot->message, fmt, ap);
  va_end(ap);
  return status;
}

void tl__clear_error(const tl_runtime_t* rt) {
  if (rt == NULL) return;
  tl_error_slot_t* slot = find_slot(rt->id, 0);
  if (slot != NULL) slot->message[0] = '\0';
}

static _Thread_local char tl_create_error[TL_ERROR_MESSAGE_MAX];

tl_status_t tl__set_create_error(tl_status_t status, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tl_create_error, sizeof tl_create_error, fmt, ap);
  va_end(ap);
  return status;
}

TL_API const char* tl_runtime_last_error(const tl_runtime_t* runtime) {
  if (runtime == NULL) return tl_create_error[0] ? tl_create_error : "runtime is NULL";
  tl_error_slot_t* slot = find_slot(runtime->id, 0);
  return slot != NULL ? slot->message : "";
}
