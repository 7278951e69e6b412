/* driver.h - what the C test drivers (stress.c, misuse.c) share: CHECK, counting failures into
 * g_failures, and a CPU DLTensor. Header-only; each driver is one translation unit. */
#ifndef TL_TEST_DRIVER_H
#define TL_TEST_DRIVER_H
#include <stdio.h>
#include <string.h>
#include <tl/runtime.h>

static int g_failures;
#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fputc('\n', stderr);                                 \
      g_failures++;                                        \
    }                                                      \
  } while (0)

static inline DLTensor vec(void* data, int64_t* shape, int ndim, uint8_t code, uint8_t bits) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = ndim;
  t.dtype.code = code;
  t.dtype.bits = bits;
  t.dtype.lanes = 1;
  t.shape = shape;
  return t;
}
#endif
