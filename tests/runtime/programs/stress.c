/* stress.c - a C driver for libtl_runtime's lifetime, allocation, concurrency and fork behaviour,
 * run against the fixture package (tests/runtime/fixture_bundle.c). Built and run by
 * tests/runtime/test_stress.py, under ASan+UBSan+LeakSanitizer by `make test-sanitize` and under
 * valgrind when it is installed. Usage: stress FIXTURE.tlpkg [loops|alloc|threads|fork|release|all]
 * (release: tl_package_release during a launch). Prints one line per check and exits 0 when all passed. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <tl/runtime.h>
#include "driver.h"

static const char* g_pkg;

/* axpy on n elements (y = 2x + 1) and rowsum (workspace, one program per row); returns 0 when both
 * launched and gave the right values, else the failing status (or -1 for wrong values). */
static int run_kernels(tl_package_t* pkg, int64_t n) {
  tl_kernel_t *axpy = NULL, *rowsum = NULL;
  int st = tl_package_kernel(pkg, "axpy", &axpy);
  if (st == TL_OK) st = tl_package_kernel(pkg, "rowsum", &rowsum);
  if (st != TL_OK) return st;
  float* x = malloc(sizeof(float) * (size_t)n);
  float* y = malloc(sizeof(float) * (size_t)n);
  float* out = malloc(sizeof(float) * 64);
  if (!x || !y || !out) abort();
  for (int64_t i = 0; i < n; ++i) { x[i] = (float)(i % 7); y[i] = 1.0f; }
  int64_t shape[1] = {n};
  DLTensor tx = vec(x, shape, 1, kDLFloat, 32), ty = vec(y, shape, 1, kDLFloat, 32);
  tl_value_t args[3] = {{&tx, 0, 0.0}, {&ty, 0, 0.0}, {NULL, 0, 2.0}};
  st = tl_kernel_launch(axpy, args, 3, NULL);
  for (int64_t i = 0; st == TL_OK && i < n; ++i)
    if (y[i] != 2.0f * (float)(i % 7) + 1.0f) st = -1;
  int64_t rows = 64 < n / 8 ? 64 : n / 8, cols = 8, s2[2] = {rows, cols}, s1[1] = {rows};
  DLTensor tm = vec(x, s2, 2, kDLFloat, 32), to = vec(out, s1, 1, kDLFloat, 32);
  tl_value_t rargs[2] = {{&tm, 0, 0.0}, {&to, 0, 0.0}};
  if (st == TL_OK) st = tl_kernel_launch(rowsum, rargs, 2, NULL);
  for (int64_t r = 0; st == TL_OK && r < rows; ++r) {
    float want = 0;
    for (int64_t c = 0; c < cols; ++c) want += x[r * cols + c];
    if (out[r] != want) st = -1;
  }
  free(x); free(y); free(out);
  return st;
}

/* 1. open/launch/close loops (LeakSanitizer/valgrind watch for leaks) */
static void test_loops(void) {
  for (int i = 0; i < 30; ++i) {
    tl_runtime_options_t o;
    tl_runtime_options_initialize(&o);
    o.num_threads = 1 + i % 4;
    tl_runtime_t* rt = NULL;
    tl_package_t* pkg = NULL;
    CHECK(tl_runtime_create(&o, &rt) == TL_OK, "create");
    CHECK(tl_package_open(rt, g_pkg, &pkg) == TL_OK, "open: %s", tl_runtime_last_error(rt));
    CHECK(run_kernels(pkg, 1000 + 37 * i) == 0, "run: %s", tl_runtime_last_error(rt));
    tl_package_release(pkg);
    tl_runtime_release(rt);
  }
  printf("loops: 30 create/open/launch/close cycles\n");
}

/* 2. an allocator that fails after N allocations: clean status + message, nothing left allocated */
typedef struct {
  atomic_long budget;    /* allocations left before failing; <0: unlimited */
  atomic_long live;
  atomic_long total;
} counting_t;

static void* c_alloc(void* ctx, size_t size, size_t align) {
  counting_t* c = ctx;
  if (atomic_fetch_sub(&c->budget, 1) <= 0) return NULL;
  void* p = NULL;
  if (posix_memalign(&p, align < sizeof(void*) ? sizeof(void*) : align, size) != 0) return NULL;
  atomic_fetch_add(&c->live, 1);
  atomic_fetch_add(&c->total, 1);
  return p;
}
static void c_free(void* ctx, void* p) {
  counting_t* c = ctx;
  if (p == NULL) return;
  atomic_fetch_sub(&c->live, 1);
  free(p);
}

static void test_alloc(void) {
  long n;
  int clean_errors = 0;
  for (n = 0; n < 10000; ++n) {
    counting_t c;
    atomic_init(&c.budget, n);
    atomic_init(&c.live, 0);
    atomic_init(&c.total, 0);
    tl_runtime_options_t o;
    tl_runtime_options_initialize(&o);
    o.num_threads = 3;
    o.alloc_fn = c_alloc;
    o.free_fn = c_free;
    o.alloc_context = &c;
    tl_runtime_t* rt = NULL;
    tl_package_t* pkg = NULL;
    int st = tl_runtime_create(&o, &rt);
    int done = 0;
    if (st != TL_OK) {
      CHECK(st == TL_ERROR_OUT_OF_MEMORY && rt == NULL, "N=%ld create gave %d", n, st);
      CHECK(strstr(tl_runtime_last_error(NULL), "out of memory") != NULL, "N=%ld: '%s'", n,
            tl_runtime_last_error(NULL));
      clean_errors++;
    } else {
      st = tl_package_open(rt, g_pkg, &pkg);
      if (st != TL_OK) {
        CHECK(st == TL_ERROR_OUT_OF_MEMORY && pkg == NULL, "N=%ld open gave %d: %s", n, st, tl_runtime_last_error(rt));
        CHECK(strstr(tl_runtime_last_error(rt), "out of memory") != NULL, "N=%ld: '%s'", n, tl_runtime_last_error(rt));
        clean_errors++;
      } else {
        st = run_kernels(pkg, 4096);
        /* a pool that cannot start runs serially: still correct; a workspace that cannot be had is an error */
        if (st == TL_OK) done = 1;
        else {
          CHECK(st == TL_ERROR_OUT_OF_MEMORY, "N=%ld launch gave %d: %s", n, st, tl_runtime_last_error(rt));
          clean_errors++;
        }
      }
    }
    tl_package_release(pkg);
    tl_runtime_release(rt);
    CHECK(atomic_load(&c.live) == 0, "N=%ld: %ld allocations leaked", n, atomic_load(&c.live));
    if (done && atomic_load(&c.budget) >= 0) break;  /* succeeded without hitting the limit */
  }
  CHECK(n < 10000, "never succeeded");
  printf("alloc: failing allocator N=0..%ld: %d clean errors, then success, no leak\n", n, clean_errors);
}

/* 3. launches from many threads while packages open/close and the thread count changes */
typedef struct { tl_package_t* pkg; int iters; int errors; } launcher_t;
static tl_runtime_t* g_rt;
static atomic_int g_stop;

static void* launcher(void* arg) {
  launcher_t* l = arg;
  for (int i = 0; i < l->iters; ++i)
    if (run_kernels(l->pkg, 257 + 61 * i) != 0) l->errors++;
  return NULL;
}
static void* opener(void* arg) {
  int* errors = arg;
  while (!atomic_load(&g_stop)) {
    tl_package_t* p = NULL;
    if (tl_package_open(g_rt, g_pkg, &p) != TL_OK || run_kernels(p, 3000) != 0) (*errors)++;
    tl_package_release(p);
  }
  return NULL;
}
static void* resizer(void* arg) {
  int* errors = arg;
  for (int i = 0; !atomic_load(&g_stop); ++i) {
    if (tl_runtime_set_num_threads(g_rt, 1 + i % 4) != TL_OK) (*errors)++;
    usleep(200);
  }
  return NULL;
}

static void test_threads(void) {
  tl_package_t* pkg = NULL;
  CHECK(tl_runtime_create(NULL, &g_rt) == TL_OK, "create");
  CHECK(tl_package_open(g_rt, g_pkg, &pkg) == TL_OK, "open");
  enum { NL = 8 };
  pthread_t th[NL + 2];
  launcher_t ls[NL];
  int open_errors = 0, resize_errors = 0;
  atomic_store(&g_stop, 0);
  pthread_create(&th[NL], NULL, opener, &open_errors);
  pthread_create(&th[NL + 1], NULL, resizer, &resize_errors);
  for (int i = 0; i < NL; ++i) {
    ls[i].pkg = pkg;
    ls[i].iters = 60;
    ls[i].errors = 0;
    pthread_create(&th[i], NULL, launcher, &ls[i]);
  }
  int errors = 0;
  for (int i = 0; i < NL; ++i) {
    pthread_join(th[i], NULL);
    errors += ls[i].errors;
  }
  atomic_store(&g_stop, 1);
  pthread_join(th[NL], NULL);
  pthread_join(th[NL + 1], NULL);
  CHECK(errors == 0 && open_errors == 0 && resize_errors == 0, "errors: launch %d open %d resize %d", errors,
        open_errors, resize_errors);
  tl_package_release(pkg);
  tl_runtime_release(g_rt);
  printf("threads: %d launcher threads x 60 launches, concurrent open/close and set_num_threads\n", NL);
}

/* 4. fork after the pool has started (and while another thread is mid-launch): the child launches */
static void* busy(void* arg) {
  launcher_t* l = arg;
  for (int i = 0; i < l->iters; ++i) run_kernels(l->pkg, 20000);
  return NULL;
}

static void test_fork(void) {
  tl_runtime_options_t o;
  tl_runtime_options_initialize(&o);
  o.num_threads = 4;
  tl_runtime_t* rt = NULL;
  tl_package_t* pkg = NULL;
  CHECK(tl_runtime_create(&o, &rt) == TL_OK, "create");
  CHECK(tl_package_open(rt, g_pkg, &pkg) == TL_OK, "open");
  CHECK(run_kernels(pkg, 5000) == 0, "parent launch");      /* starts the pool */
  launcher_t l = {pkg, 200, 0};
  pthread_t t;
  pthread_create(&t, NULL, busy, &l);
  int children_ok = 0;
  for (int k = 0; k < 5; ++k) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      int ok = run_kernels(pkg, 5000) == 0 && tl_runtime_set_num_threads(rt, 2) == TL_OK && run_kernels(pkg, 7000) == 0;
      _exit(ok ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) children_ok++;
    else CHECK(0, "child %d: status %d", k, status);
  }
  pthread_join(t, NULL);
  CHECK(run_kernels(pkg, 5000) == 0, "parent launch after fork");
  tl_package_release(pkg);
  tl_runtime_release(rt);
  printf("fork: %d/5 children launched on a fresh pool\n", children_ok);
}

/* 5. tl_package_release while a launch of the package runs on another thread: release drops the
 * caller's reference and returns at once (the host parallel_for below holds the launch open), a
 * launch that starts afterwards is refused cleanly, the running one completes with the right values,
 * and the bundle is unloaded when it returns (the launch held the last reference). */
static atomic_int g_rel_stage;   /* 1: hook entered; 2: main is about to release; 3: hook returned */
static tl_package_t* g_rel_pkg;
static int g_rel_nested = -1;

static void rel_parallel_for(void* user, int64_t n, tl_parallel_task_fn_t fn, void* ctx) {
  (void)user;
  atomic_store(&g_rel_stage, 1);
  while (atomic_load(&g_rel_stage) < 2) usleep(100);
  usleep(30000); /* main has released the package by now */
  g_rel_nested = run_kernels(g_rel_pkg, 4096);
  for (int64_t i = 0; i < n; ++i) fn(ctx, i);
  usleep(20000);
  atomic_store(&g_rel_stage, 3);
}

static void* rel_launcher(void* arg) {  /* exactly one launch: the package is gone once it returns */
  int* st = arg;
  tl_kernel_t* axpy = NULL;
  *st = tl_package_kernel(g_rel_pkg, "axpy", &axpy);
  if (*st != TL_OK) return NULL;
  enum { N = 100000 };
  static float x[N], y[N];
  for (int i = 0; i < N; ++i) { x[i] = (float)(i % 7); y[i] = 1.0f; }
  int64_t shape[1] = {N};
  DLTensor tx = vec(x, shape, 1, kDLFloat, 32), ty = vec(y, shape, 1, kDLFloat, 32);
  tl_value_t args[3] = {{&tx, 0, 0.0}, {&ty, 0, 0.0}, {NULL, 0, 2.0}};
  *st = tl_kernel_launch(axpy, args, 3, NULL);
  for (int i = 0; *st == TL_OK && i < N; ++i)
    if (y[i] != 2.0f * (float)(i % 7) + 1.0f) *st = -1;
  return NULL;
}

/* 1 when the process maps a bundle loaded from a package (memfd "tl-bundle:...") */
static int bundle_mapped(void) {
  FILE* f = fopen("/proc/self/maps", "r");
  if (f == NULL) return -1;
  char line[4096];
  int found = 0;
  while (fgets(line, sizeof line, f) != NULL)
    if (strstr(line, "tl-bundle:") != NULL) found = 1;
  fclose(f);
  return found;
}

static void test_release(void) {
  tl_runtime_options_t o;
  tl_runtime_options_initialize(&o);
  o.num_threads = 2;
  o.parallel_for = rel_parallel_for;
  tl_runtime_t* rt = NULL;
  CHECK(tl_runtime_create(&o, &rt) == TL_OK, "create");
  CHECK(tl_package_open(rt, g_pkg, &g_rel_pkg) == TL_OK, "open: %s", tl_runtime_last_error(rt));
  int st = -2;
  pthread_t t;
  pthread_create(&t, NULL, rel_launcher, &st);
  while (atomic_load(&g_rel_stage) < 1) usleep(100);
  atomic_store(&g_rel_stage, 2);
  CHECK(tl_package_release(g_rel_pkg) == TL_OK, "release: %s", tl_runtime_last_error(rt));
  int stage = atomic_load(&g_rel_stage);
  int mapped_during = bundle_mapped();
  pthread_join(t, NULL);
  int mapped_after = bundle_mapped();
  CHECK(stage == 2, "tl_package_release waited for the running launch (stage %d)", stage);
  CHECK(mapped_during == 1, "the bundle was unloaded under a running launch (%d)", mapped_during);
  CHECK(mapped_after == 0, "the bundle is still loaded after the last launch returned (%d)", mapped_after);
  CHECK(st == 0, "the running launch failed: %d", st);
  CHECK(g_rel_nested == TL_ERROR_INVALID_ARGUMENT, "a launch after release began was not refused: %d",
        g_rel_nested);
  tl_runtime_release(rt);
  printf("release: returned at once, the running launch completed and unloaded the bundle, a new one refused\n");
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  g_pkg = argv[1];
  const char* what = argc > 2 ? argv[2] : "all";
  int all = strcmp(what, "all") == 0;
  if (all || strcmp(what, "loops") == 0) test_loops();
  if (all || strcmp(what, "alloc") == 0) test_alloc();
  if (all || strcmp(what, "threads") == 0) test_threads();
  if (all || strcmp(what, "fork") == 0) test_fork();
  if (all || strcmp(what, "release") == 0) test_release();
  printf("%s\n", g_failures ? "FAILED" : "all passed");
  return g_failures ? 1 : 0;
}
