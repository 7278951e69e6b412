/* launch_cost.c - CALLS back-to-back tl_kernel_launch calls of the fixture's `add` kernel on 1x1
 * float32 tensors (three tensor arguments, contiguous, one program, one thread: the inline path),
 * for counting the launch path's instructions under callgrind (tests/runtime/launch_cost.py).
 * Usage: launch_cost FIXTURE.tlpkg [CALLS]. Checks the result so the loop cannot be a no-op. */
#include <stdio.h>
#include <stdlib.h>
#include <tl/runtime.h>
#include "driver.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FIXTURE.tlpkg [CALLS]\n", argv[0]);
    return 2;
  }
  long calls = argc > 2 ? atol(argv[2]) : 10000;
  tl_runtime_options_t ro;
  tl_runtime_options_initialize(&ro);
  ro.num_threads = 1;
  tl_runtime_t* rt = NULL;
  tl_package_t* pkg = NULL;
  tl_kernel_t* add = NULL;
  if (tl_runtime_create(&ro, &rt) != TL_OK || tl_package_open(rt, argv[1], &pkg) != TL_OK ||
      tl_package_kernel(pkg, "add", &add) != TL_OK) {
    fprintf(stderr, "setup failed: %s\n", tl_runtime_last_error(rt));
    return 1;
  }
  float a = 1.0f, b = 2.0f, out = 0.0f;
  int64_t shape[2] = {1, 1};
  DLTensor ta = vec(&a, shape, 2, kDLFloat, 32), tb = vec(&b, shape, 2, kDLFloat, 32),
           to = vec(&out, shape, 2, kDLFloat, 32);
  tl_value_t args[3] = {{&ta, 0, 0.0}, {&tb, 0, 0.0}, {&to, 0, 0.0}};
  for (long i = 0; i < calls; ++i) {
    if (tl_kernel_launch(add, args, 3, NULL) != TL_OK) {
      fprintf(stderr, "launch failed: %s\n", tl_runtime_last_error(rt));
      return 1;
    }
    a += 1.0f;
  }
  CHECK(out == a - 1.0f + 2.0f, "out = %g, expected %g", (double)out, (double)(a + 1.0f));
  tl_package_release(pkg);
  tl_runtime_release(rt);
  return g_failures != 0;
}
