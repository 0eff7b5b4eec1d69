/* st_enqueue: where a host-stream ST step's CPU time goes, call by call, on
 * one rank (epochs to itself on MPI_COMM_SELF), against the same step as
 * ordinary PSCW in the same run.
 *
 *   enqueue   per step: MPIX_Host_stream_launch, MPIX_Win_post_stream,
 *             MPI_Win_start(MPIX_MODE_STREAM), two MPI_Put, MPIX_Win_complete_stream,
 *             MPIX_Win_wait_stream, MPIX_Host_stream_launch; the stream is held by a
 *             gate operation enqueued first, so nothing runs while the steps are enqueued
 *   execute   the gate opens and MPIX_Host_stream_synchronize runs the queued steps
 *   pscw      per step: MPI_Win_post, MPI_Win_start, two MPI_Put, MPI_Win_complete,
 *             MPI_Win_wait (the user functions are called directly)
 *
 * Each call is timed with CLOCK_MONOTONIC and the clock's own cost is
 * subtracted; per call kind the minimum over repeats of the mean per step.
 * Output: one "stenqueue_ns" line (per call kind and the sum), one
 * "stexecute_ns" line, one "pscw_ns" line, and "ratio" (enqueue + execute
 * over PSCW). The per-call clocks cost more than some calls, so the same
 * loops are then timed whole, without them (median over repeats of ns per
 * step; the steadier figure): one "loop_ns" line with the ST enqueue loop,
 * the run of the queued steps, the PSCW loop, and their ratio.
 *
 *   mpicc -O2 -I test/bench test/bench/st_enqueue.c -o st_enqueue
 *   mpiexec -n 1 st_enqueue [-n STEPS] [-r REPEATS]
 */
#include <mpi.h>
#include <mpix.h>

#include "bench_common.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void user_fn(void *arg) { ++*(long *)arg; }

static atomic_int gate_open;
static void gate(void *arg) {
  (void)arg;
  /* Polls with a yield, not a sleep: a sleep's wake-up (50 us or more)
   * would be counted in the execute figure. */
  while (!atomic_load(&gate_open)) sched_yield();
}

enum { kLaunch, kPost, kStart, kPut, kComplete, kWait, kKinds };
static const char *names[kKinds] = {"launch", "post", "start", "put", "complete", "wait"};

static void fail(const char *what) {
  fprintf(stderr, "st_enqueue: %s failed\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CHECK(call)                         \
  do {                                      \
    if ((call) != MPI_SUCCESS) fail(#call); \
  } while (0)

/* Adds the call's time, less the clock's own cost, to sums[kind]. */
#define TIMED(sums, kind, call)        \
  do {                                 \
    double t0_ = now();                \
    CHECK(call);                       \
    (sums)[kind] += now() - t0_ - clk; \
  } while (0)

int main(int argc, char **argv) {
  int steps = 500, repeats = 20;
  for (int c; (c = getopt(argc, argv, "n:r:")) != -1;) {
    if (c == 'n') steps = atoi(optarg);
    else if (c == 'r') repeats = atoi(optarg);
    else {
      fprintf(stderr, "usage: st_enqueue [-n STEPS] [-r REPEATS]\n");
      return 2;
    }
  }
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 1) fail("one rank (it measures calls, not the exchange)");
  double clk = now();
  for (int i = 0; i < 100000; i++) (void)now();
  clk = (now() - clk) / 100000;

  MPIX_Host_stream s;
  CHECK(MPIX_Host_stream_create(&s));
  double *mem;
  MPI_Win win;
  CHECK(MPI_Win_allocate(64 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_SELF, &mem,
                         &win));
  MPI_Group self;
  MPI_Comm_group(MPI_COMM_SELF, &self);
  double src[2] = {1, 2};
  long calls = 0;
  double best_st[kKinds], best_exec = 1e30, best_pscw[kKinds];
  for (int k = 0; k < kKinds; k++) best_st[k] = best_pscw[k] = 1e30;
  for (int rep = 0; rep < repeats; rep++) {
    double t[kKinds] = {0};
    mem[0] = mem[1] = 0; /* the stream's puts must write them again */
    atomic_store(&gate_open, 0);
    CHECK(MPIX_Host_stream_launch(s, gate, NULL));
    for (int i = 0; i < steps; i++) {
      TIMED(t, kLaunch, MPIX_Host_stream_launch(s, user_fn, &calls));
      TIMED(t, kPost, MPIX_Win_post_stream(self, win, s));
      TIMED(t, kStart, MPI_Win_start(self, MPIX_MODE_STREAM, win));
      TIMED(t, kPut, MPI_Put(&src[0], 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win));
      TIMED(t, kPut, MPI_Put(&src[1], 1, MPI_DOUBLE, 0, 1, 1, MPI_DOUBLE, win));
      TIMED(t, kComplete, MPIX_Win_complete_stream(win, s));
      TIMED(t, kWait, MPIX_Win_wait_stream(win, s));
      TIMED(t, kLaunch, MPIX_Host_stream_launch(s, user_fn, &calls));
    }
    double t0 = now();
    atomic_store(&gate_open, 1);
    CHECK(MPIX_Host_stream_synchronize(s));
    const double exec = (now() - t0) / steps;
    if (exec < best_exec) best_exec = exec;
    for (int k = 0; k < kKinds; k++)
      if (t[k] / steps < best_st[k]) best_st[k] = t[k] / steps;
    if (mem[0] != 1 || mem[1] != 2) fail("the stream's puts");

    double p[kKinds] = {0};
    for (int i = 0; i < steps; i++) {
      mem[0] = mem[1] = 0;
      user_fn(&calls);
      TIMED(p, kPost, MPI_Win_post(self, 0, win));
      TIMED(p, kStart, MPI_Win_start(self, 0, win));
      TIMED(p, kPut, MPI_Put(&src[0], 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win));
      TIMED(p, kPut, MPI_Put(&src[1], 1, MPI_DOUBLE, 0, 1, 1, MPI_DOUBLE, win));
      TIMED(p, kComplete, MPI_Win_complete(win));
      TIMED(p, kWait, MPI_Win_wait(win));
      user_fn(&calls);
      if (mem[0] != 1 || mem[1] != 2) fail("PSCW's puts");
    }
    for (int k = 0; k < kKinds; k++)
      if (p[k] / steps < best_pscw[k]) best_pscw[k] = p[k] / steps;
  }
  if (calls != 4L * steps * repeats) fail("the user functions' count");

  /* The same loops timed whole. */
  double *whole = malloc(3 * (size_t)repeats * sizeof *whole);
  if (whole == NULL) fail("malloc");
  double *w_enq = whole, *w_exec = whole + repeats, *w_pscw = whole + 2 * repeats;
  for (int rep = 0; rep < repeats; rep++) {
    mem[0] = mem[1] = 0;
    atomic_store(&gate_open, 0);
    CHECK(MPIX_Host_stream_launch(s, gate, NULL));
    double t0 = now();
    for (int i = 0; i < steps; i++) {
      CHECK(MPIX_Host_stream_launch(s, user_fn, &calls));
      CHECK(MPIX_Win_post_stream(self, win, s));
      CHECK(MPI_Win_start(self, MPIX_MODE_STREAM, win));
      CHECK(MPI_Put(&src[0], 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win));
      CHECK(MPI_Put(&src[1], 1, MPI_DOUBLE, 0, 1, 1, MPI_DOUBLE, win));
      CHECK(MPIX_Win_complete_stream(win, s));
      CHECK(MPIX_Win_wait_stream(win, s));
      CHECK(MPIX_Host_stream_launch(s, user_fn, &calls));
    }
    double t1 = now();
    atomic_store(&gate_open, 1);
    CHECK(MPIX_Host_stream_synchronize(s));
    w_enq[rep] = (t1 - t0) / steps;
    w_exec[rep] = (now() - t1) / steps;
    if (mem[0] != 1 || mem[1] != 2) fail("the stream's puts (whole loop)");
    mem[0] = mem[1] = 0;
    t0 = now();
    for (int i = 0; i < steps; i++) {
      user_fn(&calls);
      CHECK(MPI_Win_post(self, 0, win));
      CHECK(MPI_Win_start(self, 0, win));
      CHECK(MPI_Put(&src[0], 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win));
      CHECK(MPI_Put(&src[1], 1, MPI_DOUBLE, 0, 1, 1, MPI_DOUBLE, win));
      CHECK(MPI_Win_complete(win));
      CHECK(MPI_Win_wait(win));
      user_fn(&calls);
    }
    w_pscw[rep] = (now() - t0) / steps;
    if (mem[0] != 1 || mem[1] != 2) fail("PSCW's puts (whole loop)");
  }
  if (calls != 8L * steps * repeats) fail("the user functions' count (whole loops)");
  const double m_enq = bench_median(w_enq, repeats), m_exec = bench_median(w_exec, repeats),
               m_pscw = bench_median(w_pscw, repeats);
  free(whole);
  double sum_st = 0, sum_pscw = 0;
  printf("stenqueue_ns");
  for (int k = 0; k < kKinds; k++) {
    printf(" %s %.0f", names[k], best_st[k] * 1e9);
    sum_st += best_st[k];
  }
  printf(" total %.0f\nstexecute_ns %.0f\npscw_ns", sum_st * 1e9, best_exec * 1e9);
  for (int k = 1; k < kKinds; k++) {
    printf(" %s %.0f", names[k], best_pscw[k] * 1e9);
    sum_pscw += best_pscw[k];
  }
  printf(" total %.0f\nratio (enqueue + execute) / pscw %.2f\n", sum_pscw * 1e9,
         (sum_st + best_exec) / sum_pscw);
  printf("loop_ns st_enqueue %.0f st_execute %.0f pscw %.0f ratio %.2f\n", m_enq * 1e9,
         m_exec * 1e9, m_pscw * 1e9, (m_enq + m_exec) / m_pscw);
  MPI_Group_free(&self);
  MPI_Win_free(&win);
  MPIX_Host_stream_free(&s);
  MPI_Finalize();
  return 0;
}
