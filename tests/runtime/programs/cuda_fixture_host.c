/* cuda_fixture_host.c - the host side of the CUDA fixture bundle (format "elf-shared-object+cuda"):
 * a freestanding shared object exporting tl_bundle_query, like tests/runtime/fixture_bundle.c, whose
 * kernels have entry == NULL and name their device_entry in the image it embeds (cuda_fixture.cu
 * compiled by nvcc, or any bytes for the stub libcuda tests). Built by tests/runtime/cuda_fixture.py:
 *   gcc -shared -fPIC -nostdlib -ffreestanding -fvisibility=hidden -DTL_IMAGE='"path"'
 *       -DTL_IMAGE_FORMAT='"cubin"' [-DTL_TARGET='"cuda-sm90a"'] [-DTL_BLOCK_THREADS=128]
 *       [-DTL_SHARED_BYTES=0] [-DTL_WORKSPACE=0] [-DTL_OLD_LAYOUT] cuda_fixture_host.c
 * TL_OLD_LAYOUT reports the bundle layout before the device fields (the runtime must refuse it).
 * -DTL_CPU (no TL_IMAGE) builds the CPU bundle of the same kernels instead: host entries doing the
 * same math, no device fields, for packages that carry both. */
#include "tl/bundle_abi.h"

#ifndef TL_IMAGE_FORMAT
#define TL_IMAGE_FORMAT "cubin"
#endif
#ifndef TL_TARGET
#define TL_TARGET "cuda-fixture"
#endif
#ifndef TL_BLOCK_THREADS
#define TL_BLOCK_THREADS 128
#endif
#ifndef TL_SHARED_BYTES
#define TL_SHARED_BYTES 0
#endif
#ifndef TL_WORKSPACE
#define TL_WORKSPACE 0
#endif

#ifdef TL_CPU
#define ENTRY(f) f
#define DEVICE(name, threads, shared) 0, 0, 0
#else
#define ENTRY(f) 0
#define DEVICE(name, threads, shared) name, threads, shared
/* the image, with one NUL after it (counted for PTX, which the driver reads as a C string) */
__asm__(".section .rodata\n"
        ".balign 16\n"
        ".hidden tl_fixture_image\n"
        "tl_fixture_image:\n"
        ".incbin \"" TL_IMAGE "\"\n"
        ".hidden tl_fixture_image_end\n"
        "tl_fixture_image_end:\n"
        ".byte 0\n"
        ".previous\n");
extern const unsigned char tl_fixture_image[];
extern const unsigned char tl_fixture_image_end[];
#endif

#define EXPORT __attribute__((visibility("default")))

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int32_t axpy_grid(const tl_arg_t* args, tl_grid_t* g) {
  g->size[0] = cdiv(args[0].tensor->shape[0], TL_BLOCK_THREADS);
  g->size[1] = 1;
  g->size[2] = 1;
  return 0;
}

static int32_t copy2d_grid(const tl_arg_t* args, tl_grid_t* g) {
  g->size[0] = cdiv(args[1].tensor->shape[1], TL_BLOCK_THREADS);
  g->size[1] = args[1].tensor->shape[0];
  g->size[2] = 1;
  return 0;
}

#ifdef TL_CPU
static int32_t axpy_entry(const tl_arg_t* args, const tl_grid_t* grid, int64_t first, int64_t last, void* ws) {
  (void)grid; (void)ws;
  const tl_tensor_t* x = args[0].tensor;
  const tl_tensor_t* y = args[1].tensor;
  for (int64_t i = first * TL_BLOCK_THREADS; i < last * TL_BLOCK_THREADS && i < x->shape[0]; ++i) {
    float* py = (float*)y->data + i * y->strides[0];
    *py = (float)args[2].f64 * ((const float*)x->data)[i * x->strides[0]] + *py;
  }
  return 0;
}
static int32_t copy2d_entry(const tl_arg_t* args, const tl_grid_t* grid, int64_t first, int64_t last, void* ws) {
  (void)ws;
  const tl_tensor_t* x = args[0].tensor;
  const tl_tensor_t* o = args[1].tensor;
  for (int64_t pid = first; pid < last; ++pid) {
    int64_t r = pid / grid->size[0], c0 = (pid % grid->size[0]) * TL_BLOCK_THREADS;
    for (int64_t c = c0; c < c0 + TL_BLOCK_THREADS && c < o->shape[1]; ++c)
      ((float*)o->data)[r * o->strides[0] + c * o->strides[1]] =
          ((const float*)x->data)[r * x->strides[0] + c * x->strides[1]];
  }
  return 0;
}
static int32_t fill_entry(const tl_arg_t* args, const tl_grid_t* grid, int64_t first, int64_t last, void* ws) {
  (void)grid; (void)ws;
  const tl_tensor_t* o = args[0].tensor;
  for (int64_t i = first * 64; i < last * 64 && i < o->shape[0]; ++i)
    ((int64_t*)o->data)[i * o->strides[0]] = args[1].i64 + i;
  return 0;
}
#endif

static const tl_param_t axpy_params[] = {
    {"x", TL_PARAM_TENSOR, TL_DTYPE_FLOAT32, 1, TL_ACCESS_READ},
    {"y", TL_PARAM_TENSOR, TL_DTYPE_FLOAT32, 1, TL_ACCESS_READWRITE},
    {"alpha", TL_PARAM_SCALAR, TL_DTYPE_FLOAT32, 0, TL_ACCESS_NONE},
};
static const tl_param_t copy2d_params[] = {
    {"x", TL_PARAM_TENSOR, TL_DTYPE_FLOAT32, 2, TL_ACCESS_READ},
    {"out", TL_PARAM_TENSOR, TL_DTYPE_FLOAT32, 2, TL_ACCESS_WRITE},
};
static const tl_param_t fill_params[] = {
    {"out", TL_PARAM_TENSOR, TL_DTYPE_INT64, 1, TL_ACCESS_WRITE},
    {"value", TL_PARAM_SCALAR, TL_DTYPE_INT64, 0, TL_ACCESS_NONE},
};
/* shape contract of copy2d: x and out are both (M, N) */
static const int32_t copy2d_dims[] = {0, 1, 0, 1};
static const char* const copy2d_dim_names[] = {"M", "N"};

static const tl_kernel_desc_t kernels[] = {
    {"axpy", 3, axpy_params, ENTRY(axpy_entry), axpy_grid, TL_WORKSPACE, "{}", "cuda_fixture.cu:21", 0, 0, 0,
     DEVICE("tl_axpy", TL_BLOCK_THREADS, TL_SHARED_BYTES)},
    {"copy2d", 2, copy2d_params, ENTRY(copy2d_entry), copy2d_grid, 0, "{}", "cuda_fixture.cu:35", copy2d_dims,
     copy2d_dim_names, 2, DEVICE("tl_copy2d", TL_BLOCK_THREADS, 0)},
    {"fill_i64", 2, fill_params, ENTRY(fill_entry), 0, 0, "{}", "cuda_fixture.cu:50", 0, 0, 0,
     DEVICE("tl_fill_i64", 64, 0)},
};

static tl_bundle_t bundle = {
    TL_BUNDLE_ABI_VERSION,
#ifdef TL_OLD_LAYOUT
    (uint32_t)__builtin_offsetof(tl_bundle_t, device_image),
    (uint32_t)__builtin_offsetof(tl_kernel_desc_t, device_entry),
#else
    sizeof(tl_bundle_t),
    sizeof(tl_kernel_desc_t),
#endif
    sizeof(tl_param_t), sizeof(tl_tensor_t), sizeof kernels / sizeof kernels[0], kernels, TL_TARGET, "",
#ifdef TL_CPU
    0, 0, 0};
#else
    tl_fixture_image, 0, TL_IMAGE_FORMAT};
#endif

EXPORT const tl_bundle_t* tl_bundle_query(uint32_t max_abi_version, const tl_host_env_t* env) {
  (void)env;
  if (max_abi_version < TL_BUNDLE_ABI_VERSION) return 0;
#ifndef TL_CPU
  /* the size is known at run time only (the linker's, not the compiler's, constant) */
  bundle.device_image_size = (uint64_t)(tl_fixture_image_end - tl_fixture_image);
  if (bundle.device_image_format[0] == 'p') bundle.device_image_size += 1;
#endif
  return &bundle;
}
