/* cpu.c - CPU feature detection and the host architecture name. */
#include <string.h>
#include "internal.h"
#if defined(__riscv)
#include <setjmp.h>
#include <signal.h>
#include <sys/auxv.h>
#endif

static void append(char* out, size_t cap, const char* name) {
  size_t len = strlen(out);
  size_t n = strlen(name);
  if (len + n + 2 > cap) return;
  if (len > 0) out[len++] = ',';
  memcpy(out + len, name, n + 1);
}

#if defined(__riscv)
/* RVV 1.0: the HWCAP bit 'V' where the kernel reports it; otherwise (qemu-user 7.2 does not) a
 * probe: one `vsetvli t0, zero, e32, m1, ta, ma` under a temporary SIGILL handler. The probe
 * swaps the process's SIGILL handler for a moment, once per tl_runtime_create. */
static sigjmp_buf probe_env;
static void probe_sigill(int sig) {
  (void)sig;
  siglongjmp(probe_env, 1);
}
static int riscv_has_vector(void) {
  if (getauxval(AT_HWCAP) & (1ul << ('V' - 'A'))) return 1;
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = probe_sigill;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGILL, &sa, &old) != 0) return 0;
  volatile int ok = 0;
  if (sigsetjmp(probe_env, 1) == 0) {
    __asm__ volatile(".word 0x0d0072d7" ::: "t0", "memory"); /* vsetvli t0, zero, e32, m1, ta, ma */
    ok = 1;
  }
  sigaction(SIGILL, &old, NULL);
  return ok;
}
#endif

void tl__detect_cpu_features(char* out, size_t cap) {
  out[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
#define TL_FEATURE(s) \
  if (__builtin_cpu_supports(s)) append(out, cap, s)
  TL_FEATURE("sse2");
  TL_FEATURE("sse3");
  TL_FEATURE("ssse3");
  TL_FEATURE("sse4.1");
  TL_FEATURE("sse4.2");
  TL_FEATURE("popcnt");
  TL_FEATURE("avx");
  TL_FEATURE("avx2");
  TL_FEATURE("fma");
  TL_FEATURE("f16c");
  TL_FEATURE("bmi");
  TL_FEATURE("bmi2");
  TL_FEATURE("avx512f");
  TL_FEATURE("avx512bw");
  TL_FEATURE("avx512dq");
  TL_FEATURE("avx512vl");
  TL_FEATURE("avx512cd");
  TL_FEATURE("avx512vbmi");
  TL_FEATURE("avx512ifma");
  TL_FEATURE("avx512vnni");
  TL_FEATURE("avx512bf16");
  TL_FEATURE("avx512fp16");
  TL_FEATURE("avxvnni");
#undef TL_FEATURE
#elif defined(__aarch64__)
  append(out, cap, "neon");
#elif defined(__riscv)
  append(out, cap, "rv64gc");
  if (riscv_has_vector()) append(out, cap, "v");
#endif
}

const char* tl__host_arch(void) {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#elif defined(__riscv) && __riscv_xlen == 64
  return "riscv64";
#else
  return "unknown";
#endif
}

/* Is `name` (length n) an element of the comma-separated list `have`? */
static int has_n(const char* have, const char* name, size_t n) {
  const char* p = have;
  while (*p) {
    const char* e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && strncmp(p, name, n) == 0) return 1;
    if (!e) break;
    p = e + 1;
  }
  return 0;
}

int tl__has_feature(const char* have, const char* name) { return has_n(have, name, strlen(name)); }

int tl__features_subset(const char* need, const char* have, char* missing, size_t cap) {
  const char* p = need ? need : "";
  while (*p) {
    while (*p == ',' || *p == ' ') ++p;
    if (!*p) break;
    size_t len = strcspn(p, ", ");
    if (!has_n(have, p, len)) {
      if (missing && cap > 0) {
        size_t m = len < cap - 1 ? len : cap - 1;
        memcpy(missing, p, m);
        missing[m] = '\0';
      }
      return 0;
    }
    p += len;
  }
  return 1;
}
