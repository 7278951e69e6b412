/* device_use.c - opens a package for a device and launches the fixture's axpy on tensors of given
 * DLPack devices (tests/runtime/test_device.py). Usage:
 *   device_use PACKAGE DEVICE_TYPE DEVICE_ID [TENSOR_TYPE:TENSOR_ID ...]
 * DEVICE_TYPE/DEVICE_ID go to tl_package_open_ex (DEVICE_TYPE -1: plain tl_package_open; -2: an
 * options struct of the wrong struct_size). Prints "open <status> <message>", then on success
 * "device <name> <type> <id> target <variant>", and for each TENSOR_TYPE:TENSOR_ID one launch of
 * axpy (y = 2x + y on 3 elements, x and y on that device) as "launch <status> <message>" followed
 * by "values ok" when y holds the right numbers. Exits 0 when it ran to the end. */
#include <stdio.h>
#include <stdlib.h>
#include <tl/runtime.h>
#include "driver.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s PACKAGE DEVICE_TYPE DEVICE_ID [TYPE:ID ...]\n", argv[0]);
    return 2;
  }
  tl_runtime_options_t ro;
  tl_runtime_options_initialize(&ro);
  ro.num_threads = 1;
  tl_runtime_t* rt = NULL;
  if (tl_runtime_create(&ro, &rt) != TL_OK) return 1;
  tl_package_t* pkg = NULL;
  int want = atoi(argv[2]);
  tl_status_t st;
  if (want == -1) {
    st = tl_package_open(rt, argv[1], &pkg);
  } else {
    tl_package_open_options_t oo;
    tl_package_open_options_initialize(&oo);
    if (want == -2) oo.struct_size = 4;
    else oo.device_type = want;
    oo.device_id = atoi(argv[3]);
    st = tl_package_open_ex(rt, argv[1], &oo, &pkg);
  }
  printf("open %d %s\n", (int)st, tl_runtime_last_error(rt));
  if (st != TL_OK) {
    tl_runtime_release(rt);
    return 0;
  }
  DLDevice dev = tl_package_device(pkg);
  printf("device %s %d %d target %s\n", tl_package_device_name(pkg), (int)dev.device_type, (int)dev.device_id,
         tl_package_target(pkg));
  tl_kernel_t* axpy = NULL;
  if (tl_package_kernel(pkg, "axpy", &axpy) != TL_OK) return 1;
  for (int i = 4; i < argc; ++i) {
    float x[3] = {1, 2, 3}, y[3] = {10, 20, 30};
    int64_t shape[1] = {3};
    DLTensor tx = vec(x, shape, 1, kDLFloat, 32), ty = tx;
    ty.data = y;
    int type = 0, id = 0;
    if (sscanf(argv[i], "%d:%d", &type, &id) != 2) return 2;
    tx.device.device_type = ty.device.device_type = (DLDeviceType)type;
    tx.device.device_id = ty.device.device_id = id;
    tl_value_t args[3] = {{&tx, 0, 0.0}, {&ty, 0, 0.0}, {NULL, 0, 2.0}};
    st = tl_kernel_launch(axpy, args, 3, NULL);
    printf("launch %d %s\n", (int)st, tl_runtime_last_error(rt));
    if (st == TL_OK && y[0] == 12 && y[1] == 24 && y[2] == 36) printf("values ok\n");
  }
  tl_package_release(pkg);
  tl_runtime_release(rt);
  return g_failures != 0;
}
