/* tl/runtime.h - libtl_runtime, the C11 runtime that loads tlc packages and launches kernels.
 *
 * Usage contract
 *   - Every function returns tl_status_t (TL_OK == 0) unless noted. Nothing here calls exit() or
 *     abort().
 *   - Constructors set *out = NULL first and release everything on every error path.
 *   - Tensors are DLPack DLTensors on the package's device (the CPU: kDLCPU, or the page-locked
 *     host memory kDLCUDAHost / kDLROCMHost; CUDA: kDLCUDA or kDLCUDAManaged with the device_id
 *     the package was opened for); strides in elements (NULL = contiguous).
 *     Dtype, rank, device, alignment and overlap are checked; shapes and data pointers are
 *     trusted: the runtime cannot tell whether a DLTensor's data really covers its shape and
 *     strides, nor whether the shapes of a kernel's arguments agree with each other.
 *   - Limits: at most TL_MAX_THREADS threads per runtime; a launch's grid may hold at most
 *     TL_MAX_GRID_PROGRAMS (2^48) programs in all (the product of its sizes); a grid of 0
 *     programs (a size 0) runs nothing and returns TL_OK; a tensor the kernel writes may not
 *     overlap itself (a stride 0 on an axis of extent > 1, or strides that make distinct indices
 *     alias) nor any other argument (unless it is the exact same view).
 *
 * Lifetimes (reference counted)
 *   - tl_runtime_create and tl_package_open[_bundle] return a handle holding one reference; each
 *     tl_runtime_retain / tl_package_retain adds one; each tl_runtime_release / tl_package_release
 *     drops one. A handle whose references are all released is dead: every later call with it is
 *     refused. Its memory is freed once nothing uses it any more:
 *       - a package keeps its runtime alive, so the release order does not matter (releasing the
 *         runtime first leaves its packages working; the runtime goes with the last of them);
 *       - a launch holds its package (and so the runtime) for its duration: a release racing a
 *         launch on another thread returns at once, the launch runs to completion, and the last
 *         of them to finish unloads the bundle. Launches that start after the last release are
 *         refused with TL_ERROR_INVALID_ARGUMENT.
 *     Consequently the allocator (alloc_fn/free_fn/alloc_context) and parallel_for/user_context
 *     given to tl_runtime_create must stay valid until the runtime is freed: after its last
 *     release *and* the last release of its packages (and their running launches).
 *   - Kernel handles (tl_package_kernel) are borrowed from their package: there is no kernel
 *     release, and a kernel handle dies with its package. Keep (or retain) the package for as
 *     long as you launch its kernels. Pointers the runtime returns (tl_package_target,
 *     tl_package_kernel_name, tl_kernel_desc) are valid while their package lives, and
 *     tl_runtime_cpu_features's while its runtime does (tl_runtime_last_error: see Errors).
 *   - Threads: all calls may be made from any thread at once, on the same handles (retain and
 *     release included); packages and kernels are immutable after open and may be launched
 *     concurrently. Releasing a handle while another thread still *starts* calls with it is a
 *     race in the caller's program: those calls are refused cleanly as long as the detection
 *     below holds.
 *   - fork(): the child may keep using the handles it inherited (the thread pool is started
 *     afresh). Launches running on other threads of the parent at the fork never return in the
 *     child, so the packages they held are never freed there.
 *   - Misuse detection (best effort): a call given a released handle, a double release, or a
 *     handle of the wrong kind (a package passed as a kernel...) returns TL_ERROR_INVALID_ARGUMENT
 *     with a message naming the function, instead of touching freed memory. Handles live in small
 *     shells that are never returned to the allocator (malloc, not alloc_fn: a runtime's shell is
 *     under 1 KiB, a package's and a kernel's under 128 bytes); a dead shell is reused only after
 *     TL_QUARANTINE_RUNTIMES runtimes (64), TL_QUARANTINE_PACKAGES packages (1024) or
 *     TL_QUARANTINE_KERNELS kernel handles (16384) of its kind died after it. A stale handle older
 *     than that may alias a newer live handle and is then not detected; a pointer that never was
 *     a handle is undefined behaviour (it is read to find the magic word). Do not rely on the
 *     detection: it is there to turn bugs into messages.
 *
 * Errors
 *   - Each thread has a last error message per runtime and one handle-less message.
 *     Every failing call sets one of them: the runtime's, when the call reached a runtime that is
 *     alive (through the handle given or its package: a package keeps its runtime alive, so the
 *     messages of its launches stay on it); the handle-less one when it did not (a failed
 *     tl_runtime_create, a NULL, released or foreign handle). Every success that says so clears
 *     the runtime's: tl_package_open, tl_package_open_ex, tl_package_open_bundle, tl_kernel_launch and
 *     tl_runtime_set_num_threads. A successful tl_runtime_create clears the handle-less one.
 *   - tl_runtime_last_error(rt) returns the newer of the two (by a per-thread sequence stamp
 *     on every set and clear): after a failed call with a NULL kernel it shows that failure, not an
 *     older message of rt; after a successful launch on rt it shows "". With rt == NULL it
 *     returns the handle-less message. It works on a released rt too (best effort, as above).
 *     The string is thread-local and valid until the thread's next call into the runtime.
 *   - Functions that return a value instead of a status return 0, "" or NULL for a NULL or
 *     released handle (and set the handle-less message).
 */
#ifndef TL_RUNTIME_H
#define TL_RUNTIME_H
#include <stdint.h>
#include <stddef.h>
#include "tl/dlpack_compat.h"
#include "tl/bundle_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TL_RUNTIME_VERSION_MAJOR 0
#define TL_RUNTIME_VERSION_MINOR 1
#define TL_RUNTIME_VERSION_PATCH 0
#define TL_PACKAGE_FORMAT_MAJOR 1
#define TL_PACKAGE_FORMAT_MINOR 1

#define TL_MAX_THREADS 1024
#define TL_MAX_GRID_PROGRAMS (INT64_C(1) << 48)
/* Dead handle shells kept before reuse, per kind (misuse detection; see Lifetimes). */
#define TL_QUARANTINE_RUNTIMES 64
#define TL_QUARANTINE_PACKAGES 1024
#define TL_QUARANTINE_KERNELS 16384

#if defined(_WIN32)
#define TL_API
#else
#define TL_API __attribute__((visibility("default")))
#endif

typedef enum {
  TL_OK = 0,
  TL_ERROR_INVALID_ARGUMENT = 1,  /* a bad argument: null pointer, wrong dtype, shape, stride... */
  TL_ERROR_NOT_FOUND = 2,         /* no such file or kernel */
  TL_ERROR_BAD_PACKAGE = 3,       /* corrupt, truncated or inconsistent package */
  TL_ERROR_VERSION = 4,           /* package or bundle version this runtime cannot serve */
  TL_ERROR_UNSUPPORTED = 5,       /* no bundle for this CPU, or an unsupported device */
  TL_ERROR_OUT_OF_MEMORY = 6,
  TL_ERROR_INTERNAL = 7
} tl_status_t;

typedef struct tl_runtime tl_runtime_t;
typedef struct tl_package tl_package_t;
typedef struct tl_kernel tl_kernel_t;

/* A parallel-for supplied by a host that owns its threads: must call fn(ctx, i) for every i in
 * [0, n) (in any order, on any threads) and return after all calls have returned. */
typedef void (*tl_parallel_task_fn_t)(void* ctx, int64_t i);
typedef void (*tl_parallel_for_fn_t)(void* user_context, int64_t n, tl_parallel_task_fn_t fn, void* ctx);

/* An allocator supplied by the host: returns size bytes aligned to alignment (a power of two,
 * at most 4096) or NULL; free_fn(ctx, NULL) must be a no-op. Used for every allocation the runtime
 * makes itself (archive entries, kernel tables, workspaces, the pool) except the handles' small
 * shells (malloc, kept for reuse: see Lifetimes); the system libraries it calls (libarchive,
 * jansson, libcrypto, the dynamic loader) still use malloc. It must stay valid until the runtime
 * is freed (see Lifetimes). */
typedef void* (*tl_alloc_fn_t)(void* alloc_context, size_t size, size_t alignment);
typedef void (*tl_free_fn_t)(void* alloc_context, void* ptr);

/* Versioned by struct_size: fields are only ever appended. A struct_size that ends before
 * alloc_fn (an older caller) is accepted and gets the default allocator. */
typedef struct {
  uint32_t struct_size;               /* set by tl_runtime_options_initialize */
  int32_t num_threads;                /* 0: one per online CPU */
  tl_parallel_for_fn_t parallel_for;  /* NULL: the runtime's own thread pool */
  void* user_context;                 /* passed to parallel_for */
  tl_alloc_fn_t alloc_fn;             /* NULL (with free_fn NULL): malloc/free */
  tl_free_fn_t free_fn;
  void* alloc_context;                /* passed to alloc_fn/free_fn */
} tl_runtime_options_t;

/* Launch-time options; NULL means defaults (grid from the kernel's grid rule). */
typedef struct {
  uint32_t struct_size;
  int32_t has_grid;                   /* 1: use grid below instead of the kernel's rule */
  int64_t grid[TL_MAX_GRID];
} tl_launch_options_t;

/* tl_kernel_launch_ex options. Versioned by struct_size: fields are only ever appended. */
typedef struct {
  uint32_t struct_size;               /* set by tl_launch_ex_options_initialize */
  uint32_t flags;                     /* 0 (reserved) */
  void* stream;                       /* CUDA: the CUstream to launch on, NULL = the legacy default
                                         stream. Per DLPack's stream rule the caller (the consumer of
                                         its tensors) passes the stream it works on, e.g. torch's
                                         torch.cuda.current_stream().cuda_stream. The CPU ignores it. */
} tl_launch_ex_options_t;

/* One launch argument: a tensor, or a scalar (int64 or double, by the parameter's dtype). */
typedef struct {
  const DLTensor* tensor;             /* for tensor parameters */
  int64_t i64;                        /* for integer and bool scalars */
  double f64;                         /* for float scalars */
} tl_value_t;

TL_API void tl_runtime_options_initialize(tl_runtime_options_t* options);
TL_API void tl_launch_options_initialize(tl_launch_options_t* options);
TL_API void tl_launch_ex_options_initialize(tl_launch_ex_options_t* options);

/* A new runtime holding one reference. On failure the message is tl_runtime_last_error(NULL). */
TL_API tl_status_t tl_runtime_create(const tl_runtime_options_t* options, tl_runtime_t** out_runtime);
/* Adds a reference. TL_ERROR_INVALID_ARGUMENT for a NULL or released runtime. */
TL_API tl_status_t tl_runtime_retain(tl_runtime_t* runtime);
/* Drops a reference; the runtime is freed when neither a reference nor a package of it is left.
 * NULL is a no-op (TL_OK). TL_ERROR_INVALID_ARGUMENT for an already released runtime (a double
 * release; best-effort detection, see Lifetimes). */
TL_API tl_status_t tl_runtime_release(tl_runtime_t* runtime);
/* This thread's last error message on this runtime or, when newer, its handle-less one ("" when
 * none or cleared); see Errors above. Never NULL. With runtime == NULL: the handle-less message
 * (e.g. why this thread's last tl_runtime_create failed). */
TL_API const char* tl_runtime_last_error(const tl_runtime_t* runtime);
TL_API tl_status_t tl_runtime_set_num_threads(tl_runtime_t* runtime, int32_t num_threads);
TL_API int32_t tl_runtime_num_threads(const tl_runtime_t* runtime);
/* Comma-separated CPU features the runtime detected, e.g. "sse2,avx2,fma,avx512f". Never NULL. */
TL_API const char* tl_runtime_cpu_features(const tl_runtime_t* runtime);
/* "MAJOR.MINOR.PATCH" of the library actually loaded. */
TL_API const char* tl_runtime_version(void);

/* Opens a .tlpkg: verifies the archive and each payload's SHA-256, checks format and runtime
 * versions, and loads the best bundle for this CPU. */
/* The package holds one reference, and a reference of the runtime until it is freed. A file that
 * is not a complete ZIP archive is TL_ERROR_BAD_PACKAGE with its size and what is missing. */
TL_API tl_status_t tl_package_open(tl_runtime_t* runtime, const char* path, tl_package_t** out_package);
/* Open-time options (tl_package_open_ex). Versioned by struct_size: fields are only ever appended. */
typedef struct {
  uint32_t struct_size;               /* set by tl_package_open_options_initialize */
  int32_t device_type;                /* the DLPack DLDeviceType to run on: kDLCPU by default (what
                                         tl_package_open does); 0: any device this runtime drives and
                                         finds on this host, the highest-priority bundle wins */
  int32_t device_id;                  /* which device of that type (0); ignored for the CPU */
} tl_package_open_options_t;

TL_API void tl_package_open_options_initialize(tl_package_open_options_t* options);
/* tl_package_open with options (NULL: the defaults, i.e. tl_package_open). Each manifest bundle
 * names its device ("device", default "cpu") and payload format ("format", default
 * "elf-shared-object"); bundles for a device this runtime has no driver for, a format that device
 * does not load, a device absent on this host, or another device than options->device_type are
 * skipped, and when none is left the TL_ERROR_UNSUPPORTED message says why each was skipped. */
TL_API tl_status_t tl_package_open_ex(tl_runtime_t* runtime, const char* path, const tl_package_open_options_t* options,
                                      tl_package_t** out_package);
/* Opens a single bundle .so directly (for tests and tools; no manifest, no hash check). */
TL_API tl_status_t tl_package_open_bundle(tl_runtime_t* runtime, const char* path, tl_package_t** out_package);
/* Adds a reference. TL_ERROR_INVALID_ARGUMENT for a NULL or released package. */
TL_API tl_status_t tl_package_retain(tl_package_t* package);
/* Drops a reference and returns at once. Once the last is dropped, new launches of its kernels are
 * refused (TL_ERROR_INVALID_ARGUMENT) and the last running launch to return unloads the bundle
 * (at once if none runs); the package's reference of its runtime goes with it. NULL is a no-op
 * (TL_OK). TL_ERROR_INVALID_ARGUMENT for an already released package (best effort). */
TL_API tl_status_t tl_package_release(tl_package_t* package);
/* The chosen bundle's variant name, e.g. "x86_64-avx512". */
TL_API const char* tl_package_target(const tl_package_t* package);
/* The device the chosen bundle runs on, e.g. {kDLCPU, 0}; {0, 0} for a NULL or released package.
 * Its tensor arguments must be on this device (the CPU also takes kDLCUDAHost/kDLROCMHost). */
TL_API DLDevice tl_package_device(const tl_package_t* package);
/* The manifest name of that device, e.g. "cpu" ("" for a NULL or released package). */
TL_API const char* tl_package_device_name(const tl_package_t* package);
TL_API uint32_t tl_package_kernel_count(const tl_package_t* package);
TL_API const char* tl_package_kernel_name(const tl_package_t* package, uint32_t index);
/* A kernel handle borrowed from the package (no release): valid while the package lives. */
TL_API tl_status_t tl_package_kernel(tl_package_t* package, const char* name, tl_kernel_t** out_kernel);

/* The kernel's descriptor (name, params, ...), owned by the package. */
TL_API const tl_kernel_desc_t* tl_kernel_desc(const tl_kernel_t* kernel);
/* Checks args against the signature, resolves the grid and runs every program. Blocks until done
 * (on CUDA: launches on the legacy default stream, then waits for the device's primary context).
 * Holds the kernel's package for its duration (see Lifetimes); a grid of 0 programs is TL_OK. */
TL_API tl_status_t tl_kernel_launch(tl_kernel_t* kernel, const tl_value_t* args, uint32_t num_args,
                                    const tl_launch_options_t* options);

/* tl_kernel_launch with the grid as an argument (NULL: the kernel's grid rule; else TL_MAX_GRID
 * sizes) and launch options (NULL: the defaults). On the CPU it blocks until done, as
 * tl_kernel_launch. On CUDA it is asynchronous: it checks the arguments, enqueues the kernel on
 * options->stream and returns; errors of the kernel's execution surface at a later synchronizing
 * call (tl_package_synchronize, or the caller's own on that stream). The tensors must stay alive
 * until the kernel has run. */
TL_API tl_status_t tl_kernel_launch_ex(tl_kernel_t* kernel, const tl_value_t* args, uint32_t num_args,
                                       const int64_t* grid, const tl_launch_ex_options_t* options);
/* Waits for the package's device: with stream != NULL until the work enqueued on that CUstream has
 * finished (cuStreamSynchronize), with NULL until everything of the device's primary context has
 * (cuCtxSynchronize). TL_OK at once on the CPU. A failure of an earlier asynchronous launch is
 * reported here, naming the driver call and its error. */
TL_API tl_status_t tl_package_synchronize(tl_package_t* package, void* stream);

/* A DLPack 1.x tensor as the launch argument for parameter param_index of kernel: sets
 * out->tensor = &tensor->dl_tensor (out->i64 = 0, out->f64 = 0). Ownership stays with the caller:
 * the tensor must outlive the launch, and the caller calls tensor->deleter afterwards (also when
 * this fails). Refuses, with TL_ERROR_INVALID_ARGUMENT and a message naming the kernel and the
 * argument: param_index >= the kernel's parameter count, a scalar parameter, a NULL tensor or out,
 * and a tensor flagged DLPACK_FLAG_BITMASK_READ_ONLY for a parameter the kernel writes (access
 * TL_ACCESS_WRITE or TL_ACCESS_READWRITE); with TL_ERROR_VERSION: version.major != 1 (the other
 * fields are then not read). dtype, device, shape and strides are checked by tl_kernel_launch.
 * A NULL, released or wrong-kind kernel handle: TL_ERROR_INVALID_ARGUMENT, its message on the
 * calling thread's handle-less slot (tl_runtime_last_error of any runtime, or NULL, shows it). */
struct DLManagedTensorVersioned;
TL_API tl_status_t tl_value_from_dlpack(const tl_kernel_t* kernel, uint32_t param_index,
                                        const struct DLManagedTensorVersioned* tensor, tl_value_t* out);

/* TL_OK when `kernel` is the kernel named expected_name with the given signature hash; otherwise
 * TL_ERROR_INVALID_ARGUMENT with a message on the kernel's runtime naming both kernels (a NULL,
 * released or wrong-kind handle: TL_ERROR_INVALID_ARGUMENT, the message on the calling thread's
 * handle-less slot, as for every call). The
 * typed wrappers of a tlc-generated package header call it before every launch.
 * Signature hash: 64-bit FNV-1a (offset basis 14695981039346656037, prime 1099511628211) over the
 * bytes of  name, then for each param in order  "|" name ":" kind ":" dtype ":" rank ":" access
 * (kind, dtype, rank, access: the tl_param_t values in decimal), e.g.
 * "axpy|x:0:6:1:1|y:0:6:1:3|alpha:1:6:0:0". Does not clear the last error on success. */
TL_API tl_status_t tl_kernel_check(const tl_kernel_t* kernel, const char* expected_name,
                                   uint64_t expected_signature_hash);

#ifdef __cplusplus
}
#endif
#endif /* TL_RUNTIME_H */
