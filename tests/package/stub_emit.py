"""A stand-in for tlc.emit_c.emit_bundle, so the package layer is tested on its own.

``stub_bundle(names, variant, source_file)`` returns a freestanding C TU with one kernel per name:
each adds its first two float32 tensors elementwise into the third (any rank <= 2, strided), one
program per row of the output; grid = (out.shape[0],).
"""
from __future__ import annotations

STUB_KERNEL = r"""
static const tl_param_t tl__params_{name}[3] = {{
  {{"x", TL_PARAM_TENSOR, TL_DTYPE_FLOAT32, 2, TL_ACCESS_READ}},
  {{"y", TL_PARAM_TENSOR, TL_DTYPE_FLOAT32, 2, TL_ACCESS_READ}},
  {{"out", TL_PARAM_TENSOR, TL_DTYPE_FLOAT32, 2, TL_ACCESS_WRITE}},
}};
static int32_t tl__entry_{name}(const tl_arg_t* a, const tl_grid_t* g, int64_t first, int64_t last, void* ws) {{
  (void)g; (void)ws;
  const tl_tensor_t *x = a[0].tensor, *y = a[1].tensor, *o = a[2].tensor;
  for (int64_t r = first; r < last; ++r)
    for (int64_t c = 0; c < o->shape[1]; ++c)
      ((float*)o->data)[r * o->strides[0] + c * o->strides[1]] =
          ((const float*)x->data)[r * x->strides[0] + c * x->strides[1]] +
          ((const float*)y->data)[r * y->strides[0] + c * y->strides[1]];
  return 0;
}}
static int32_t tl__grid_{name}(const tl_arg_t* a, tl_grid_t* g) {{
  g->size[0] = a[2].tensor->shape[0]; g->size[1] = 1; g->size[2] = 1; return 0;
}}
"""


def stub_bundle(names, variant, source_file="stub.py", extra="") -> str:
    parts = ['#include "tl/bundle_abi.h"\n', extra]
    for n in names:
        parts.append(STUB_KERNEL.format(name=n))
    descs = ",\n".join(
        f'  {{"{n}", 3, tl__params_{n}, tl__entry_{n}, tl__grid_{n}, 0, "{{}}", "{source_file}:1"}}' for n in names)
    parts.append(f"static const tl_kernel_desc_t tl__kernels[{len(names)}] = {{\n{descs}\n}};\n")
    parts.append(
        "static const tl_bundle_t tl__bundle = {TL_BUNDLE_ABI_VERSION, sizeof(tl_bundle_t), "
        "sizeof(tl_kernel_desc_t), sizeof(tl_param_t), sizeof(tl_tensor_t), "
        f'{len(names)}, tl__kernels, "{variant.name}", ""}};\n'
        '__attribute__((visibility("default"))) const tl_bundle_t* tl_bundle_query(uint32_t v, const tl_host_env_t* e) {\n'
        "  (void)e; return v >= TL_BUNDLE_ABI_VERSION ? &tl__bundle : 0;\n}\n")
    return "".join(parts)
