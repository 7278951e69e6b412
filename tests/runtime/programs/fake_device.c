/* fake_device.c - a test-only second device, compiled into a runtime with
 * `make -C libtl_runtime EXTRA_DEVICE_SRC=<this file>` (tests/runtime/test_device.py), proving a
 * device plugs in through the device table (src/device.h) without touching the runtime's code.
 *
 * Device "fake", DLPack type kDLExtDev, device ids checked; it loads payloads of format "fake-elf"
 * (an ELF bundle for this machine, loaded the CPU's way) and launches them on the CPU's pool, so
 * its "device memory" is host memory. Every call appends a word ("probe", "load", "launch",
 * "synchronize", "release", "alloc", "free") to the file $TL_FAKE_DEVICE_LOG when set, so a test
 * sees what the runtime asked of it and when; TL_FAKE_DEVICE_ABSENT=1 makes the probe report no
 * device on this host. */
#include <stdio.h>
#include <stdlib.h>
#include "device.h"

static void note(const char* what) {
  const char* path = getenv("TL_FAKE_DEVICE_LOG");
  if (path == NULL || path[0] == '\0') return;
  FILE* f = fopen(path, "a");
  if (f == NULL) return;
  fprintf(f, "%s\n", what);
  fclose(f);
}

static int fake_probe(char* why, size_t cap) {
  note("probe");
  const char* absent = getenv("TL_FAKE_DEVICE_ABSENT");
  if (absent != NULL && absent[0] == '1') {
    snprintf(why, cap, "TL_FAKE_DEVICE_ABSENT=1 hides the fake device");
    return 0;
  }
  return 1;
}

static tl_status_t fake_load_payload(tl_runtime_t* rt, const char* what, const char* variant, const char* format,
                                     int32_t device_id, const unsigned char* data, size_t size, tl_payload_t* out) {
  note("load");
  return tl__device_cpu.load_payload(rt, what, variant, format, device_id, data, size, out);
}

static void fake_release_payload(tl_runtime_t* rt, tl_payload_t* payload) {
  note("release");
  tl__device_cpu.release_payload(rt, payload);
}

static void* fake_alloc(tl_runtime_t* rt, int32_t device_id, size_t size, size_t alignment) {
  (void)device_id;
  note("alloc");
  return tl__alloc(rt, size, alignment);
}

static void fake_free(tl_runtime_t* rt, int32_t device_id, void* p) {
  (void)device_id;
  note("free");
  tl__free(rt, p);
}

static int32_t fake_launch(tl_runtime_t* rt, const tl_job_t* job) {
  note("launch");
  return tl__run_job(rt, job);
}

static int32_t fake_synchronize(tl_runtime_t* rt, const tl_package_t* pkg, void* stream, const char* kernel) {
  (void)rt;
  (void)pkg;
  (void)stream;
  (void)kernel;
  note("synchronize");
  return 0;
}

static const char* const fake_formats[] = {"fake-elf", NULL};

const tl_device_t tl__device_extra = {
    .name = "fake",
    .dl_device_type = kDLExtDev,
    .formats = fake_formats,
    .accepted_mask = TL_DEVICE_BIT(kDLExtDev),
    .check_device_id = 1,
    .host_entry = 1,
    .probe = fake_probe,
    .fits = NULL,
    .load_payload = fake_load_payload,
    .load_file = NULL,
    .release_payload = fake_release_payload,
    .alloc = fake_alloc,
    .free = fake_free,
    .launch = fake_launch,
    .synchronize = fake_synchronize,
};
