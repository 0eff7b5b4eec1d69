/* The C twin of fpingpong.F90 (test/bench/fortran_pingpong.sh): the same ping-pong (8 B and
 * 1 MiB) and allreduce loops with the same counts, so that a Fortran interface's overhead is
 * the difference between the two. Two ranks; same output lines; argument 1: trials. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof(double), cmp);
  return v[(n - 1) / 2];
}

int main(int argc, char **argv) {
  enum { kBig = 1048576 };
  int rank, nprocs, ntrials = argc > 1 ? atoi(argv[1]) : 11;
  double times[101], x, y;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (ntrials < 1) ntrials = 1;
  if (ntrials > 101) ntrials = 101;
  double *buf = malloc(kBig);
  for (int i = 0; i < kBig / 8; i++) buf[i] = 1.0;
  int peer = 1 - rank;
  for (int s = 0; s < 2; s++) {
    int nbytes = s == 0 ? 8 : kBig, iters = s == 0 ? 2000 : 50;
    for (int t = 0; t < ntrials; t++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (int i = 0; i < iters; i++) {
        if (rank == 0) {
          MPI_Send(buf, nbytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
          MPI_Recv(buf, nbytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
          MPI_Recv(buf, nbytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(buf, nbytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        }
      }
      times[t] = (MPI_Wtime() - t0) / (2.0 * iters) * 1e6;
    }
    if (rank == 0) printf("pingpong %d %.3f\n", nbytes, median(times, ntrials));
  }
  x = rank + 1.0;
  for (int t = 0; t < ntrials; t++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < 2000; i++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    times[t] = (MPI_Wtime() - t0) / 2000.0 * 1e6;
  }
  if (y != nprocs * (nprocs + 1) / 2.0) {
    printf("allreduce gave %g\n", y);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) printf("allreduce 8 %.3f\n", median(times, ntrials));
  free(buf);
  MPI_Finalize();
  return 0;
}
