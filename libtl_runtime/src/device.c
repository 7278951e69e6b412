/* device.c - the table of devices this runtime drives, lookups by manifest name and DLPack type,
 * and the once-per-process probe of each (device.h). */
#include <stdio.h>
#include <string.h>
#include "device.h"

static const tl_device_t* const devices[] = {
    &tl__device_cpu,
    &tl__device_cuda,
#ifdef TL_EXTRA_DEVICE
    &tl__device_extra,
#endif
};
#define NUM_DEVICES (sizeof devices / sizeof devices[0])

/* probe() answers, per device: 0 not probed yet, 1 available, 2 not (why kept). Guarded by
 * probe_mutex, which fork() takes and gives back (tl__devices_atfork_*). */
static int probed[NUM_DEVICES];
static char probe_why[NUM_DEVICES][256];
static pthread_mutex_t probe_mutex = PTHREAD_MUTEX_INITIALIZER;

void tl__devices_atfork_prepare(void) { pthread_mutex_lock(&probe_mutex); }
void tl__devices_atfork_parent(void) { pthread_mutex_unlock(&probe_mutex); }
void tl__devices_atfork_child(void) { pthread_mutex_init(&probe_mutex, NULL); }

const tl_device_t* tl__device_by_name(const char* name) {
  for (size_t i = 0; i < NUM_DEVICES; ++i)
    if (strcmp(devices[i]->name, name) == 0) return devices[i];
  return NULL;
}

const tl_device_t* tl__device_by_type(int32_t dl_type) {
  for (size_t i = 0; i < NUM_DEVICES; ++i)
    if (devices[i]->dl_device_type == dl_type) return devices[i];
  return NULL;
}

int tl__device_loads_format(const tl_device_t* dev, const char* format) {
  for (const char* const* f = dev->formats; *f != NULL; ++f)
    if (strcmp(*f, format) == 0) return 1;
  return 0;
}

int tl__device_available(const tl_device_t* dev, char* why, size_t cap) {
  size_t i = 0;
  while (i < NUM_DEVICES && devices[i] != dev) ++i;
  if (i == NUM_DEVICES) return 0;
  pthread_mutex_lock(&probe_mutex);
  if (probed[i] == 0) {
    probe_why[i][0] = '\0';
    probed[i] = dev->probe(probe_why[i], sizeof probe_why[i]) ? 1 : 2;
    if (probed[i] == 2 && probe_why[i][0] == '\0') snprintf(probe_why[i], sizeof probe_why[i], "its driver found none");
  }
  int ok = probed[i] == 1;
  if (!ok && why != NULL && cap > 0) snprintf(why, cap, "%s", probe_why[i]);
  pthread_mutex_unlock(&probe_mutex);
  return ok;
}

const char* tl__dl_device_name(int32_t dl_type, char* buf, size_t cap) {
  switch (dl_type) {
    case kDLCPU: return "kDLCPU";
    case kDLCUDA: return "kDLCUDA";
    case kDLCUDAHost: return "kDLCUDAHost";
    case kDLOpenCL: return "kDLOpenCL";
    case kDLVulkan: return "kDLVulkan";
    case kDLMetal: return "kDLMetal";
    case kDLVPI: return "kDLVPI";
    case kDLROCM: return "kDLROCM";
    case kDLROCMHost: return "kDLROCMHost";
    case kDLExtDev: return "kDLExtDev";
    case kDLCUDAManaged: return "kDLCUDAManaged";
    case kDLOneAPI: return "kDLOneAPI";
    case kDLWebGPU: return "kDLWebGPU";
    case kDLHexagon: return "kDLHexagon";
    case kDLMAIA: return "kDLMAIA";
    default: snprintf(buf, cap, "device type %d", (int)dl_type); return buf;
  }
}

static void append(char* out, size_t cap, const char* s) {
  size_t len = strlen(out);
  snprintf(out + len, cap - len, "%s%s", len ? ", " : "", s);
}

void tl__device_formats(const tl_device_t* dev, char* out, size_t cap) {
  out[0] = '\0';
  for (const char* const* f = dev->formats; *f != NULL; ++f) append(out, cap, *f);
}

void tl__device_accepted(const tl_device_t* dev, char* out, size_t cap) {
  char buf[32];
  out[0] = '\0';
  for (int32_t t = 0; t < 64; ++t)
    if (dev->accepted_mask & TL_DEVICE_BIT(t)) append(out, cap, tl__dl_device_name(t, buf, sizeof buf));
}
