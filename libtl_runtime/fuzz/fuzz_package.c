/* fuzz_package.c - libFuzzer target for the package reader: every input is written to a memfd and
 * opened with tl_package_open. The runtime must return a status (never crash, leak or hang);
 * inputs that do open are launched on nothing and released. Built by fuzz/Makefile with
 * clang -fsanitize=fuzzer,address,undefined; run by `make fuzz FUZZ_SECONDS=60` (seeds: corpus/). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "tl/runtime.h"

static tl_runtime_t* rt;

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (rt == NULL && tl_runtime_create(NULL, &rt) != TL_OK) return 0;
  int fd = memfd_create("tl-fuzz", MFD_CLOEXEC);
  if (fd < 0) return 0;
  size_t done = 0;
  while (done < size) {
    ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) break;
    done += (size_t)n;
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  tl_package_t* pkg = NULL;
  tl_status_t st = tl_package_open(rt, path, &pkg);
  if (st == TL_OK) {
    for (uint32_t i = 0; i < tl_package_kernel_count(pkg); ++i) (void)tl_package_kernel_name(pkg, i);
    tl_package_release(pkg);
  } else if (tl_runtime_last_error(rt)[0] == '\0') {
    __builtin_trap();   /* every failure must carry a message */
  }
  close(fd);
  return 0;
}
