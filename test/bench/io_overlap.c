/* Overlap of nonblocking MPI-IO with computation, measured as coll_overlap.c measures
 * nonblocking collectives: t_pure = MPI_File_iwrite_at(_all) + MPI_Wait; t_compute = a
 * computation of t_pure alone; t_total = the same nonblocking write, then the computation,
 * then MPI_Wait; overlap = 1 - (t_total - t_compute) / t_pure, clamped to [0, 1]. Every rank
 * writes its own block of one shared file; times are the slowest rank's, medians over the
 * iterations. Two computations: "quiet" makes no MPI call (progress must come from the
 * library on its own), "test" calls MPI_Test every slice (as OSU's compute loop does).
 *
 * usage: io_overlap [-b bytes per rank] [-i iters] [-s slice_us] [-f path]
 * output: "iooverlap <call> <compute> <bytes> pure_us <t> compute_us <t> total_us <t>
 *          overlap_pct <p>", then "# io_overlap: done" */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile double sink;
static int slice_us = 100;

/* Computes for `us` microseconds; tests `req` between slices when it is not NULL. */
static void compute(double us, MPI_Request *req) {
  double t0 = MPI_Wtime(), x = 1.0, next = slice_us;
  int flag = req == NULL;
  for (;;) {
    double el = (MPI_Wtime() - t0) * 1e6;
    if (el >= us) break;
    for (int i = 0; i < 50; i++) x = x * 1.0000001 + 1e-9;
    if (!flag && el >= next) {
      MPI_Test(req, &flag, MPI_STATUS_IGNORE);
      next = el + slice_us;
    }
  }
  sink = x;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void start(MPI_File fh, int coll, MPI_Offset at, void *buf, int bytes, MPI_Request *req) {
  if (coll) MPI_File_iwrite_at_all(fh, at, buf, bytes, MPI_BYTE, req);
  else MPI_File_iwrite_at(fh, at, buf, bytes, MPI_BYTE, req);
}

/* The slowest rank's time of `t`. */
static double slowest(double t) {
  double m = 0;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long bytes = 16L << 20;
  int iters = 5;
  char path[1024];
  snprintf(path, sizeof path, "%s/stmpi-io-overlap.%d",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-b") && i + 1 < argc) bytes = strtol(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "-i") && i + 1 < argc) iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-s") && i + 1 < argc) slice_us = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-f") && i + 1 < argc) snprintf(path, sizeof path, "%s", argv[++i]);
  }
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (iters < 1 || iters > 101) iters = 5;
  char *buf = malloc(bytes);
  for (long i = 0; i < bytes; i++) buf[i] = (char)(i * 7 + rank);
  MPI_File fh;
  if (MPI_File_open(MPI_COMM_WORLD, path,
                    MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                    &fh) != MPI_SUCCESS) {
    fprintf(stderr, "io_overlap: cannot open %s\n", path);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0)
    printf("# io_overlap: %d ranks, %ld bytes per rank, %d iterations, file %s\n", size, bytes,
           iters, path);
  MPI_Offset at = (MPI_Offset)rank * bytes;
  MPI_Request req;
  const char *calls[2] = {"iwrite_at", "iwrite_at_all"};
  const char *modes[2] = {"quiet", "test"};
  for (int coll = 0; coll < 2; coll++) {
    for (int mode = 0; mode < 2; mode++) {
      double pure[101], comp[101], total[101], ov[101];
      for (int it = 0; it < iters; it++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        start(fh, coll, at, buf, (int)bytes, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        pure[it] = slowest(MPI_Wtime() - t0);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        compute(pure[it] * 1e6, NULL);
        comp[it] = slowest(MPI_Wtime() - t0);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        start(fh, coll, at, buf, (int)bytes, &req);
        compute(pure[it] * 1e6, mode ? &req : NULL);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        total[it] = slowest(MPI_Wtime() - t0);
        double o = 1.0 - (total[it] - comp[it]) / pure[it];
        ov[it] = o < 0 ? 0 : (o > 1 ? 1 : o);
      }
      if (rank == 0)
        printf("iooverlap %s %s %ld pure_us %.1f compute_us %.1f total_us %.1f overlap_pct %.1f\n",
               calls[coll], modes[mode], bytes, median(pure, iters) * 1e6,
               median(comp, iters) * 1e6, median(total, iters) * 1e6, median(ov, iters) * 100);
    }
  }
  MPI_File_close(&fh);
  free(buf);
  if (rank == 0) printf("# io_overlap: done\n");
  MPI_Finalize();
  return 0;
}
