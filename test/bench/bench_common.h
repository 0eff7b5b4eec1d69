/* Helpers shared by the benchmarks in test/bench: options, buffers, data
 * patterns, and the calibrate-then-repeat measurement loop.
 *
 * Measurement scheme (measure()):
 *   1. warm-up: run the kernel with 1, 2, 4, ... iterations until a call of
 *      at least 8 iterations takes a quarter of the trial time, or any call
 *      a whole trial time (this also warms caches, pages and connections);
 *   2. rank 0 turns the fastest per-iteration time seen in the warm-up into
 *      an iteration count for a trial of about `trial_ms` and broadcasts it;
 *   3. `trials` trials of that many iterations, each after a barrier; the
 *      result is the median of the per-iteration times of the trials
 *      (minimum and maximum are reported too).
 * Times are taken on rank 0 only.
 */
#ifndef STMPI_BENCH_COMMON_H
#define STMPI_BENCH_COMMON_H

#include <mpi.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GCC 12 misreads MPI_STATUSES_IGNORE (a null pointer) as a zero-length array. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#define BENCH_MAX_TRIALS 101

struct bench_opts {
  int trials;        /* trials per measurement; the median is reported */
  double trial_ms;   /* target duration of one trial */
  long min_iters;    /* iterations per trial at least ... */
  long max_iters;    /* ... and at most */
  double duration_s; /* > 0: run for this long instead and report the mean (-T) */
};

static void bench_fail(const char *fmt, ...) {
  int rank = -1;
  va_list ap;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "error (rank %d): ", rank);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

static void bench_check(int err, const char *what) {
  if (err != MPI_SUCCESS) bench_fail("%s returned error %d", what, err);
}

static void bench_default_opts(struct bench_opts *o) {
  o->trials = 7;
  o->trial_ms = 20.0;
  o->min_iters = 5;
  o->max_iters = 1000000;
  o->duration_s = 0;
}

/* Handles -t TRIALS, -m TRIAL_MS, -T SECONDS and -q (quick: 3 trials of 5 ms).
 * Returns 1 if argv[*i] was one of them (advancing *i past its value). */
static int bench_common_arg(struct bench_opts *o, int argc, char **argv, int *i) {
  const char *a = argv[*i];
  if (strcmp(a, "-q") == 0) {
    o->trials = 3;
    o->trial_ms = 5.0;
    return 1;
  }
  if (strcmp(a, "-T") == 0 && *i + 1 < argc) {
    o->duration_s = atof(argv[++*i]);
    if (o->duration_s <= 0) bench_fail("-T wants a positive number of seconds");
    return 1;
  }
  if ((strcmp(a, "-t") == 0 || strcmp(a, "-m") == 0) && *i + 1 < argc) {
    const char *v = argv[++*i];
    if (a[1] == 't') {
      o->trials = atoi(v);
      if (o->trials < 1 || o->trials > BENCH_MAX_TRIALS)
        bench_fail("-t wants 1..%d", BENCH_MAX_TRIALS);
    } else {
      o->trial_ms = atof(v);
      if (o->trial_ms <= 0) bench_fail("-m wants a positive number of milliseconds");
    }
    return 1;
  }
  return 0;
}

/* Parses "a,b,c" (values may end in K or M for 1024 and 1048576). */
static int bench_parse_list(const char *s, long *out, int max) {
  int n = 0;
  while (*s && n < max) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s) bench_fail("bad number list '%s'", s);
    if (*end == 'K' || *end == 'k') v *= 1024, ++end;
    else if (*end == 'M' || *end == 'm') v *= 1048576, ++end;
    out[n++] = v;
    s = *end == ',' ? end + 1 : end;
    if (*end != ',' && *end != '\0') bench_fail("bad number list near '%s'", end);
  }
  return n;
}

static void *bench_alloc(size_t bytes) {
  void *p = NULL;
  if (bytes == 0) bytes = 1;
  if (posix_memalign(&p, 4096, bytes) != 0) bench_fail("cannot allocate %zu bytes", bytes);
  memset(p, 0, bytes); /* touch every page before timing */
  return p;
}

static unsigned char bench_pattern_byte(size_t i, unsigned seed) {
  return (unsigned char)(i * 131u + (i >> 9) * 7u + seed * 29u + 1u);
}

static void bench_fill(void *buf, size_t bytes, unsigned seed) {
  unsigned char *b = (unsigned char *)buf;
  for (size_t i = 0; i < bytes; ++i) b[i] = bench_pattern_byte(i, seed);
}

/* Index of the first wrong byte, or -1. */
static long bench_verify(const void *buf, size_t bytes, unsigned seed) {
  const unsigned char *b = (const unsigned char *)buf;
  for (size_t i = 0; i < bytes; ++i)
    if (b[i] != bench_pattern_byte(i, seed)) return (long)i;
  return -1;
}

static int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Sorts v in place; returns the median (mean of the middle two when even). */
static double bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A kernel runs `iters` iterations of the operation on every rank and
 * returns the elapsed seconds (meaningful on rank 0). */
typedef double (*bench_kernel)(void *ctx, long iters);

struct bench_result {
  double median, min, max; /* seconds per iteration, over trials */
  long iters;              /* iterations per trial */
};

/* Duration mode (-T): runs the kernel in chunks for about `duration_s`
 * seconds and reports the mean time per iteration (median = min = max).
 * Under CPU contention per-trial medians are bimodal (a trial either fits
 * into a stretch where every rank has a CPU or it does not); the mean over a
 * fixed stretch of wall time is what a program's loop sees. Rank 0 sizes each
 * chunk to about 1/50 of the duration from the previous chunk and broadcasts
 * whether to go on; those broadcasts are counted in the mean. */
static struct bench_result measure_duration(bench_kernel kernel, void *ctx,
                                            const struct bench_opts *o) {
  struct bench_result r;
  int rank;
  long plan[2] = {1, 1}; /* chunk iterations, go on */
  long total = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  (void)kernel(ctx, 1); /* warm-up: connections, pages */
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  while (plan[1]) {
    const double t = kernel(ctx, plan[0]);
    total += plan[0];
    if (rank == 0) {
      const double per = t > 0 ? t / (double)plan[0] : 1e-7;
      double want = o->duration_s / 50 / per;
      if (want > (double)(2 * plan[0])) want = (double)(2 * plan[0]);
      plan[0] = want < 1 ? 1 : (long)want;
      plan[1] = MPI_Wtime() - t0 < o->duration_s;
    }
    MPI_Bcast(plan, 2, MPI_LONG, 0, MPI_COMM_WORLD);
  }
  r.median = r.min = r.max = (MPI_Wtime() - t0) / (double)total;
  r.iters = total;
  return r;
}

static struct bench_result measure(bench_kernel kernel, void *ctx, const struct bench_opts *o) {
  struct bench_result r;
  if (o->duration_s > 0) return measure_duration(kernel, ctx, o);
  double per_trial[BENCH_MAX_TRIALS];
  int rank;
  long n = 1, iters = 0;
  double best_per = -1;
  const double calib = o->trial_ms * 1e-3 / 4;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (;;) {
    int done = 0;
    double t = kernel(ctx, n);
    if (rank == 0) {
      if (best_per < 0 || t / (double)n < best_per) best_per = t / (double)n;
      if ((t >= calib && n >= 8) || t >= 4 * calib || n >= o->max_iters) {
        double per = best_per; /* a noisy last round must not shrink the trials */
        double want = per > 0 ? o->trial_ms * 1e-3 / per : (double)o->max_iters;
        iters = want > (double)o->max_iters ? o->max_iters : (long)want;
        if (iters < o->min_iters) iters = o->min_iters;
        done = 1;
      }
    }
    MPI_Bcast(&done, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (done) break;
    n *= 2;
  }
  MPI_Bcast(&iters, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  for (int t = 0; t < o->trials; ++t) {
    MPI_Barrier(MPI_COMM_WORLD);
    per_trial[t] = kernel(ctx, iters) / (double)iters;
  }
  r.median = bench_median(per_trial, o->trials);
  r.min = per_trial[0];
  r.max = per_trial[o->trials - 1];
  r.iters = iters;
  return r;
}

static void bench_print_header(const char *name, const struct bench_opts *o) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
  int len = 0;
  MPI_Get_library_version(version, &len);
  version[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING] = '\0';
  char *nl = strchr(version, '\n');
  if (nl) *nl = '\0';
  printf("# %s: library \"%s\"\n", name, version);
  if (o->duration_s > 0)
    printf("# %s: %.1f s of wall time per measurement, mean reported\n", name, o->duration_s);
  else printf("# %s: %d trials of ~%.1f ms each, median reported\n", name, o->trials, o->trial_ms);
}

#endif
