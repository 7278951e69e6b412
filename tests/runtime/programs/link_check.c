/* link_check.c - a minimal consumer of an installed libtl_runtime (C11 and, renamed, C++17).
 * Usage: link_check PACKAGE.tlpkg  -> prints "version N kernels K target T" and exits 0. */
#include <stdio.h>
#include <tl/runtime.h>

int main(int argc, char** argv) {
  tl_runtime_t* rt = NULL;
  tl_package_t* pkg = NULL;
  if (argc != 2) return 2;
  if (tl_runtime_create(NULL, &rt) != TL_OK) return 3;
  if (tl_package_open(rt, argv[1], &pkg) != TL_OK) {
    fprintf(stderr, "open failed: %s\n", tl_runtime_last_error(rt));
    tl_runtime_release(rt);
    return 4;
  }
  printf("version %s kernels %u target %s\n", tl_runtime_version(), tl_package_kernel_count(pkg),
         tl_package_target(pkg));
  tl_package_release(pkg);
  tl_runtime_release(rt);
  return 0;
}
