/* scalar_bundle.c - a hand-written freestanding bundle for test_scalar_args.py: one kernel with a
 * scalar of every scalar dtype, built like fixture_bundle.c.
 *   scalars(out: int64[1] write, b: bool, i8: int8, i32: int32, i64: int64, f: float32)
 *     one program: out[0..4] = b, i8, i32, i64, (int64)(f * 4); out[5] += 1 (launch count)
 */
#include "tl/bundle_abi.h"

static int32_t scalars_entry(const tl_arg_t* args, const tl_grid_t* grid, int64_t first, int64_t last, void* ws) {
  (void)grid; (void)ws; (void)first; (void)last;
  const tl_tensor_t* o = args[0].tensor;
  int64_t* d = (int64_t*)o->data;
  int64_t s = o->strides[0];
  d[0 * s] = args[1].i64;
  d[1 * s] = args[2].i64;
  d[2 * s] = args[3].i64;
  d[3 * s] = args[4].i64;
  d[4 * s] = (int64_t)(args[5].f64 * 4);
  d[5 * s] += 1;
  return 0;
}

static int32_t one_grid(const tl_arg_t* args, tl_grid_t* g) {
  (void)args;
  g->size[0] = 1;
  g->size[1] = 1;
  g->size[2] = 1;
  return 0;
}

static const tl_param_t scalars_params[] = {
    {"out", TL_PARAM_TENSOR, TL_DTYPE_INT64, 1, TL_ACCESS_READWRITE},
    {"b", TL_PARAM_SCALAR, TL_DTYPE_BOOL, 0, TL_ACCESS_NONE},
    {"i8", TL_PARAM_SCALAR, TL_DTYPE_INT8, 0, TL_ACCESS_NONE},
    {"i32", TL_PARAM_SCALAR, TL_DTYPE_INT32, 0, TL_ACCESS_NONE},
    {"i64", TL_PARAM_SCALAR, TL_DTYPE_INT64, 0, TL_ACCESS_NONE},
    {"f", TL_PARAM_SCALAR, TL_DTYPE_FLOAT32, 0, TL_ACCESS_NONE},
};

static const tl_kernel_desc_t kernels[] = {
    {"scalars", 6, scalars_params, scalars_entry, one_grid, 0, "{}", "scalar_bundle.c:1"},
};

#include "fixture_bundle.h"
