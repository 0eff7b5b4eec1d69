/* faces_util.h: helpers of faces.c that know nothing of MPI, the grid or the
 * streams' kinds: the clock, factoring the ranks, size lists, medians, the
 * overlap work, and the host stream's executor thread seen from outside.
 * Header-only (static functions); include once, from faces.c. */
#ifndef FACES_UTIL_H
#define FACES_UTIL_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Splits n into three factors as even as possible (smallest largest factor,
 * then smallest middle one), largest first. */
static void factor3(int n, int dims[3]) {
  int best[3] = {n, 1, 1};
  for (int a = 1; a <= n; ++a) {
    if (n % a) continue;
    for (int b = 1; b <= a && a * b <= n; ++b) {
      if ((n / a) % b) continue;
      int c = n / a / b;
      if (c > b) continue;
      if (a < best[0] || (a == best[0] && b < best[1])) best[0] = a, best[1] = b, best[2] = c;
    }
  }
  memcpy(dims, best, sizeof best);
}

static int parse_list(const char *s, long *out, int max) {
  int n = 0;
  while (*s && n < max) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s) return -1;
    if (*end == 'K' || *end == 'k') v *= 1024, ++end;
    else if (*end == 'M' || *end == 'm') v *= 1048576, ++end;
    if (v < 1) return -1;
    out[n++] = v;
    if (*end == ',') ++end;
    else if (*end) return -1;
    s = end;
  }
  return n;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Overlap work: a dependent floating-point chain, the same in every variant;
 * calibrate_iters gives the length of a chain of `us` microseconds. */
static void compute_chain(double *acc, long iters) {
  double x = *acc;
  for (long i = 0; i < iters; ++i) {
    x = x * 0.999999 + 1e-6;
    __asm__ volatile("" : "+x"(x)); /* a real chain: no folding, no vectorizing */
  }
  *acc = x;
}
static long calibrate_iters(double us) {
  if (us <= 0) return 0;
  double acc = 1.0, best = 1e9;
  for (int i = 0; i < 5; ++i) {
    double t0 = now();
    compute_chain(&acc, 1000000);
    if (now() - t0 < best) best = now() - t0;
  }
  return (long)(us * 1e-6 / best * 1e6);
}

/* ---- the host stream's executor thread, seen from outside ---------------- */

struct executor_id {
  pid_t tid;
  pthread_t thread;
};

static void whoami_kernel(void *arg) {
  struct executor_id *e = arg;
  e->thread = pthread_self();
  __atomic_store_n(&e->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
}

static double thread_cpu(pthread_t t) {
  clockid_t cid;
  struct timespec ts;
  if (pthread_getcpuclockid(t, &cid) != 0 || clock_gettime(cid, &ts) != 0) return 0;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Context switches of a thread of this process: voluntary ones are sleeps
 * (each ended by a wake-up), involuntary ones preemptions and yields. */
static void thread_switches(pid_t tid, long *vol, long *invol) {
  char path[64], line[128];
  *vol = *invol = 0;
  snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)tid);
  FILE *f = fopen(path, "r");
  if (!f) return;
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "voluntary_ctxt_switches:", 24)) *vol = atol(line + 24);
    else if (!strncmp(line, "nonvoluntary_ctxt_switches:", 27)) *invol = atol(line + 27);
  }
  fclose(f);
}

#endif
