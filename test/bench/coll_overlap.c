/* Overlap of a nonblocking collective with computation, measured as the
 * OSU micro-benchmarks do: t_pure = MPI_I<coll> + MPI_Wait; t_compute =
 * computation of about t_pure alone; t_total = MPI_I<coll>, then the same
 * computation, then MPI_Wait; overlap = 1 - (t_total - t_compute) / t_pure
 * (clamped to [0, 1]). The computation calls MPI_Test every `slice` us, as
 * OSU's compute-and-probe loop does (progress comes from those calls).
 *
 * usage: coll_overlap [-b bytes] [-c iallreduce|ibcast|ialltoall] [-i iters] [-s slice_us]
 * output: "<coll> <bytes> pure_us <t> compute_us <t> total_us <t> overlap_pct <p>" */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile double sink;
static int slice_us = 20;

static void start(const char *c, void *s, void *r, long bytes, int size, MPI_Request *req) {
  if (!strcmp(c, "ibcast")) MPI_Ibcast(s, (int)bytes, MPI_CHAR, 0, MPI_COMM_WORLD, req);
  else if (!strcmp(c, "ialltoall"))
    MPI_Ialltoall(s, (int)(bytes / size), MPI_CHAR, r, (int)(bytes / size), MPI_CHAR,
                  MPI_COMM_WORLD, req);
  else MPI_Iallreduce(s, r, (int)(bytes / 4), MPI_INT, MPI_SUM, MPI_COMM_WORLD, req);
}

/* Computes for `us` microseconds; tests `req` (if any) between slices. */
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

int main(int argc, char **argv) {
  int rank, size, iters = 20;
  long bytes = 1 << 20;
  const char *coll = "iallreduce";
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-b")) bytes = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "-c")) coll = argv[i + 1];
    else if (!strcmp(argv[i], "-i")) iters = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-s")) slice_us = atoi(argv[i + 1]);
  }
  char *s = calloc(bytes + 64, 1), *r = calloc(bytes + 64, 1);
  MPI_Request req;
  double *pure = malloc(sizeof(double) * iters), *comp = malloc(sizeof(double) * iters),
         *total = malloc(sizeof(double) * iters);
  for (int i = 0; i < 3; i++) {
    start(coll, s, r, bytes, size, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  for (int i = 0; i < iters; i++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    start(coll, s, r, bytes, size, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    pure[i] = (MPI_Wtime() - t0) * 1e6;
  }
  qsort(pure, iters, sizeof(double), cmp);
  double t_pure = pure[iters / 2];
  MPI_Bcast(&t_pure, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  for (int i = 0; i < iters; i++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    compute(t_pure, NULL);
    comp[i] = (MPI_Wtime() - t0) * 1e6;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    start(coll, s, r, bytes, size, &req);
    compute(t_pure, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    total[i] = (MPI_Wtime() - t0) * 1e6;
  }
  qsort(comp, iters, sizeof(double), cmp);
  qsort(total, iters, sizeof(double), cmp);
  double t_comp = comp[iters / 2], t_total = total[iters / 2];
  double overlap = 1.0 - (t_total - t_comp) / t_pure;
  if (overlap < 0) overlap = 0;
  if (overlap > 1) overlap = 1;
  if (rank == 0)
    printf("%s %ld pure_us %.1f compute_us %.1f total_us %.1f overlap_pct %.1f\n", coll, bytes,
           t_pure, t_comp, t_total, overlap * 100);
  free(s);
  free(r);
  free(pure);
  free(comp);
  free(total);
  MPI_Finalize();
  return 0;
}
