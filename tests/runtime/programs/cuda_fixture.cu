/* cuda_fixture.cu - hand-written CUDA kernels for the runtime's CUDA device tests, written to the
 * kernel parameter ABI of tl/bundle_abi.h ("Device bundles"): one by-value parameter block with,
 * per runtime parameter in call order, a tensor as {data, shape[rank], strides[rank]} (elements) or a
 * scalar as 8 bytes (int64 / double), then int64 grid[3]; program ids are blockIdx.{x,y,z}.
 * Built by tests/runtime/cuda_fixture.py: nvcc -cubin -arch=sm_90a / sm_80, or -ptx -arch=compute_80.
 * The host side (descriptors, grid rules) is cuda_fixture_host.c.
 *   tl_axpy(x: f32[1] read, y: f32[1] readwrite, alpha: f32)   y += alpha * x; 128 threads, one element each
 *   tl_copy2d(x: f32[2] read, out: f32[2] write)               out = x (any strides); pid0: 256-column block, pid1: row
 *   tl_fill_i64(out: i64[1] write, value: i64)                 out[i] = value + i; 64 threads, grid from the caller
 */
#include <stdint.h>

struct axpy_args {
  const float* x; int64_t x_shape[1]; int64_t x_strides[1];
  float* y; int64_t y_shape[1]; int64_t y_strides[1];
  double alpha;
  int64_t grid[3];
};

extern "C" __global__ void tl_axpy(axpy_args a) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.x_shape[0]) return;
  float* py = a.y + i * a.y_strides[0];
  *py = (float)a.alpha * a.x[i * a.x_strides[0]] + *py;
}

struct copy2d_args {
  const float* x; int64_t x_shape[2]; int64_t x_strides[2];
  float* out; int64_t out_shape[2]; int64_t out_strides[2];
  int64_t grid[3];
};

extern "C" __global__ void tl_copy2d(copy2d_args a) {
  int64_t r = blockIdx.y;
  int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= a.out_shape[0] || c >= a.out_shape[1]) return;
  a.out[r * a.out_strides[0] + c * a.out_strides[1]] = a.x[r * a.x_strides[0] + c * a.x_strides[1]];
}

struct fill_args {
  int64_t* out; int64_t out_shape[1]; int64_t out_strides[1];
  int64_t value;
  int64_t grid[3];
};

extern "C" __global__ void tl_fill_i64(fill_args a) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.out_shape[0]) return;
  a.out[i * a.out_strides[0]] = a.value + i;
}
