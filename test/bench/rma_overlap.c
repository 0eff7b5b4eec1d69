/* Overlap of a target's computation with passive-target epochs of other
 * ranks (the overlap benchmark of seed 004). Rank 0 is the target; ranks
 * 1..n-1 are origins.
 *   alone:   the target waits inside MPI (MPI_Barrier) while each origin
 *            runs K epochs of lock + MPI_Put(SIZE) + unlock on it; T_comm is
 *            how long the origins need.
 *   overlap: the target computes for C = T_comm without any MPI call, then
 *            stops; the origins run the same K epochs. T_total is the time
 *            from the first start to the last finish (computation or
 *            epochs), T_origin how long the origins needed this time.
 *   overlap% = 100 * (T_comm + C - T_total) / min(T_comm, C), clipped to
 *            0..100: 100 when the epochs proceed while the target computes
 *            (T_total = max), 0 when they wait for its next MPI call (T_total
 *            = T_comm + C).
 * Modes: lock (exclusive MPI_Win_lock) and lockall (MPI_Win_lock_all on the
 * origin, put to rank 0, MPI_Win_unlock_all). K is calibrated so that T_comm
 * is about 20 ms (5 ms with -q).
 * Output (rank 0, medians over trials):
 *   overlap MODE SIZE T_COMM_US T_ORIGIN_US T_TOTAL_US OVERLAP_PCT K
 * Usage: rma_overlap [-q] [-t TRIALS] [-s SIZES] [-M MODES] */
#include <time.h>

#include "bench_common.h"

#define MAX_SIZES 16

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static volatile double sink;

static int in_list(const char *list, const char *name) {
  const size_t n = strlen(name);
  for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
    if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
  return 0;
}

static void compute(double seconds) {
  const double end = now() + seconds;
  double x = 1.0;
  while (now() < end)
    for (int i = 0; i < 200; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

struct ctx {
  MPI_Win win;
  char *buf;
  int rank;
  long size;
  int lockall;
};

static void epochs(struct ctx *c, long k) {
  for (long i = 0; i < k; ++i) {
    if (c->lockall) MPI_Win_lock_all(0, c->win);
    else MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, c->win);
    MPI_Put(c->buf, (int)c->size, MPI_BYTE, 0, 0, (int)c->size, MPI_BYTE, c->win);
    if (c->lockall) MPI_Win_unlock_all(c->win);
    else MPI_Win_unlock(0, c->win);
  }
}

/* One round. T_origin: the slowest origin's epochs; T_total: from the
 * earliest start to the latest finish (the target finishes when its
 * computation ends, an origin when its epochs end), on CLOCK_MONOTONIC,
 * which all processes of the node share. */
static void round_trip(struct ctx *c, long k, double compute_s, double *t_origin, double *t_total) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = now();
  double took = 0;
  if (c->rank == 0) {
    if (compute_s > 0) compute(compute_s);
  } else {
    epochs(c, k);
    took = now() - start;
  }
  const double finish = now();
  double first = 0, last = 0;
  MPI_Reduce(&took, t_origin, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&start, &first, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&finish, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  *t_total = last - first;
}

int main(int argc, char **argv) {
  struct bench_opts o;
  long sizes[MAX_SIZES];
  int nsizes;
  const char *modes = "lock,lockall";
  MPI_Init(&argc, &argv);
  bench_default_opts(&o);
  double goal = 0.020;
  nsizes = bench_parse_list("8,4K,64K,1M", sizes, MAX_SIZES);
  for (int i = 1; i < argc; ++i) {
    if (bench_common_arg(&o, argc, argv, &i)) {
      if (!strcmp(argv[i], "-q")) goal = 0.005;
      continue;
    }
    if (!strcmp(argv[i], "-s") && i + 1 < argc)
      nsizes = bench_parse_list(argv[++i], sizes, MAX_SIZES);
    else if (!strcmp(argv[i], "-M") && i + 1 < argc) modes = argv[++i];
    else bench_fail("unknown argument '%s'", argv[i]);
  }
  struct ctx c;
  int nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (nprocs < 2) bench_fail("rma_overlap needs at least 2 ranks");
  long most = 8;
  for (int i = 0; i < nsizes; ++i) most = sizes[i] > most ? sizes[i] : most;
  char *winbuf;
  bench_check(MPI_Win_allocate(most, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &winbuf, &c.win),
              "MPI_Win_allocate");
  c.buf = bench_alloc(most);
  bench_fill(c.buf, most, (unsigned)c.rank);
  if (c.rank == 0) {
    bench_print_header("rma_overlap", &o);
    printf("# rma_overlap: rank 0 is the target, %d origin(s); epochs calibrated to ~%.0f ms\n",
           nprocs - 1, goal * 1e3);
  }
  for (int m = 0; m < 2; ++m) {
    const char *mode = m == 0 ? "lock" : "lockall";
    if (!in_list(modes, mode)) continue;
    c.lockall = m;
    for (int s = 0; s < nsizes; ++s) {
      c.size = sizes[s];
      /* Calibrate K with the target waiting inside MPI. */
      long k = 1;
      for (;;) {
        double t_origin = 0, t_total = 0;
        round_trip(&c, k, 0, &t_origin, &t_total);
        int enough = t_origin >= goal / 4 || k >= (1L << 24);
        MPI_Bcast(&enough, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (enough) {
          double scale = t_origin > 0 ? goal / t_origin : 1;
          MPI_Bcast(&scale, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
          k = (long)(k * scale) + 1;
          break;
        }
        k *= 2;
      }
      double comm[BENCH_MAX_TRIALS], origin[BENCH_MAX_TRIALS], total[BENCH_MAX_TRIALS],
          pct[BENCH_MAX_TRIALS];
      for (int t = 0; t < o.trials; ++t) {
        double t_origin = 0, t_total = 0, t_comm = 0, ignored = 0;
        round_trip(&c, k, 0, &t_comm, &ignored);
        MPI_Bcast(&t_comm, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        round_trip(&c, k, t_comm, &t_origin, &t_total);
        comm[t] = t_comm;
        origin[t] = t_origin;
        total[t] = t_total;
        double p = 100.0 * (t_comm + t_comm - t_total) / t_comm;
        pct[t] = p < 0 ? 0 : (p > 100 ? 100 : p);
      }
      if (c.rank == 0) {
        printf("overlap %s %ld %.1f %.1f %.1f %.1f %ld\n", mode, c.size,
               bench_median(comm, o.trials) * 1e6, bench_median(origin, o.trials) * 1e6,
               bench_median(total, o.trials) * 1e6, bench_median(pct, o.trials), k);
        fflush(stdout);
      }
    }
  }
  if (c.rank == 0) printf("# rma_overlap: done\n");
  fflush(stdout); /* seen by drivers that stop a run hung in MPI_Finalize */
  MPI_Win_free(&c.win);
  MPI_Finalize();
  return 0;
}
