/* select.h - choosing the bundle of a package that this runtime can run here (select.c). Not
 * installed; only in a runtime with the package reader (jansson). */
#ifndef TL_RUNTIME_SELECT_H
#define TL_RUNTIME_SELECT_H
#include "device.h"

struct json_t;

/* The best bundle seen so far, and what the refusal message needs when none fits. */
typedef struct {
  int32_t want_type;                   /* the DLPack device type asked for; 0: any */
  int32_t want_id;                     /* its device_id */
  int found;
  size_t index;                        /* the chosen bundle's position in the manifest's 'bundles' */
  const char* variant;                 /* strings of the manifest (valid while it is) */
  const char* format;
  const tl_device_t* device;
  long long priority;
  char available[512];                 /* every bundle's variant, comma-separated */
  char skipped[1024];                  /* why bundles were skipped for their device or format */
} tl_selection_t;

void tl__selection_init(tl_selection_t* sel, int32_t want_type, int32_t want_id);
/* Bundle i of the manifest (its payload already verified): TL_ERROR_BAD_PACKAGE when its fields
 * are malformed; else TL_OK, and sel keeps it when it fits this host and beats the best so far.
 * A bundle's device is probed (device.c, once per process) only when the bundle would win. */
tl_status_t tl__selection_consider(tl_runtime_t* rt, const char* path, size_t i, struct json_t* bundle,
                                   tl_selection_t* sel);
/* TL_ERROR_UNSUPPORTED: no bundle fits; names the host and why each skipped bundle was skipped. */
tl_status_t tl__selection_refuse(tl_runtime_t* rt, const char* path, const tl_selection_t* sel);

#endif
