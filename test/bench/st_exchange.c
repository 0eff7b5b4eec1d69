/* st_exchange: a neighbour exchange on a ring, written as a user would write
 * it with stream-triggered RMA on a host stream, against the same program
 * with ordinary PSCW, in the same run, interleaved.
 *
 *   st    per step, all enqueued on one host stream, one synchronize at the
 *         end: launch fill; MPIX_Win_post_stream; MPI_Win_start(group,
 *         MPIX_MODE_STREAM); MPI_Put to the left; MPI_Put to the right;
 *         MPIX_Win_complete_stream; MPIX_Win_wait_stream; launch verify
 *   pscw  per step, on the CPU: fill; MPI_Win_post; MPI_Win_start; the two
 *         puts; MPI_Win_complete; MPI_Win_wait; verify
 *   persist  the st step as a persistent stream epoch recorded once before
 *         the loop (MPIX_Win_epoch_init, the two puts, MPIX_Win_epoch_commit);
 *         per step, enqueued on the host stream: launch fill;
 *         MPIX_Win_epoch_start_stream; launch verify
 *
 * "fill" writes this rank's two edge blocks (-s bytes each) for the step;
 * "verify" checks every received element against what the neighbour must
 * have sent in this step, and adds it to a checksum. Every variant must
 * verify every step and end with the same checksum (ST results identical
 * to PSCW); any mismatch aborts.
 *
 * Overlap (-O): independent work between enqueueing and synchronizing, the
 * same amount in both variants:
 *   none    nothing
 *   kernel  per step a compute kernel of -c microseconds on a second host
 *           stream, launched before the step (seed 001, section 6.7);
 *           both streams are synchronized at the end
 *   cpu     per step -c microseconds of computation on the CPU thread,
 *           after the step is enqueued (st) or done (pscw)
 * The compute is a dependent floating-point chain calibrated on rank 0;
 * its result is checked to be the same in both variants.
 *
 * Output (rank 0): one line per repeat, then
 *   exchange NP OVERLAP BYTES st_us pscw_us ratio_of_medians median_ratio
 *   persist NP OVERLAP BYTES persist_us pscw_us ratio_of_medians median_ratio
 *       (only where mpix.h has persistent epochs, MPIX_WIN_EPOCH_NULL)
 *   stenqueue NP OVERLAP cpu_us wall_us   rank 0's enqueue loop of the st
 *       variant: CPU time of the enqueuing thread and wall time, per step
 *       (the rest of the st time is the synchronize that runs the steps)
 *   stcpu NP OVERLAP st_cpu_us pscw_cpu_us   CPU time of all ranks' processes
 *       (every thread) per step: what the step costs the node
 *   ststream NP OVERLAP queued thread caller inline handoffs wakeups
 * (times per step of the slowest rank, medians over repeats; stream counts
 * per step of rank 0's communication stream in its st runs).
 * -V st, -V pscw or -V persist runs one variant only (for profilers; no
 * ratio then).
 *
 * Built with another MPI (mpi.h without MPIX_MODE_STREAM, e.g. Debian's
 * MPICH: mpicc.mpich st_exchange.c) only pscw runs, and prints
 *   pscwonly NP OVERLAP BYTES pscw_us
 * (-O kernel needs host streams: refused there).
 */
#include <mpi.h>

#include "bench_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REPEATS 101

#ifdef MPIX_MODE_STREAM
#define HAVE_ST 1
#else
/* Another MPI: the pscw variant only; the stream calls are never reached. */
#define HAVE_ST 0
typedef void *MPIX_Host_stream;
static int MPIX_Host_stream_create(MPIX_Host_stream *s) { return *s = NULL, MPI_SUCCESS; }
static int MPIX_Host_stream_free(MPIX_Host_stream *s) { return (void)s, MPI_SUCCESS; }
static int MPIX_Host_stream_launch(MPIX_Host_stream s, void (*f)(void *), void *a) {
  return (void)s, (void)f, (void)a, MPI_ERR_OTHER;
}
static int MPIX_Host_stream_synchronize(MPIX_Host_stream s) { return (void)s, MPI_ERR_OTHER; }
static int MPIX_Host_stream_get_stats(MPIX_Host_stream s, long long *a, long long *b, long long *c,
                                      long long *d, long long *e, long long *f) {
  return (void)s, (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, MPI_ERR_OTHER;
}
static int MPIX_Win_post_stream(MPI_Group g, MPI_Win w, void *s) {
  return (void)g, (void)w, (void)s, MPI_ERR_OTHER;
}
static int MPIX_Win_complete_stream(MPI_Win w, void *s) { return (void)w, (void)s, MPI_ERR_OTHER; }
static int MPIX_Win_wait_stream(MPI_Win w, void *s) { return (void)w, (void)s, MPI_ERR_OTHER; }
#define MPIX_MODE_STREAM 0
#endif

/* The variants, in the order of a repeat's first round. */
enum variant { V_PSCW, V_ST, V_PERSIST, NVARIANTS };
static const char *variant_name[NVARIANTS] = {"pscw", "st", "persist"};
#ifdef MPIX_WIN_EPOCH_NULL
#define HAVE_PERSIST 1
#else
#define HAVE_PERSIST 0
#endif

static int rank, size, left, right;

static void fail(const char *what) {
  fprintf(stderr, "st_exchange: rank %d: %s\n", rank, what);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

#define CHECK(call)                                   \
  do {                                                \
    if ((call) != MPI_SUCCESS) fail(#call " failed"); \
  } while (0)

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double thread_cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the user's kernels --------------------------------------------------- */

struct state {
  long n;        /* doubles per put */
  double *send;  /* [2][n]: to the left, to the right */
  double *ghost; /* window: [0] from the left, [1] from the right */
  long step;     /* the step the next fill / verify is for */
  long verified;
  long errors;
  double checksum;
};

static double value(int from, long step, int side, long k) {
  return (double)from * 1e9 + (double)step * 1e3 + (double)side * 500 + (double)k;
}

static void fill_kernel(void *arg) {
  struct state *s = arg;
  for (long k = 0; k < s->n; ++k) {
    s->send[k] = value(rank, s->step, 0, k);        /* goes left, lands in its [1] */
    s->send[s->n + k] = value(rank, s->step, 1, k); /* goes right, lands in its [0] */
  }
}

static void verify_kernel(void *arg) {
  struct state *s = arg;
  for (long k = 0; k < s->n; ++k) {
    double from_left = s->ghost[k], from_right = s->ghost[s->n + k];
    if (from_left != value(left, s->step, 1, k)) ++s->errors;
    if (from_right != value(right, s->step, 0, k)) ++s->errors;
    s->checksum += from_left - from_right;
  }
  ++s->verified;
  ++s->step;
}

/* ---- independent computation --------------------------------------------- */

struct compute {
  long iters;
  double acc;
};

static void compute(struct compute *c) {
  double x = c->acc;
  for (long i = 0; i < c->iters; ++i) {
    x = x * 0.999999 + 1e-6;
    __asm__ volatile("" : "+x"(x)); /* a real chain: no folding, no vectorizing */
  }
  c->acc = x;
}

static void compute_kernel(void *arg) { compute(arg); }

static long calibrate(double us) {
  if (us <= 0) return 0;
  struct compute c = {1000000, 1.0};
  double best = 1e9;
  for (int i = 0; i < 5; ++i) {
    double t0 = now();
    compute(&c);
    double t = now() - t0;
    if (t < best) best = t;
  }
  return (long)(us * 1e-6 / best * 1e6);
}

/* ---- the two variants ----------------------------------------------------- */

enum overlap { O_NONE, O_KERNEL, O_CPU };

struct run {
  long steps, n;
  enum overlap overlap;
  long iters;
  MPI_Group group;
  MPIX_Host_stream stream, compute_stream;
  double *send[NVARIANTS]; /* each variant's send blocks: the persistent epoch reads its own */
#if HAVE_PERSIST
  MPIX_Win_epoch epoch;
#endif
};

static void put_edges(const double *send, long n, MPI_Win win) {
  int count = (int)n;
  CHECK(MPI_Put(send, count, MPI_DOUBLE, left, (MPI_Aint)n, count, MPI_DOUBLE, win));
  CHECK(MPI_Put(send + n, count, MPI_DOUBLE, right, 0, count, MPI_DOUBLE, win));
}

/* Returns the time of this rank's loop and sets *cpu to the CPU time its
 * process used meanwhile (every thread); `sums` gets the checksums. */
static double run_variant(const struct run *r, int v, MPI_Win win, double *ghost, double sums[2],
                          double *cpu, double *enq, double *enq_cpu) {
  struct state s = {r->n, r->send[v], ghost, 0, 0, 0, 0};
  for (long k = 0; k < 2 * r->n; ++k) ghost[k] = -1, s.send[k] = -1;
  struct compute c = {r->iters, 1.0};
  CHECK(MPI_Barrier(MPI_COMM_WORLD));
  double c0 = cpu_now();
  double t0 = now(), tc0 = thread_cpu_now();
  *enq_cpu = 0;
  if (v == V_PERSIST) {
#if HAVE_PERSIST
    for (long i = 0; i < r->steps; ++i) {
      if (r->overlap == O_KERNEL)
        CHECK(MPIX_Host_stream_launch(r->compute_stream, compute_kernel, &c));
      CHECK(MPIX_Host_stream_launch(r->stream, fill_kernel, &s));
      CHECK(MPIX_Win_epoch_start_stream(r->epoch, (void *)r->stream));
      CHECK(MPIX_Host_stream_launch(r->stream, verify_kernel, &s));
      if (r->overlap == O_CPU) compute(&c);
    }
    *enq = now() - t0;
    *enq_cpu = thread_cpu_now() - tc0;
    CHECK(MPIX_Host_stream_synchronize(r->stream));
#endif
  } else if (v == V_ST) {
    void *stream = (void *)r->stream;
    for (long i = 0; i < r->steps; ++i) {
      if (r->overlap == O_KERNEL)
        CHECK(MPIX_Host_stream_launch(r->compute_stream, compute_kernel, &c));
      CHECK(MPIX_Host_stream_launch(r->stream, fill_kernel, &s));
      CHECK(MPIX_Win_post_stream(r->group, win, stream));
      CHECK(MPI_Win_start(r->group, MPIX_MODE_STREAM, win));
      put_edges(s.send, s.n, win);
      CHECK(MPIX_Win_complete_stream(win, stream));
      CHECK(MPIX_Win_wait_stream(win, stream));
      CHECK(MPIX_Host_stream_launch(r->stream, verify_kernel, &s));
      if (r->overlap == O_CPU) compute(&c);
    }
    *enq = now() - t0;
    *enq_cpu = thread_cpu_now() - tc0;
    CHECK(MPIX_Host_stream_synchronize(r->stream));
  } else {
    *enq = 0;
    for (long i = 0; i < r->steps; ++i) {
      if (r->overlap == O_KERNEL)
        CHECK(MPIX_Host_stream_launch(r->compute_stream, compute_kernel, &c));
      fill_kernel(&s);
      CHECK(MPI_Win_post(r->group, 0, win));
      CHECK(MPI_Win_start(r->group, 0, win));
      put_edges(s.send, s.n, win);
      CHECK(MPI_Win_complete(win));
      CHECK(MPI_Win_wait(win));
      verify_kernel(&s);
      if (r->overlap == O_CPU) compute(&c);
    }
  }
  if (r->overlap == O_KERNEL) CHECK(MPIX_Host_stream_synchronize(r->compute_stream));
  double t = now() - t0;
  *cpu = cpu_now() - c0;
  if (s.errors != 0 || s.verified != r->steps) {
    char msg[128];
    snprintf(msg, sizeof msg, "%s: %ld wrong elements, %ld of %ld steps verified", variant_name[v],
             s.errors, s.verified, r->steps);
    fail(msg);
  }
  sums[0] = s.checksum;
  sums[1] = c.acc;
  return t;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  struct run r;
  memset(&r, 0, sizeof r);
  r.steps = 2000, r.n = 1, r.overlap = O_NONE, r.group = MPI_GROUP_NULL;
  int repeats = 5, warmup = 1, only = -1; /* -V: run one variant only (profiling) */
  double compute_us = 5;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v)
      fail(
          "usage: st_exchange [-n STEPS] [-s BYTES] [-r REPEATS] [-w WARMUP] "
          "[-O none|kernel|cpu] [-c COMPUTE_US] [-V st|pscw|persist]");
    ++i;
    if (!strcmp(a, "-n")) r.steps = atol(v);
    else if (!strcmp(a, "-s")) r.n = (atol(v) + 7) / 8;
    else if (!strcmp(a, "-r")) repeats = atoi(v);
    else if (!strcmp(a, "-w")) warmup = atoi(v);
    else if (!strcmp(a, "-c")) compute_us = atof(v);
    else if (!strcmp(a, "-V")) {
      for (int k = 0; k < NVARIANTS; ++k)
        if (!strcmp(v, variant_name[k])) only = k;
      if (only < 0) fail("-V wants st, pscw or persist");
    } else if (!strcmp(a, "-O")) {
      r.overlap = !strcmp(v, "kernel") ? O_KERNEL : !strcmp(v, "cpu") ? O_CPU : O_NONE;
      if (r.overlap == O_NONE && strcmp(v, "none")) fail("-O wants none, kernel or cpu");
    } else fail("unknown option");
  }
  if (r.steps < 1 || r.n < 1 || repeats < 1 || repeats > MAX_REPEATS || warmup < 0)
    fail("bad option value");
  if (only == V_PERSIST && !HAVE_PERSIST) fail("-V persist: no persistent epochs in this mpix.h");
  if (!HAVE_ST) {
    if (r.overlap == O_KERNEL) fail("-O kernel needs host streams (not in this MPI)");
    only = V_PSCW;
  }
  if (r.overlap != O_NONE) {
    if (rank == 0) r.iters = calibrate(compute_us);
    CHECK(MPI_Bcast(&r.iters, 1, MPI_LONG, 0, MPI_COMM_WORLD));
  }
  left = (rank + size - 1) % size;
  right = (rank + 1) % size;
  int nbrs[2] = {left, right};
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  CHECK(MPI_Group_incl(world, left == right ? 1 : 2, nbrs, &r.group));
  MPI_Group_free(&world);
  CHECK(MPIX_Host_stream_create(&r.stream));
  CHECK(MPIX_Host_stream_create(&r.compute_stream));
  double *ghost[NVARIANTS];
  MPI_Win win[NVARIANTS];
  for (int v = 0; v < NVARIANTS; ++v) {
    CHECK(MPI_Win_allocate((MPI_Aint)(2 * r.n * sizeof(double)), sizeof(double), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &ghost[v], &win[v]));
    r.send[v] = malloc(2 * (size_t)r.n * sizeof(double));
  }
#if HAVE_PERSIST
  CHECK(MPIX_Win_epoch_init(r.group, r.group, win[V_PERSIST], &r.epoch));
  put_edges(r.send[V_PERSIST], r.n, win[V_PERSIST]);
  CHECK(MPIX_Win_epoch_commit(r.epoch));
#endif

  static const char *overlap_name[] = {"none", "kernel", "cpu"};
  double t[NVARIANTS][MAX_REPEATS], ratio[NVARIANTS][MAX_REPEATS];
  double c_all[NVARIANTS][MAX_REPEATS], e_v[NVARIANTS][MAX_REPEATS], ec_v[NVARIANTS][MAX_REPEATS];
  long long before[6] = {0}, after[6], sum_counts[6] = {0};
  for (int rep = -warmup; rep < repeats; ++rep) {
    double mine[NVARIANTS], slowest[NVARIANTS], sums[NVARIANTS][2], cpu[NVARIANTS],
        cpu_all[NVARIANTS], enq[NVARIANTS], enq_cpu[NVARIANTS];
    for (int k = 0; k < NVARIANTS; ++k) {
      int v = (k + rep + NVARIANTS * MAX_REPEATS) % NVARIANTS; /* rotate which goes first */
      if ((only >= 0 && v != only) || (v == V_PERSIST && !HAVE_PERSIST)) {
        mine[v] = 1, cpu[v] = 0, enq[v] = enq_cpu[v] = 0, sums[v][0] = sums[v][1] = 0;
        continue;
      }
      if (v == V_ST)
        CHECK(MPIX_Host_stream_get_stats(r.stream, &before[0], &before[1], &before[2], &before[3],
                                         &before[4], &before[5]));
      mine[v] = run_variant(&r, v, win[v], ghost[v], sums[v], &cpu[v], &enq[v], &enq_cpu[v]);
      if (v == V_ST) {
        CHECK(MPIX_Host_stream_get_stats(r.stream, &after[0], &after[1], &after[2], &after[3],
                                         &after[4], &after[5]));
        if (rep >= 0)
          for (int j = 0; j < 6; ++j) sum_counts[j] += after[j] - before[j];
      }
    }
    for (int v = 1; v < NVARIANTS && only < 0; ++v)
      if ((v != V_PERSIST || HAVE_PERSIST) &&
          (sums[v][0] != sums[V_PSCW][0] || sums[v][1] != sums[V_PSCW][1]))
        fail("the variants' results differ");
    CHECK(MPI_Allreduce(mine, slowest, NVARIANTS, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    CHECK(MPI_Allreduce(cpu, cpu_all, NVARIANTS, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    if (rep < 0) continue;
    for (int v = 0; v < NVARIANTS; ++v) {
      t[v][rep] = slowest[v] / (double)r.steps;
      c_all[v][rep] = cpu_all[v] / (double)r.steps;
      e_v[v][rep] = enq[v] / (double)r.steps;
      ec_v[v][rep] = enq_cpu[v] / (double)r.steps;
    }
    for (int v = 0; v < NVARIANTS; ++v) ratio[v][rep] = t[v][rep] / t[V_PSCW][rep];
    if (rank == 0 && HAVE_ST)
      printf(
          "# repeat %d: st %.2f us, persist %.2f us, pscw %.2f us, st/pscw %.3f, persist/pscw "
          "%.3f; CPU of all ranks per step: st %.2f us, persist %.2f us, pscw %.2f us\n",
          rep, 1e6 * t[V_ST][rep], 1e6 * t[V_PERSIST][rep], 1e6 * t[V_PSCW][rep], ratio[V_ST][rep],
          ratio[V_PERSIST][rep], 1e6 * c_all[V_ST][rep], 1e6 * c_all[V_PERSIST][rep],
          1e6 * c_all[V_PSCW][rep]);
    if (rank == 0 && HAVE_ST)
      printf(
          "# repeat %d: st on rank 0: enqueue loop %.2f us (thread CPU %.3f us), synchronize "
          "%.2f us per step\n",
          rep, 1e6 * e_v[V_ST][rep], 1e6 * ec_v[V_ST][rep],
          1e6 * (mine[V_ST] / (double)r.steps - e_v[V_ST][rep]));
  }
  if (rank == 0 && !HAVE_ST)
    printf("pscwonly %d %s %ld %.2f\n", size, overlap_name[r.overlap], 8 * r.n,
           1e6 * bench_median(t[V_PSCW], repeats));
  if (rank == 0 && HAVE_ST) {
    double pscw = bench_median(t[V_PSCW], repeats), st = bench_median(t[V_ST], repeats);
    printf("exchange %d %s %ld %.2f %.2f %.3f %.3f\n", size, overlap_name[r.overlap], 8 * r.n,
           1e6 * st, 1e6 * pscw, st / pscw, bench_median(ratio[V_ST], repeats));
    if (HAVE_PERSIST) {
      double pst = bench_median(t[V_PERSIST], repeats);
      printf("persist %d %s %ld %.2f %.2f %.3f %.3f\n", size, overlap_name[r.overlap], 8 * r.n,
             1e6 * pst, 1e6 * pscw, pst / pscw, bench_median(ratio[V_PERSIST], repeats));
      printf("persistenqueue %d %s %.3f %.2f\n", size, overlap_name[r.overlap],
             1e6 * bench_median(ec_v[V_PERSIST], repeats),
             1e6 * bench_median(e_v[V_PERSIST], repeats));
    }
    printf("stenqueue %d %s %.3f %.2f\n", size, overlap_name[r.overlap],
           1e6 * bench_median(ec_v[V_ST], repeats), 1e6 * bench_median(e_v[V_ST], repeats));
    printf("stcpu %d %s %.2f %.2f\n", size, overlap_name[r.overlap],
           1e6 * bench_median(c_all[V_ST], repeats), 1e6 * bench_median(c_all[V_PSCW], repeats));
    double per = (double)repeats * (double)r.steps;
    printf("ststream %d %s %.2f %.2f %.2f %.2f %.3f %.3f\n", size, overlap_name[r.overlap],
           sum_counts[0] / per, sum_counts[1] / per, sum_counts[2] / per, sum_counts[3] / per,
           sum_counts[4] / per, sum_counts[5] / per);
  }
#if HAVE_PERSIST
  CHECK(MPIX_Win_epoch_free(&r.epoch));
#endif
  for (int v = 0; v < NVARIANTS; ++v) {
    MPI_Win_free(&win[v]);
    free(r.send[v]);
  }
  MPIX_Host_stream_free(&r.stream);
  MPIX_Host_stream_free(&r.compute_stream);
  MPI_Group_free(&r.group);
  MPI_Finalize();
  return 0;
}
