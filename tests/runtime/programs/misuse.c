/* misuse.c - a C driver for libtl_runtime's handle lifetimes under misuse, on the fixture package
 * (tests/runtime/fixture_bundle.c). Usage: misuse FIXTURE.tlpkg SCENARIO [FILE]. Each scenario
 * prints "name: status=N message=TEXT" lines (the call's status and tl_runtime_last_error after it)
 * for tests/runtime/test_misuse.py to compare, checks what it can itself (CHECK), and ends with
 * "all passed" (exit 0) or "FAILED" (exit 1). The test runs it against the normal, the ASan+UBSan
 * and the TSan builds of the runtime: a crash, a sanitizer report or a hang is a failure. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tl/runtime.h>
#include "driver.h"

static const char* g_pkg;

static void report(const char* name, int status, const char* message) {
  printf("%s: status=%d message=%s\n", name, status, message);
}

/* the call first, then the message (a function's arguments are evaluated in no fixed order) */
#define REPORT(name, call, rt)                        \
  do {                                                \
    int st_ = (int)(call);                            \
    report(name, st_, tl_runtime_last_error(rt));     \
  } while (0)

/* y = 2x + 1 over n elements with the axpy kernel: the launch's status, or -1 for wrong values */
static int axpy(tl_kernel_t* k, int64_t n, const tl_launch_options_t* opts) {
  float* x = malloc(sizeof(float) * (size_t)n);
  float* y = malloc(sizeof(float) * (size_t)n);
  if (!x || !y) abort();
  for (int64_t i = 0; i < n; ++i) { x[i] = (float)(i % 5); y[i] = 1.0f; }
  int64_t shape[1] = {n};
  DLTensor tx = vec(x, shape, 1, kDLFloat, 32), ty = vec(y, shape, 1, kDLFloat, 32);
  tl_value_t args[3] = {{&tx, 0, 0.0}, {&ty, 0, 0.0}, {NULL, 0, 2.0}};
  int st = tl_kernel_launch(k, args, 3, opts);
  for (int64_t i = 0; st == TL_OK && opts == NULL && i < n; ++i)
    if (y[i] != 2.0f * (float)(i % 5) + 1.0f) st = -1;
  for (int64_t i = 0; st == TL_OK && opts != NULL && i < n; ++i)
    if (y[i] != 1.0f) st = -1;   /* a 0-program grid writes nothing */
  free(x);
  free(y);
  return st;
}

static tl_runtime_t* new_runtime(int threads) {
  tl_runtime_options_t o;
  tl_runtime_options_initialize(&o);
  o.num_threads = threads;
  tl_runtime_t* rt = NULL;
  if (tl_runtime_create(&o, &rt) != TL_OK) {
    fprintf(stderr, "create: %s\n", tl_runtime_last_error(NULL));
    exit(3);
  }
  return rt;
}

static tl_package_t* open_pkg(tl_runtime_t* rt) {
  tl_package_t* pkg = NULL;
  if (tl_package_open(rt, g_pkg, &pkg) != TL_OK) {
    fprintf(stderr, "open: %s\n", tl_runtime_last_error(rt));
    exit(3);
  }
  return pkg;
}

static tl_kernel_t* kernel(tl_package_t* pkg, const char* name) {
  tl_kernel_t* k = NULL;
  if (tl_package_kernel(pkg, name, &k) != TL_OK) exit(3);
  return k;
}

/* ------------------------------------------------------------------------------------------ */
/* release racing launcher threads: launches before the release succeed with the right values,
 * every launch after it is refused cleanly, 2000 times per thread, and the next one too. */
enum { RACE_THREADS = 4, RACE_REFUSALS = 2000 };
typedef struct {
  tl_kernel_t* k;
  atomic_int ok;
  int refused, wrong, other;
  int last_status;
  char last_message[512];
} racer_t;

static void* racer(void* arg) {
  racer_t* r = arg;
  while (r->refused < RACE_REFUSALS) {
    int st = axpy(r->k, 97, NULL);
    if (st == TL_OK) atomic_fetch_add(&r->ok, 1);
    else if (st == -1) r->wrong++;
    else {
      if (st != TL_ERROR_INVALID_ARGUMENT) r->other++;
      r->refused++;
      r->last_status = st;
      snprintf(r->last_message, sizeof r->last_message, "%s", tl_runtime_last_error(NULL));
    }
  }
  return NULL;
}

static void scenario_race(void) {
  tl_runtime_t* rt = new_runtime(2);
  tl_package_t* pkg = open_pkg(rt);
  tl_kernel_t* k = kernel(pkg, "axpy");
  racer_t rs[RACE_THREADS];
  pthread_t th[RACE_THREADS];
  memset(rs, 0, sizeof rs);
  for (int i = 0; i < RACE_THREADS; ++i) {
    rs[i].k = k;
    atomic_init(&rs[i].ok, 0);
    pthread_create(&th[i], NULL, racer, &rs[i]);
  }
  for (int i = 0; i < RACE_THREADS; ++i)
    while (atomic_load(&rs[i].ok) < 50) usleep(100);
  int rel = tl_package_release(pkg);
  CHECK(rel == TL_OK, "release: %d", rel);
  int ok = 0;
  for (int i = 0; i < RACE_THREADS; ++i) {
    pthread_join(th[i], NULL);
    CHECK(rs[i].wrong == 0 && rs[i].other == 0, "thread %d: %d wrong results, %d other statuses", i, rs[i].wrong,
          rs[i].other);
    CHECK(rs[i].refused == RACE_REFUSALS, "thread %d: %d refusals", i, rs[i].refused);
    ok += atomic_load(&rs[i].ok);
  }
  printf("race: %d threads, %d launches before the release, %d refusals each\n", RACE_THREADS, ok, RACE_REFUSALS);
  report("race_refused", rs[0].last_status, rs[0].last_message);
  int st = axpy(k, 97, NULL);
  report("race_next", st, tl_runtime_last_error(rt));
  CHECK(tl_runtime_release(rt) == TL_OK, "runtime release");
}

/* launch and lookups with a released package's handles */
static void scenario_after_release(void) {
  tl_runtime_t* rt = new_runtime(2);
  tl_package_t* pkg = open_pkg(rt);
  tl_kernel_t* k = kernel(pkg, "axpy");
  CHECK(axpy(k, 1000, NULL) == TL_OK, "launch before release: %s", tl_runtime_last_error(rt));
  CHECK(tl_package_release(pkg) == TL_OK, "release");
  int st = axpy(k, 1000, NULL);
  report("launch", st, tl_runtime_last_error(rt));
  tl_kernel_t* k2 = (tl_kernel_t*)&k2;
  st = tl_package_kernel(pkg, "axpy", &k2);
  CHECK(k2 == NULL, "tl_package_kernel left *out_kernel set");
  report("kernel", st, tl_runtime_last_error(rt));
  REPORT("kernel_count", (int)tl_package_kernel_count(pkg), rt);
  const char* name = tl_package_kernel_name(pkg, 0);
  report("kernel_name_is_null", name == NULL, tl_runtime_last_error(rt));
  const char* target = tl_package_target(pkg);
  report("target_is_empty", target != NULL && target[0] == '\0', tl_runtime_last_error(rt));
  REPORT("desc_is_null", tl_kernel_desc(k) == NULL, rt);
  st = tl_kernel_check(k, "axpy", 0);        /* a generated wrapper's check, and DLPack intake */
  report("check", st, tl_runtime_last_error(rt));
  DLManagedTensorVersioned mt;
  memset(&mt, 0, sizeof mt);
  mt.version.major = DLPACK_MAJOR_VERSION;
  tl_value_t v;
  st = tl_value_from_dlpack(k, 0, &mt, &v);
  report("from_dlpack", st, tl_runtime_last_error(rt));
  st = tl_package_retain(pkg);
  report("retain", st, tl_runtime_last_error(rt));
  CHECK(tl_runtime_release(rt) == TL_OK, "runtime release");
}

static void scenario_double_package_release(void) {
  tl_runtime_t* rt = new_runtime(1);
  tl_package_t* pkg = open_pkg(rt);
  CHECK(tl_package_release(pkg) == TL_OK, "first release");
  int st = tl_package_release(pkg);
  report("second", st, tl_runtime_last_error(rt));
  st = tl_package_release(pkg);
  report("third", st, tl_runtime_last_error(NULL));
  CHECK(tl_runtime_release(rt) == TL_OK, "runtime release");
}

static void scenario_double_runtime_release(void) {
  tl_runtime_t* rt = new_runtime(1);
  CHECK(tl_runtime_release(rt) == TL_OK, "first release");
  int st = tl_runtime_release(rt);
  report("second", st, tl_runtime_last_error(rt));
  st = tl_runtime_set_num_threads(rt, 2);
  report("set_num_threads", st, tl_runtime_last_error(rt));
  tl_package_t* pkg = (tl_package_t*)&pkg;
  st = tl_package_open(rt, g_pkg, &pkg);
  CHECK(pkg == NULL, "tl_package_open left *out_package set");
  report("open", st, tl_runtime_last_error(NULL));
  REPORT("num_threads", tl_runtime_num_threads(rt), rt);
  st = tl_runtime_retain(rt);
  report("retain", st, tl_runtime_last_error(rt));
}

/* the runtime released before its package: the package keeps it alive, launches work */
static void scenario_runtime_first(void) {
  tl_runtime_t* rt = new_runtime(3);
  tl_package_t* pkg = open_pkg(rt);
  tl_kernel_t* k = kernel(pkg, "axpy");
  CHECK(tl_runtime_release(rt) == TL_OK, "runtime release");
  int st = axpy(k, 50000, NULL);
  report("launch", st, tl_runtime_last_error(NULL));
  st = tl_kernel_launch(k, NULL, 0, NULL);      /* a failing launch: the message is on the (living) runtime */
  report("bad_launch", st, tl_runtime_last_error(rt));
  st = tl_runtime_set_num_threads(rt, 2);
  report("set_num_threads", st, tl_runtime_last_error(rt));
  tl_package_t* other = NULL;
  st = tl_package_open(rt, g_pkg, &other);
  report("open", st, tl_runtime_last_error(rt));
  CHECK(tl_package_release(pkg) == TL_OK, "package release");
  st = axpy(k, 100, NULL);
  report("launch_after", st, tl_runtime_last_error(rt));
  st = tl_runtime_release(rt);
  report("runtime_again", st, tl_runtime_last_error(rt));
}

static void scenario_retain(void) {
  tl_runtime_t* rt = new_runtime(2);
  tl_package_t* pkg = open_pkg(rt);
  tl_kernel_t* k = kernel(pkg, "axpy");
  REPORT("package_retain", tl_package_retain(pkg), rt);
  CHECK(tl_package_release(pkg) == TL_OK, "release 1");
  REPORT("launch_one_left", axpy(k, 3000, NULL), rt);
  CHECK(tl_package_release(pkg) == TL_OK, "release 2");
  REPORT("launch_none_left", axpy(k, 3000, NULL), rt);
  REPORT("runtime_retain", tl_runtime_retain(rt), rt);
  CHECK(tl_runtime_release(rt) == TL_OK, "runtime release 1");
  REPORT("set_threads_one_left", tl_runtime_set_num_threads(rt, 2), rt);
  REPORT("num_threads", tl_runtime_num_threads(rt), rt);
  CHECK(tl_runtime_release(rt) == TL_OK, "runtime release 2");
  REPORT("set_threads_none_left", tl_runtime_set_num_threads(rt, 2), rt);
}

/* NULL and wrong-kind handles set the handle-less error; tl_runtime_last_error(rt) shows the newest */
static void scenario_null_handles(void) {
  tl_runtime_t* rt = new_runtime(1);
  tl_package_t* pkg = open_pkg(rt);
  tl_kernel_t* k = NULL;
  int st = tl_package_kernel(pkg, "nope", &k);
  report("missing", st, tl_runtime_last_error(rt));
  st = tl_kernel_launch(NULL, NULL, 0, NULL);
  report("launch_null", st, tl_runtime_last_error(rt));
  tl_package_t* none = (tl_package_t*)&none;
  st = tl_package_open(NULL, g_pkg, &none);
  CHECK(none == NULL, "tl_package_open(NULL) left *out_package set");
  report("open_null_runtime", st, tl_runtime_last_error(rt));
  st = tl_package_kernel(NULL, "axpy", &k);
  report("kernel_null_package", st, tl_runtime_last_error(rt));
  st = tl_package_kernel(pkg, "axpy", NULL);
  report("kernel_null_out", st, tl_runtime_last_error(rt));
  st = tl_runtime_set_num_threads(NULL, 2);
  report("threads_null", st, tl_runtime_last_error(rt));
  st = tl_runtime_retain(NULL);
  report("retain_null", st, tl_runtime_last_error(rt));
  REPORT("release_null", tl_package_release(NULL), rt);
  REPORT("kernel_count_null", (int)tl_package_kernel_count(NULL), rt);
  st = tl_kernel_launch((tl_kernel_t*)pkg, NULL, 0, NULL);
  report("launch_package_as_kernel", st, tl_runtime_last_error(rt));
  st = tl_package_release((tl_package_t*)rt);
  report("release_runtime_as_package", st, tl_runtime_last_error(rt));
  report("last_error_of_package", 0, tl_runtime_last_error((tl_runtime_t*)pkg));
  k = kernel(pkg, "axpy");
  st = axpy(k, 10, NULL);
  report("success_clears", st, tl_runtime_last_error(rt));
  report("handle_less_kept", 0, tl_runtime_last_error(NULL));
  st = tl_kernel_launch(k, NULL, 0, NULL);
  report("runtime_error", st, tl_runtime_last_error(rt));
  st = tl_kernel_launch(NULL, NULL, 0, NULL);
  report("newer_handle_less", st, tl_runtime_last_error(rt));
  CHECK(tl_package_release(pkg) == TL_OK, "release");
  CHECK(tl_runtime_release(rt) == TL_OK, "runtime release");
}

/* a grid of 0 programs runs nothing and is TL_OK */
static void scenario_zero_grid(void) {
  tl_runtime_t* rt = new_runtime(2);
  tl_package_t* pkg = open_pkg(rt);
  tl_launch_options_t o;
  tl_launch_options_initialize(&o);
  o.has_grid = 1;
  o.grid[0] = 0;
  o.grid[1] = 1;
  o.grid[2] = 1;
  REPORT("zero_grid", axpy(kernel(pkg, "axpy"), 100, &o), rt);
  CHECK(tl_package_release(pkg) == TL_OK, "release");
  CHECK(tl_runtime_release(rt) == TL_OK, "runtime release");
}

/* A released package is still recognised after 1000 more packages died (fewer than
 * TL_QUARANTINE_PACKAGES), and dead shells are reused once more than that many wait: the
 * number of distinct package addresses over 2100 open/release cycles stays near the quarantine. */
static int seen_before(tl_package_t** seen, int n, tl_package_t* p) {
  for (int i = 0; i < n; ++i)
    if (seen[i] == p) return 1;
  return 0;
}

static void scenario_quarantine(void) {
  enum { FIRST = 1000, MORE = 1100 };
  static tl_package_t* seen[FIRST + MORE + 1];
  int distinct = 0;
  tl_runtime_t* rt = new_runtime(1);
  tl_package_t* a = open_pkg(rt);
  tl_kernel_t* ka = kernel(a, "axpy");
  seen[distinct++] = a;
  CHECK(tl_package_release(a) == TL_OK, "release");
  for (int i = 0; i < FIRST + MORE; ++i) {
    if (i == FIRST) {
      REPORT("double_release_after_1000", tl_package_release(a), rt);
      REPORT("launch_after_1000", axpy(ka, 10, NULL), rt);
    }
    tl_package_t* p = open_pkg(rt);
    if (!seen_before(seen, distinct, p)) seen[distinct++] = p;
    CHECK(tl_package_release(p) == TL_OK, "release %d", i);
  }
  report("distinct_packages", distinct, "");
  CHECK(tl_runtime_release(rt) == TL_OK, "runtime release");
}

static void scenario_open(const char* path) {
  tl_runtime_t* rt = new_runtime(1);
  tl_package_t* pkg = (tl_package_t*)&pkg;
  int st = tl_package_open(rt, path, &pkg);
  CHECK(pkg == NULL, "tl_package_open left *out_package set");
  report("open", st, tl_runtime_last_error(rt));
  CHECK(tl_runtime_release(rt) == TL_OK, "runtime release");
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: misuse FIXTURE.tlpkg SCENARIO [FILE]\n");
    return 2;
  }
  g_pkg = argv[1];
  const char* s = argv[2];
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (strcmp(s, "race") == 0) scenario_race();
  else if (strcmp(s, "after_release") == 0) scenario_after_release();
  else if (strcmp(s, "double_package_release") == 0) scenario_double_package_release();
  else if (strcmp(s, "double_runtime_release") == 0) scenario_double_runtime_release();
  else if (strcmp(s, "runtime_first") == 0) scenario_runtime_first();
  else if (strcmp(s, "retain") == 0) scenario_retain();
  else if (strcmp(s, "null_handles") == 0) scenario_null_handles();
  else if (strcmp(s, "zero_grid") == 0) scenario_zero_grid();
  else if (strcmp(s, "quarantine") == 0) scenario_quarantine();
  else if (strcmp(s, "open") == 0 && argc > 3) scenario_open(argv[3]);
  else {
    fprintf(stderr, "unknown scenario %s\n", s);
    return 2;
  }
  printf("%s\n", g_failures ? "FAILED" : "all passed");
  return g_failures ? 1 : 0;
}
