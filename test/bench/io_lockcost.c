/* The cost of the shared byte-range lock that plain independent writes take when the file is
 * open on several processes and readable (src/mpi/io/independent.cc: it keeps a sieving
 * read-modify-write of another process from writing stale bytes over them). Every rank writes
 * N contiguous blocks of B bytes into its own region with MPI_File_write_at, once with the
 * file opened MPI_MODE_RDWR (locked: a sieve may run) and once MPI_MODE_WRONLY (no sieving, no
 * lock); the difference is the lock's cost. Times are the slowest rank's, medians over the
 * iterations.
 *
 * usage: io_lockcost [-b block bytes] [-n blocks] [-i iters] [-f path]
 * output: "iolock <rdwr|wronly> block B blocks N us T per_write_us W", then
 *         "iolock-cost block B per_write_us D ratio R" and "# io_lockcost: done" */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double run(const char *path, int amode, long b, long n, int iters, const char *buf) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_File fh;
  if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | amode, MPI_INFO_NULL, &fh) !=
      MPI_SUCCESS) {
    fprintf(stderr, "io_lockcost: cannot open %s\n", path);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  double t[101];
  for (int it = 0; it < iters; it++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long k = 0; k < n; k++)
      MPI_File_write_at(fh, (MPI_Offset)(rank * n + k) * b, buf, (int)b, MPI_BYTE,
                        MPI_STATUS_IGNORE);
    double el = MPI_Wtime() - t0, slowest = 0;
    MPI_Allreduce(&el, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    t[it] = slowest * 1e6;
  }
  MPI_File_close(&fh);
  qsort(t, iters, sizeof *t, cmp);
  return t[iters / 2];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long b = 4096, n = 10000;
  int iters = 5;
  char path[1024];
  snprintf(path, sizeof path, "%s/stmpi-io-lock.%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
           (int)getpid());
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-b") && i + 1 < argc) b = strtol(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "-n") && i + 1 < argc) n = strtol(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "-i") && i + 1 < argc) iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-f") && i + 1 < argc) snprintf(path, sizeof path, "%s", argv[++i]);
  }
  if (iters < 1 || iters > 101) iters = 5;
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  char *buf = malloc(b);
  memset(buf, rank + 1, b);
  /* alternate the order so that neither mode always runs on a warmer page cache */
  double rdwr = run(path, MPI_MODE_RDWR, b, n, iters, buf);
  double wronly = run(path, MPI_MODE_WRONLY, b, n, iters, buf);
  double rdwr2 = run(path, MPI_MODE_RDWR, b, n, iters, buf);
  if (rdwr2 < rdwr) rdwr = rdwr2;
  if (rank == 0) {
    printf("iolock rdwr block %ld blocks %ld us %.1f per_write_us %.3f\n", b, n, rdwr, rdwr / n);
    printf("iolock wronly block %ld blocks %ld us %.1f per_write_us %.3f\n", b, n, wronly,
           wronly / n);
    printf("iolock-cost block %ld per_write_us %.3f ratio %.2f\n", b, (rdwr - wronly) / n,
           rdwr / wronly);
    printf("# io_lockcost: done\n");
    unlink(path);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
