/* fixture_bundle.c - a hand-written freestanding bundle for the runtime tests.
 * Built by tests/runtime/conftest.py with
 *   gcc -shared -fPIC -O2 -nostdlib -ffreestanding -fno-tree-loop-distribute-patterns -fvisibility=hidden
 * Exports only tl_bundle_query. Kernels (all float32 unless noted):
 *   axpy(x[1] read, y[1] readwrite, alpha)       y += alpha * x, 64 elements per program, grid rule
 *   add(a[2], b[2], out[2] write)                out = a + b; pid0 over 16-column blocks, pid1 over rows; grid rule
 *   add_nogrid(a[2], b[2], out[2] write)         the same without a grid rule
 *   rowsum(x[2], out[1] write)                   out[i] = sum(x[i, :]) through a 256-byte workspace, one row per program
 *   fill_i32(out: int32[1] write, value: int32)  one program, no grid rule needed (grid rule returns (1,1,1))
 *   copy_bf16(x: bfloat16[1], y: bfloat16[1] write)  bit copy, grid rule (1,1,1)
 *   fail(x[1] read)                              returns 7 from its entry
 *   count(out: int64[1] write)                   out[pid] = pid + 1 for every program; caller's grid
 */
#include "tl/bundle_abi.h"

#define EXPORT __attribute__((visibility("default")))
#define BLOCK 64

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int32_t axpy_entry(const tl_arg_t* args, const tl_grid_t* grid, int64_t first, int64_t last, void* ws) {
  (void)grid; (void)ws;
  const tl_tensor_t* x = args[0].tensor;
  const tl_tensor_t* y = args[1].tensor;
  float alpha = (float)args[2].f64;
  int64_t n = x->shape[0];
  for (int64_t pid = first; pid < last; ++pid) {
    for (int64_t i = pid * BLOCK; i < pid * BLOCK + BLOCK && i < n; ++i) {
      float* py = (float*)y->data + i * y->strides[0];
      const float* px = (const float*)x->data + i * x->strides[0];
      *py = alpha * *px + *py;
    }
  }
  return 0;
}
static int32_t axpy_grid(const tl_arg_t* args, tl_grid_t* g) {
  g->size[0] = cdiv(args[0].tensor->shape[0], BLOCK);
  g->size[1] = 1;
  g->size[2] = 1;
  return 0;
}

static int32_t add_entry(const tl_arg_t* args, const tl_grid_t* grid, int64_t first, int64_t last, void* ws) {
  (void)ws;
  const tl_tensor_t* a = args[0].tensor;
  const tl_tensor_t* b = args[1].tensor;
  const tl_tensor_t* o = args[2].tensor;
  int64_t rows = o->shape[0], cols = o->shape[1];
  for (int64_t pid = first; pid < last; ++pid) {
    int64_t p0 = pid % grid->size[0];
    int64_t p1 = (pid / grid->size[0]) % grid->size[1];
    if (p1 >= rows) continue;
    for (int64_t j = p0 * 16; j < p0 * 16 + 16 && j < cols; ++j) {
      float va = ((const float*)a->data)[p1 * a->strides[0] + j * a->strides[1]];
      float vb = ((const float*)b->data)[p1 * b->strides[0] + j * b->strides[1]];
      ((float*)o->data)[p1 * o->strides[0] + j * o->strides[1]] = va + vb;
    }
  }
  return 0;
}
static int32_t add_grid(const tl_arg_t* args, tl_grid_t* g) {
  g->size[0] = cdiv(args[2].tensor->shape[1], 16);
  g->size[1] = args[2].tensor->shape[0];
  g->size[2] = 1;
  return 0;
}

static int32_t rowsum_entry(const tl_arg_t* args, const tl_grid_t* grid, int64_t first, int64_t last, void* ws) {
  (void)grid;
  if (ws == 0 || ((uintptr_t)ws & (TL_WORKSPACE_ALIGN - 1)) != 0) return 3;
  const tl_tensor_t* x = args[0].tensor;
  const tl_tensor_t* o = args[1].tensor;
  float* buf = (float*)ws; /* 64 floats */
  for (int64_t pid = first; pid < last; ++pid) {
    float acc = 0.0f;
    for (int64_t j0 = 0; j0 < x->shape[1]; j0 += 64) {
      int64_t m = x->shape[1] - j0 < 64 ? x->shape[1] - j0 : 64;
      for (int64_t j = 0; j < m; ++j) buf[j] = ((const float*)x->data)[pid * x->strides[0] + (j0 + j) * x->strides[1]];
      for (int64_t j = 0; j < m; ++j) acc += buf[j];
    }
    ((float*)o->data)[pid * o->strides[0]] = acc;
  }
  return 0;
}
static int32_t rowsum_grid(const tl_arg_t* args, tl_grid_t* g) {
  g->size[0] = args[0].tensor->shape[0];
  g->size[1] = 1;
  g->size[2] = 1;
  return 0;
}

static int32_t one_grid(const tl_arg_t* args, tl_grid_t* g) {
  (void)args;
  g->size[0] = g->size[1] = g->size[2] = 1;
  return 0;
}

static int32_t fill_entry(const tl_arg_t* args, const tl_grid_t* grid, int64_t first, int64_t last, void* ws) {
  (void)grid; (void)ws; (void)first; (void)last;
  const tl_tensor_t* o = args[0].tensor;
  for (int64_t i = 0; i < o->shape[0]; ++i) ((int32_t*)o->data)[i * o->strides[0]] = (int32_t)args[1].i64;
  return 0;
}

static int32_t copy_bf16_entry(const tl_arg_t* args, const tl_grid_t* grid, int64_t first, int64_t last, void* ws) {
  (void)grid; (void)ws; (void)first; (void)last;
  const tl_tensor_t* x = args[0].tensor;
  const tl_tensor_t* y = args[1].tensor;
  for (int64_t i = 0; i < x->shape[0]; ++i)
    ((uint16_t*)y->data)[i * y->strides[0]] = ((const uint16_t*)x->data)[i * x->strides[0]];
  return 0;
}

static int32_t fail_entry(const tl_arg_t* args, const tl_grid_t* grid, int64_t first, int64_t last, void* ws) {
  (void)args; (void)grid; (void)first; (void)last; (void)ws;
  return 7;
}

static int32_t count_entry(const tl_arg_t* args, const tl_grid_t* grid, int64_t first, int64_t last, void* ws) {
  (void)grid; (void)ws;
  const tl_tensor_t* o = args[0].tensor;
  for (int64_t pid = first; pid < last; ++pid)
    if (pid < o->shape[0]) ((int64_t*)o->data)[pid * o->strides[0]] = pid + 1;
  return 0;
}

static const tl_param_t axpy_params[] = {
    {"x", TL_PARAM_TENSOR, TL_DTYPE_FLOAT32, 1, TL_ACCESS_READ},
    {"y", TL_PARAM_TENSOR, TL_DTYPE_FLOAT32, 1, TL_ACCESS_READWRITE},
    {"alpha", TL_PARAM_SCALAR, TL_DTYPE_FLOAT32, 0, TL_ACCESS_NONE},
};
static const tl_param_t add_params[] = {
    {"a", TL_PARAM_TENSOR, TL_DTYPE_FLOAT32, 2, TL_ACCESS_READ},
    {"b", TL_PARAM_TENSOR, TL_DTYPE_FLOAT32, 2, TL_ACCESS_READ},
    {"out", TL_PARAM_TENSOR, TL_DTYPE_FLOAT32, 2, TL_ACCESS_WRITE},
};
static const tl_param_t rowsum_params[] = {
    {"x", TL_PARAM_TENSOR, TL_DTYPE_FLOAT32, 2, TL_ACCESS_READ},
    {"out", TL_PARAM_TENSOR, TL_DTYPE_FLOAT32, 1, TL_ACCESS_WRITE},
};
static const tl_param_t fill_params[] = {
    {"out", TL_PARAM_TENSOR, TL_DTYPE_INT32, 1, TL_ACCESS_WRITE},
    {"value", TL_PARAM_SCALAR, TL_DTYPE_INT32, 0, TL_ACCESS_NONE},
};
static const tl_param_t copy_bf16_params[] = {
    {"x", TL_PARAM_TENSOR, TL_DTYPE_BFLOAT16, 1, TL_ACCESS_READ},
    {"y", TL_PARAM_TENSOR, TL_DTYPE_BFLOAT16, 1, TL_ACCESS_WRITE},
};
static const tl_param_t fail_params[] = {
    {"x", TL_PARAM_TENSOR, TL_DTYPE_FLOAT32, 1, TL_ACCESS_READ},
};
static const tl_param_t count_params[] = {
    {"out", TL_PARAM_TENSOR, TL_DTYPE_INT64, 1, TL_ACCESS_WRITE},
};

#ifdef FIXTURE_BAD_DIMS
/* -DFIXTURE_BAD_DIMS=1: kernel "fail" has a shape contract naming symbol 5 of none (a bad package) */
static const int32_t fail_bad_dims[1] = {5};
#define FIXTURE_FAIL_DIMS , fail_bad_dims, 0, 0
#else
#define FIXTURE_FAIL_DIMS
#endif

#ifdef FIXTURE_OLD_DESC
/* -DFIXTURE_OLD_DESC=1: descriptors of the layout before tl_kernel_desc_t grew its shape contract
 * fields (dims, dim_names, num_dim_names): the runtime must still load them (no contract). */
typedef struct {
  const char* name;
  uint32_t num_params;
  const tl_param_t* params;
  tl_kernel_entry_t entry;
  tl_grid_fn_t grid;
  uint64_t workspace_bytes;
  const char* constexprs;
  const char* source;
} fixture_desc_v0_t;
#define tl_kernel_desc_t fixture_desc_v0_t
#endif

static const tl_kernel_desc_t kernels[] = {
    {"axpy", 3, axpy_params, axpy_entry, axpy_grid, 0, "{\"BLOCK\": 64}", "fixture_bundle.c:1"},
    {"add", 3, add_params, add_entry, add_grid, 0, "{}", "fixture_bundle.c:2"},
    {"add_nogrid", 3, add_params, add_entry, 0, 0, "{}", "fixture_bundle.c:3"},
    {"rowsum", 2, rowsum_params, rowsum_entry, rowsum_grid, 256, "{}", "fixture_bundle.c:4"},
    {"fill_i32", 2, fill_params, fill_entry, one_grid, 0, "{}", "fixture_bundle.c:5"},
    {"copy_bf16", 2, copy_bf16_params, copy_bf16_entry, one_grid, 0, "{}", "fixture_bundle.c:6"},
    {"fail", 1, fail_params, fail_entry, one_grid, 0, "{}", "fixture_bundle.c:7" FIXTURE_FAIL_DIMS},
    {"count", 1, count_params, count_entry, 0, 0, "{}", "fixture_bundle.c:8"},
};

#include "fixture_bundle.h"

#ifdef FIXTURE_UNDEFINED
/* -DFIXTURE_UNDEFINED=1: a bundle that needs a symbol nothing defines (dlopen RTLD_NOW refuses it) */
extern int tl_fixture_no_such_function(void);
EXPORT int tl_fixture_uses_undefined(void) { return tl_fixture_no_such_function(); }
#endif
