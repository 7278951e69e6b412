/* device.h - the device interface: what the runtime asks of a device (the CPU today; a GPU or NPU
 * driver later). Not installed.
 *
 * A device is a constant table of function pointers (tl_device_t) registered in device.c. The
 * manifest names a bundle's device ("device": "cpu") and its payload's format ("format":
 * "elf-shared-object"); bundle selection (select.c) keeps only bundles whose device this runtime
 * drives, whose format that device loads, and whose device is present on this host (probe).
 *
 * Laziness: nothing of a device runs before a manifest names it. probe() is called at most once
 * per process (device.c caches its answer) and only when a bundle for that device is considered,
 * so a device whose driver needs a shared library (libcuda...) dlopens it in probe() and a
 * CPU-only host never loads it.
 *
 * Launch path: tl_kernel_launch checks each tensor's DLPack device type against the package's
 * accepted_mask (precomputed from the device at open) and then calls device->launch once;
 * synchronize is called after it only when the device sets one (the CPU's launch is synchronous)
 * and the launch is a blocking one (tl_kernel_launch; tl_kernel_launch_ex is asynchronous).
 */
#ifndef TL_RUNTIME_DEVICE_H
#define TL_RUNTIME_DEVICE_H
#include "internal.h"

typedef struct tl_device {
  const char* name;                   /* the manifest's "device" value, e.g. "cpu" */
  int32_t dl_device_type;             /* its DLPack device type (kDLCPU) */
  const char* const* formats;         /* the payload formats it loads, NULL-terminated */
  /* DLPack device types of tensors a launch on this device may take, one bit per type. */
  uint64_t accepted_mask;
  /* Whether tensors must carry the package's device_id (0 for the CPU: any id is host memory). */
  int check_device_id;
  /* 1: every kernel of its bundles must have a host entry (the CPU); 0: the device launches
   * kernels its own way (CUDA: entry NULL, device_entry in the image; load_payload checks). */
  int host_entry;
  /* 1: the device is usable on this host; 0: not, with a sentence why in why[cap]. Called once
   * per process (device.c caches it); the place to dlopen a driver library. */
  int (*probe)(char* why, size_t cap);
  /* After a successful probe: 1 when a bundle built for `sm` (the manifest's "sm" field, NULL
   * when absent) runs on device `device_id`; 0 with a sentence why. NULL: every bundle fits. */
  int (*fits)(int32_t device_id, const char* sm, char* why, size_t cap);
  /* Loads a payload of `format` from memory. On success fills *out (out->bundle set, not yet
   * checked by the runtime); on failure sets the runtime's error and leaves *out released. */
  tl_status_t (*load_payload)(tl_runtime_t* rt, const char* what, const char* variant, const char* format,
                              int32_t device_id, const unsigned char* data, size_t size, tl_payload_t* out);
  /* Loads a payload from a file (tl_package_open_bundle); NULL when the device cannot. */
  tl_status_t (*load_file)(tl_runtime_t* rt, const char* path, tl_payload_t* out);
  /* Unloads a payload (also a partly filled one); the bundle's strings die with it. */
  void (*release_payload)(tl_runtime_t* rt, tl_payload_t* payload);
  /* Device memory of device device_id: size bytes aligned to alignment, or NULL; free(NULL) is a
   * no-op. */
  void* (*alloc)(tl_runtime_t* rt, int32_t device_id, size_t size, size_t alignment);
  void (*free)(tl_runtime_t* rt, int32_t device_id, void* ptr);
  /* Runs (or enqueues on job->stream) every program of job; the tl__run_job contract (0, an
   * entry's non-zero return, or TL_JOB_ENOMEM), or TL_JOB_STATUS(st) with the error already set. */
  int32_t (*launch)(tl_runtime_t* rt, const tl_job_t* job);
  /* Waits for what launch enqueued for package pkg: on `stream`, or with NULL everything of the
   * device; NULL when launch is synchronous. 0 or an error code as launch returns; `kernel` names
   * the launch waited for in messages (NULL: none). */
  int32_t (*synchronize)(tl_runtime_t* rt, const tl_package_t* pkg, void* stream, const char* kernel);
} tl_device_t;

#define TL_DEVICE_BIT(t) ((uint64_t)1 << (t))

/* device.c: the device table */
/* The device the manifest calls `name`, or NULL when this runtime has no driver for it. */
const tl_device_t* tl__device_by_name(const char* name);
/* The device of DLPack type `dl_type`, or NULL. */
const tl_device_t* tl__device_by_type(int32_t dl_type);
/* 1 when dev loads payloads of `format`. */
int tl__device_loads_format(const tl_device_t* dev, const char* format);
/* probe(), once per process per device; why receives its sentence when it returns 0. */
int tl__device_available(const tl_device_t* dev, char* why, size_t cap);
/* fork(): the probe lock is held across it (runtime.c's pthread_atfork handlers call these). */
void tl__devices_atfork_prepare(void);
void tl__devices_atfork_parent(void);
void tl__devices_atfork_child(void);
/* "kDLCPU", "kDLCUDA", ... or "device type N" (buf, for unknown types). */
const char* tl__dl_device_name(int32_t dl_type, char* buf, size_t cap);
/* The formats dev loads, comma-separated, into out. */
void tl__device_formats(const tl_device_t* dev, char* out, size_t cap);
/* The accepted device types of dev, comma-separated DLPack names, into out. */
void tl__device_accepted(const tl_device_t* dev, char* out, size_t cap);

/* device_cpu.c */
extern const tl_device_t tl__device_cpu;
/* device_cuda.c: NVIDIA GPUs through libcuda.so.1, dlopened by its probe */
extern const tl_device_t tl__device_cuda;
#define TL_FORMAT_CUDA "elf-shared-object+cuda" 
#ifdef TL_EXTRA_DEVICE
/* A device compiled in from outside src/ (make EXTRA_DEVICE_SRC=file.c): tests plug one in. */
extern const tl_device_t tl__device_extra;
#endif

#define TL_FORMAT_ELF "elf-shared-object"
#define TL_DEFAULT_DEVICE "cpu"

#endif
