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
 *
 * "fill" writes this rank's two edge blocks (-s bytes each) for the step;
 * "verify" checks every received element against what the neighbour must
 * have sent in this step, and adds it to a checksum. Both variants must
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
 *   stenqueue NP OVERLAP cpu_us wall_us   rank 0's enqueue loop of the st
 *       variant: CPU time of the enqueuing thread and wall time, per step
 *       (the rest of the st time is the synchronize that runs the steps)
 *   stcpu NP OVERLAP st_cpu_us pscw_cpu_us   CPU time of all ranks' processes
 *       (every thread) per step: what the step costs the node
 *   ststream NP OVERLAP queued thread caller inline handoffs wakeups
 * (times per step of the slowest rank, medians over repeats; stream counts
 * per step of rank 0's communication stream in its st runs).
 * -V st or -V pscw runs one variant only (for profilers; no ratio then).
 */
#include <mpi.h>

#include "bench_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REPEATS 101

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
};

static void put_edges(struct state *s, MPI_Win win) {
  int count = (int)s->n;
  CHECK(MPI_Put(s->send, count, MPI_DOUBLE, left, (MPI_Aint)s->n, count, MPI_DOUBLE, win));
  CHECK(MPI_Put(s->send + s->n, count, MPI_DOUBLE, right, 0, count, MPI_DOUBLE, win));
}

/* Returns the time of this rank's loop and sets *cpu to the CPU time its
 * process used meanwhile (every thread); `sums` gets the checksums. */
static double run_variant(const struct run *r, int st, MPI_Win win, double *ghost, double sums[2],
                          double *cpu, double *enq, double *enq_cpu) {
  struct state s = {r->n, NULL, ghost, 0, 0, 0, 0};
  s.send = malloc(2 * (size_t)r->n * sizeof(double));
  for (long k = 0; k < 2 * r->n; ++k) ghost[k] = -1, s.send[k] = -1;
  struct compute c = {r->iters, 1.0};
  CHECK(MPI_Barrier(MPI_COMM_WORLD));
  double c0 = cpu_now();
  double t0 = now(), tc0 = thread_cpu_now();
  *enq_cpu = 0;
  if (st) {
    void *stream = (void *)r->stream;
    for (long i = 0; i < r->steps; ++i) {
      if (r->overlap == O_KERNEL)
        CHECK(MPIX_Host_stream_launch(r->compute_stream, compute_kernel, &c));
      CHECK(MPIX_Host_stream_launch(r->stream, fill_kernel, &s));
      CHECK(MPIX_Win_post_stream(r->group, win, stream));
      CHECK(MPI_Win_start(r->group, MPIX_MODE_STREAM, win));
      put_edges(&s, win);
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
      put_edges(&s, win);
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
    snprintf(msg, sizeof msg, "%s: %ld wrong elements, %ld of %ld steps verified",
             st ? "st" : "pscw", s.errors, s.verified, r->steps);
    fail(msg);
  }
  sums[0] = s.checksum;
  sums[1] = c.acc;
  free(s.send);
  return t;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  struct run r = {2000, 1, O_NONE, 0, MPI_GROUP_NULL, NULL, NULL};
  int repeats = 5, warmup = 1, only = -1; /* -V: run one variant only (profiling) */
  double compute_us = 5;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v)
      fail(
          "usage: st_exchange [-n STEPS] [-s BYTES] [-r REPEATS] [-w WARMUP] "
          "[-O none|kernel|cpu] [-c COMPUTE_US] [-V st|pscw]");
    ++i;
    if (!strcmp(a, "-n")) r.steps = atol(v);
    else if (!strcmp(a, "-s")) r.n = (atol(v) + 7) / 8;
    else if (!strcmp(a, "-r")) repeats = atoi(v);
    else if (!strcmp(a, "-w")) warmup = atoi(v);
    else if (!strcmp(a, "-c")) compute_us = atof(v);
    else if (!strcmp(a, "-V")) only = !strcmp(v, "st") ? 1 : !strcmp(v, "pscw") ? 0 : -1;
    else if (!strcmp(a, "-O")) {
      r.overlap = !strcmp(v, "kernel") ? O_KERNEL : !strcmp(v, "cpu") ? O_CPU : O_NONE;
      if (r.overlap == O_NONE && strcmp(v, "none")) fail("-O wants none, kernel or cpu");
    } else fail("unknown option");
  }
  if (r.steps < 1 || r.n < 1 || repeats < 1 || repeats > MAX_REPEATS || warmup < 0)
    fail("bad option value");
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
  double *ghost[2];
  MPI_Win win[2];
  for (int v = 0; v < 2; ++v)
    CHECK(MPI_Win_allocate((MPI_Aint)(2 * r.n * sizeof(double)), sizeof(double), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &ghost[v], &win[v]));

  static const char *overlap_name[] = {"none", "kernel", "cpu"};
  double t_st[MAX_REPEATS], t_pscw[MAX_REPEATS], ratio[MAX_REPEATS];
  double c_st[MAX_REPEATS], c_pscw[MAX_REPEATS], e_st[MAX_REPEATS], ec_st[MAX_REPEATS];
  long long before[6] = {0}, after[6], sum_counts[6] = {0};
  for (int rep = -warmup; rep < repeats; ++rep) {
    double mine[2], slowest[2], sums[2][2], cpu[2], cpu_all[2], enq[2], enq_cpu[2];
    for (int k = 0; k < 2; ++k) {
      int st = (k + rep) % 2 == 0;   /* alternate which goes first */
      if (only >= 0 && st != only) { /* profiling one variant: the other is not run */
        mine[st] = 1, cpu[st] = 0, enq[st] = enq_cpu[st] = 0, sums[st][0] = sums[st][1] = 0;
        continue;
      }
      if (st)
        CHECK(MPIX_Host_stream_get_stats(r.stream, &before[0], &before[1], &before[2], &before[3],
                                         &before[4], &before[5]));
      mine[st] =
          run_variant(&r, st, win[st], ghost[st], sums[st], &cpu[st], &enq[st], &enq_cpu[st]);
      if (st) {
        CHECK(MPIX_Host_stream_get_stats(r.stream, &after[0], &after[1], &after[2], &after[3],
                                         &after[4], &after[5]));
        if (rep >= 0)
          for (int j = 0; j < 6; ++j) sum_counts[j] += after[j] - before[j];
      }
    }
    if (only < 0 && (sums[0][0] != sums[1][0] || sums[0][1] != sums[1][1]))
      fail("st and pscw results differ");
    CHECK(MPI_Allreduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    CHECK(MPI_Allreduce(cpu, cpu_all, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    if (rep < 0) continue;
    t_st[rep] = slowest[1] / (double)r.steps;
    t_pscw[rep] = slowest[0] / (double)r.steps;
    ratio[rep] = t_st[rep] / t_pscw[rep];
    c_st[rep] = cpu_all[1] / (double)r.steps;
    c_pscw[rep] = cpu_all[0] / (double)r.steps;
    e_st[rep] = enq[1] / (double)r.steps;
    ec_st[rep] = enq_cpu[1] / (double)r.steps;
    if (rank == 0)
      printf(
          "# repeat %d: st %.2f us, pscw %.2f us, st/pscw %.3f; CPU of all ranks per step: "
          "st %.2f us, pscw %.2f us\n",
          rep, 1e6 * t_st[rep], 1e6 * t_pscw[rep], ratio[rep], 1e6 * c_st[rep], 1e6 * c_pscw[rep]);
    if (rank == 0)
      printf(
          "# repeat %d: st on rank 0: enqueue loop %.2f us (thread CPU %.3f us), synchronize "
          "%.2f us per step\n",
          rep, 1e6 * e_st[rep], 1e6 * ec_st[rep], 1e6 * (mine[1] / (double)r.steps - e_st[rep]));
  }
  if (rank == 0) {
    double st = bench_median(t_st, repeats), pscw = bench_median(t_pscw, repeats);
    printf("exchange %d %s %ld %.2f %.2f %.3f %.3f\n", size, overlap_name[r.overlap], 8 * r.n,
           1e6 * st, 1e6 * pscw, st / pscw, bench_median(ratio, repeats));
    printf("stenqueue %d %s %.3f %.2f\n", size, overlap_name[r.overlap],
           1e6 * bench_median(ec_st, repeats), 1e6 * bench_median(e_st, repeats));
    printf("stcpu %d %s %.2f %.2f\n", size, overlap_name[r.overlap],
           1e6 * bench_median(c_st, repeats), 1e6 * bench_median(c_pscw, repeats));
    double per = (double)repeats * (double)r.steps;
    printf("ststream %d %s %.2f %.2f %.2f %.2f %.3f %.3f\n", size, overlap_name[r.overlap],
           sum_counts[0] / per, sum_counts[1] / per, sum_counts[2] / per, sum_counts[3] / per,
           sum_counts[4] / per, sum_counts[5] / per);
  }
  for (int v = 0; v < 2; ++v) MPI_Win_free(&win[v]);
  MPIX_Host_stream_free(&r.stream);
  MPIX_Host_stream_free(&r.compute_stream);
  MPI_Group_free(&r.group);
  MPI_Finalize();
  return 0;
}
