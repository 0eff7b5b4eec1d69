/* Collective latency: MPI_Allreduce (MPI_SUM over ints), MPI_Bcast, MPI_Alltoall and MPI_Allgather
 * at the sizes given (bytes; per destination block for Alltoall and per process for Allgather, as
 * the OSU benchmarks count them). Each point: warm-up, an iteration count calibrated on rank 0 for
 * trials of ~trial_ms, then `trials` trials, each after a barrier; prints the median over trials of
 * the time per call (each trial's time is the slowest rank's).
 *
 * usage: coll_bench [-q] [-c allreduce,bcast,alltoall,allgather] [-s 8,4096,...]
 * output lines: "<collective> <bytes> <usec>" */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static char *sbuf, *rbuf;

static void run(const char *coll, long bytes, long iters) {
  for (long i = 0; i < iters; i++) {
    if (!strcmp(coll, "allreduce"))
      MPI_Allreduce(sbuf, rbuf, (int)(bytes / 4 > 0 ? bytes / 4 : 1), MPI_INT, MPI_SUM,
                    MPI_COMM_WORLD);
    else if (!strcmp(coll, "bcast")) MPI_Bcast(sbuf, (int)bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
    else if (!strcmp(coll, "alltoall"))
      MPI_Alltoall(sbuf, (int)bytes, MPI_CHAR, rbuf, (int)bytes, MPI_CHAR, MPI_COMM_WORLD);
    else MPI_Allgather(sbuf, (int)bytes, MPI_CHAR, rbuf, (int)bytes, MPI_CHAR, MPI_COMM_WORLD);
  }
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char colls[256] = "allreduce,bcast,alltoall,allgather", sizes[256] = "8,4096,65536,1048576";
  int trials = 7;
  double trial_ms = 30;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-q")) {
      trials = 3;
      trial_ms = 10;
    } else if (!strcmp(argv[i], "-c") && i + 1 < argc)
      snprintf(colls, sizeof colls, "%s", argv[++i]);
    else if (!strcmp(argv[i], "-s") && i + 1 < argc) snprintf(sizes, sizeof sizes, "%s", argv[++i]);
  }
  long maxbytes = 0;
  for (char *p = sizes; *p;) {
    long v = strtol(p, &p, 10);
    if (v > maxbytes) maxbytes = v;
    if (*p) p++;
  }
  sbuf = calloc((size_t)maxbytes * size + 64, 1);
  rbuf = calloc((size_t)maxbytes * size + 64, 1);
  char *save;
  for (char *c = strtok_r(colls, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
    for (char *p = sizes; *p;) {
      long bytes = strtol(p, &p, 10);
      if (*p) p++;
      run(c, bytes, 3);
      /* calibrate */
      long iters = 1;
      double t = 0;
      for (;;) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        run(c, bytes, iters);
        t = MPI_Wtime() - t0;
        int done = t * 1e3 >= trial_ms / 4 || iters >= 100000;
        MPI_Bcast(&done, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (done) break;
        iters *= 2;
      }
      long n = (long)(iters * (trial_ms / 1e3) / (t > 0 ? t : 1e-6));
      if (n < 2) n = 2;
      MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
      double res[64];
      for (int k = 0; k < trials; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        run(c, bytes, n);
        double mine = (MPI_Wtime() - t0) / n, worst;
        MPI_Reduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        res[k] = worst;
      }
      if (rank == 0) {
        qsort(res, trials, sizeof res[0], cmp);
        printf("%s %ld %.2f\n", c, bytes, res[trials / 2] * 1e6);
        fflush(stdout);
      }
    }
  }
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
