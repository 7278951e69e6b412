/* tl_run.c - the cross-conformance test driver: runs kernels of a package (or of one bundle .so)
 * through libtl_runtime on .npy files, on any architecture (natively or under qemu-user).
 *
 *   tl_run PACKAGE.tlpkg|BUNDLE.so [NUM_THREADS]
 *
 * Reads commands from stdin, one per line, and answers each with one line on stdout:
 *   info                       -> "ok <variant> <cpu features>"
 *   run KERNEL N ARG1 .. ARGN  -> "ok" or "err <message>"
 *     ARG is t=<file.npy> (a C-contiguous tensor; after the launch the data of every tensor whose
 *     parameter is written is stored back into the same file) or s=<value> (a scalar: strtod,
 *     hex floats exact, for float parameters; strtoll for integer and bool ones).
 *   quit
 * A .npy file is only read for its shape and raw data (any descr of the right item size).
 * One process serves a whole test session, so qemu starts once per configuration.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tl/runtime.h"

#define MAX_ARGS 16
#define LINE_CAP 65536

typedef struct {
  char path[1024];
  unsigned char* data;
  long data_offset;
  size_t bytes;
  int ndim;
  int64_t shape[8];
} npy_t;

static const uint8_t dl_code[TL_DTYPE_COUNT] = {kDLBool, kDLInt, kDLInt, kDLInt, kDLFloat, kDLBfloat, kDLFloat};
static const uint8_t dl_bits[TL_DTYPE_COUNT] = {8, 8, 32, 64, 16, 16, 32};

/* Loads an .npy v1/v2 file: shape from the header, raw data after it. Returns 0 or -1 (msg set). */
static int npy_load(npy_t* t, const char* path, char* msg, size_t cap) {
  memset(t, 0, sizeof *t);
  snprintf(t->path, sizeof t->path, "%s", path);
  FILE* f = fopen(path, "rb");
  if (!f) return snprintf(msg, cap, "cannot open %s", path), -1;
  unsigned char pre[12];
  if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
    fclose(f);
    return snprintf(msg, cap, "%s: not an .npy file", path), -1;
  }
  unsigned long hlen = pre[8] | (pre[9] << 8);
  long start = 10;
  if (pre[6] >= 2) {
    if (fread(pre + 10, 1, 2, f) != 2) { fclose(f); return snprintf(msg, cap, "%s: short header", path), -1; }
    hlen |= ((unsigned long)pre[10] << 16) | ((unsigned long)pre[11] << 24);
    start = 12;
  }
  char* h = calloc(1, hlen + 1);
  if (!h || fread(h, 1, hlen, f) != hlen) { free(h); fclose(f); return snprintf(msg, cap, "%s: short header", path), -1; }
  if (strstr(h, "'fortran_order': True")) { free(h); fclose(f); return snprintf(msg, cap, "%s: fortran order", path), -1; }
  const char* d = strstr(h, "'descr': '");
  const char* s = strstr(h, "'shape': (");
  if (!d || !s) { free(h); fclose(f); return snprintf(msg, cap, "%s: bad header", path), -1; }
  size_t item = (size_t)strtoul(d + 12, NULL, 10);   /* '<f4' / '|b1': the size after two chars */
  s += 10;
  size_t n = 1;
  while (*s && *s != ')') {
    while (*s == ' ' || *s == ',') ++s;
    if (*s == ')') break;
    if (t->ndim == 8) break;
    t->shape[t->ndim] = strtoll(s, (char**)&s, 10);
    n *= (size_t)t->shape[t->ndim++];
  }
  free(h);
  t->data_offset = start + (long)hlen;
  t->bytes = n * item;
  t->data = malloc(t->bytes ? t->bytes : 1);
  if (!t->data || fread(t->data, 1, t->bytes, f) != t->bytes) {
    fclose(f);
    return snprintf(msg, cap, "%s: short data (%zu bytes expected)", path, t->bytes), -1;
  }
  fclose(f);
  return 0;
}

static int npy_store(const npy_t* t, char* msg, size_t cap) {
  FILE* f = fopen(t->path, "r+b");
  if (!f || fseek(f, t->data_offset, SEEK_SET) != 0 || fwrite(t->data, 1, t->bytes, f) != t->bytes) {
    if (f) fclose(f);
    return snprintf(msg, cap, "cannot write %.900s", t->path), -1;
  }
  fclose(f);
  return 0;
}

/* One "run" command; returns 0 or -1 with msg. */
static int run(tl_runtime_t* rt, tl_package_t* pkg, char* line, char* msg, size_t cap) {
  char* save = NULL;
  const char* name = strtok_r(line, " \n", &save);
  const char* count = strtok_r(NULL, " \n", &save);
  if (!name || !count) return snprintf(msg, cap, "usage: run KERNEL N ARGS..."), -1;
  int n = atoi(count);
  if (n < 0 || n > MAX_ARGS) return snprintf(msg, cap, "bad argument count %d", n), -1;
  tl_kernel_t* k = NULL;
  if (tl_package_kernel(pkg, name, &k) != TL_OK) return snprintf(msg, cap, "%s", tl_runtime_last_error(rt)), -1;
  const tl_kernel_desc_t* desc = tl_kernel_desc(k);
  if ((uint32_t)n != desc->num_params) return snprintf(msg, cap, "%s takes %u arguments, got %d", name, desc->num_params, n), -1;
  npy_t npy[MAX_ARGS];
  DLTensor dl[MAX_ARGS];
  tl_value_t vals[MAX_ARGS];
  int loaded[MAX_ARGS] = {0}, alias[MAX_ARGS], rc = 0;
  memset(vals, 0, sizeof vals);
  for (int i = 0; i < n && rc == 0; ++i) {
    const char* a = strtok_r(NULL, " \n", &save);
    const tl_param_t* p = &desc->params[i];
    alias[i] = -1;
    if (!a || strlen(a) < 2 || a[1] != '=') { rc = -1; snprintf(msg, cap, "argument %d missing", i); break; }
    if (p->kind == TL_PARAM_SCALAR) {
      if (p->dtype == TL_DTYPE_FLOAT32 || p->dtype == TL_DTYPE_FLOAT16 || p->dtype == TL_DTYPE_BFLOAT16)
        vals[i].f64 = strtod(a + 2, NULL);
      else
        vals[i].i64 = strtoll(a + 2, NULL, 0);
      continue;
    }
    for (int j = 0; j < i; ++j)   /* the same file twice: one buffer (aliasing as on the host) */
      if (loaded[j] && strcmp(npy[j].path, a + 2) == 0) alias[i] = j;
    int src = alias[i] >= 0 ? alias[i] : i;
    if (alias[i] < 0) {
      if (npy_load(&npy[i], a + 2, msg, cap) != 0) { rc = -1; break; }
      loaded[i] = 1;
    }
    memset(&dl[i], 0, sizeof dl[i]);
    dl[i].data = npy[src].data;
    dl[i].device.device_type = kDLCPU;
    dl[i].ndim = npy[src].ndim;
    dl[i].dtype.code = dl_code[p->dtype];
    dl[i].dtype.bits = dl_bits[p->dtype];
    dl[i].dtype.lanes = 1;
    dl[i].shape = npy[src].shape;
    vals[i].tensor = &dl[i];
  }
  if (rc == 0 && tl_kernel_launch(k, vals, (uint32_t)n, NULL) != TL_OK) {
    rc = -1;
    snprintf(msg, cap, "%s", tl_runtime_last_error(rt));
  }
  for (int i = 0; i < n; ++i) {
    if (!loaded[i]) continue;
    if (rc == 0 && (desc->params[i].access & TL_ACCESS_WRITE)) rc = npy_store(&npy[i], msg, cap);
    free(npy[i].data);
  }
  return rc;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s PACKAGE.tlpkg|BUNDLE.so [NUM_THREADS] < commands\n", argv[0]);
    return 2;
  }
  tl_runtime_options_t opts;
  tl_runtime_options_initialize(&opts);
  opts.num_threads = argc > 2 ? atoi(argv[2]) : 0;
  tl_runtime_t* rt = NULL;
  if (tl_runtime_create(&opts, &rt) != TL_OK) {
    fprintf(stderr, "tl_run: %s\n", tl_runtime_last_error(NULL));
    return 1;
  }
  size_t len = strlen(argv[1]);
  int bundle = len > 3 && strcmp(argv[1] + len - 3, ".so") == 0;
  tl_package_t* pkg = NULL;
  tl_status_t st = bundle ? tl_package_open_bundle(rt, argv[1], &pkg) : tl_package_open(rt, argv[1], &pkg);
  if (st != TL_OK) {
    printf("err %s\n", tl_runtime_last_error(rt));
    fprintf(stderr, "tl_run: %s\n", tl_runtime_last_error(rt));
    return 1;
  }
  static char line[LINE_CAP];
  char msg[2048];
  setvbuf(stdout, NULL, _IOLBF, 0);
  while (fgets(line, sizeof line, stdin)) {
    if (strncmp(line, "quit", 4) == 0) break;
    if (strncmp(line, "info", 4) == 0) {
      printf("ok %s %s\n", tl_package_target(pkg), tl_runtime_cpu_features(rt));
    } else if (strncmp(line, "run ", 4) == 0) {
      msg[0] = '\0';
      if (run(rt, pkg, line + 4, msg, sizeof msg) == 0) {
        printf("ok\n");
      } else {
        for (char* c = msg; *c; ++c)
          if (*c == '\n') *c = ' ';
        printf("err %s\n", msg);
      }
    } else {
      printf("err unknown command\n");
    }
    fflush(stdout);
  }
  tl_package_release(pkg);
  tl_runtime_release(rt);
  return 0;
}
