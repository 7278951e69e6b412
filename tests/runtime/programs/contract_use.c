/* contract_use.c - a C caller of a kernel with a shape contract (tests/runtime/test_shape_contract_launch.py).
 * Usage: contract_use PACKAGE R N OUT_ROWS W_ROWS W_COLS: launches kernel "rowsum" (x float32[R, N],
 * out float32[R], w float32[N, 3]) with x R x N, out OUT_ROWS, w W_ROWS x W_COLS and prints
 *   dims=<the descriptor's dims table> names=<its dim_names>
 *   status=<the launch's status> message=<tl_runtime_last_error> out0=<out[0]>
 */
#include <stdio.h>
#include <stdlib.h>
#include <tl/runtime.h>
#include "driver.h"

int main(int argc, char** argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: contract_use PACKAGE R N OUT_ROWS W_ROWS W_COLS\n");
    return 2;
  }
  int64_t xs[2] = {atoll(argv[2]), atoll(argv[3])}, os[1] = {atoll(argv[4])}, ws[2] = {atoll(argv[5]), atoll(argv[6])};
  float* x = calloc((size_t)(xs[0] * xs[1] + 1), sizeof(float));
  float* out = calloc((size_t)(os[0] + 1), sizeof(float));
  float* w = calloc((size_t)(ws[0] * ws[1] + 1), sizeof(float));
  if (!x || !out || !w) return 3;
  for (int64_t i = 0; i < xs[0] * xs[1]; ++i) x[i] = 1.0f;
  tl_runtime_t* rt = NULL;
  tl_package_t* pkg = NULL;
  tl_kernel_t* k = NULL;
  if (tl_runtime_create(NULL, &rt) != TL_OK || tl_package_open(rt, argv[1], &pkg) != TL_OK ||
      tl_package_kernel(pkg, "rowsum", &k) != TL_OK) {
    fprintf(stderr, "setup: %s\n", tl_runtime_last_error(rt));
    return 3;
  }
  const tl_kernel_desc_t* d = tl_kernel_desc(k);
  CHECK(d != NULL && d->num_params == 3, "tl_kernel_desc: %s", tl_runtime_last_error(rt));
  if (d == NULL) return 1;
  printf("dims=");
  for (uint32_t i = 0; d->dims != NULL && i < 5; ++i) printf("%s%d", i ? "," : "", (int)d->dims[i]);
  printf(" names=");
  for (uint32_t i = 0; i < d->num_dim_names; ++i) printf("%s%s", i ? "," : "", d->dim_names[i]);
  printf("\n");
  DLTensor tx = vec(x, xs, 2, kDLFloat, 32), to = vec(out, os, 1, kDLFloat, 32), tw = vec(w, ws, 2, kDLFloat, 32);
  tl_value_t args[3] = {{&tx, 0, 0.0}, {&to, 0, 0.0}, {&tw, 0, 0.0}};
  int st = (int)tl_kernel_launch(k, args, 3, NULL);
  printf("status=%d message=%s out0=%g\n", st, st == TL_OK ? "" : tl_runtime_last_error(rt), (double)out[0]);
  tl_package_release(pkg);
  tl_runtime_release(rt);
  free(x);
  free(out);
  free(w);
  return g_failures;
}
