/* Interleaved collective writes through aggregators: every rank owns every size-th block of B
 * bytes (a resized filetype), K blocks per rank, written by MPI_File_write_all with
 * romio_cb_write = enable, then MPI_File_sync. Times are the slowest rank's, medians over the
 * iterations. With STMPI_IO_TIMERS=yes STMPI prints per process where the time went
 * (exchange, file system, locks) at MPI_Finalize.
 *
 * With -c automatic and -k 1 every rank writes one disjoint block, so STMPI chooses between
 * aggregation and each rank writing its own block by STMPI_IO_DIRECT_MIN_BYTES (the sweep in
 * test/bench/io_direct.sh).
 *
 * usage: io_collwrite [-b block bytes] [-k blocks per rank] [-i iters] [-f path]
 *                    [-c romio_cb_write value, default enable]
 * output: "iocoll write block B blocks K ranks N us T MBps M", then "# io_collwrite: done" */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long b = 4096, k = 1024;
  int iters = 5;
  const char *cb = "enable";
  char path[1024];
  snprintf(path, sizeof path, "%s/stmpi-io-collw.%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
           (int)getpid());
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-b") && i + 1 < argc) b = strtol(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "-k") && i + 1 < argc) k = strtol(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "-i") && i + 1 < argc) iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-c") && i + 1 < argc) cb = argv[++i];
    else if (!strcmp(argv[i], "-f") && i + 1 < argc) snprintf(path, sizeof path, "%s", argv[++i]);
  }
  if (iters < 1 || iters > 101) iters = 5;
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  char *buf = malloc(b * k);
  memset(buf, rank + 1, b * k);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_cb_write", cb);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  MPI_Datatype block, cycle;
  MPI_Type_contiguous((int)b, MPI_BYTE, &block);
  MPI_Type_create_resized(block, 0, b * size, &cycle);
  MPI_Type_commit(&cycle);
  MPI_File_set_view(fh, (MPI_Offset)rank * b, MPI_BYTE, cycle, "native", info);
  double t[101];
  for (int it = 0; it < iters; it++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_File_write_at_all(fh, 0, buf, (int)(b * k), MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    double el = MPI_Wtime() - t0, slowest = 0;
    MPI_Allreduce(&el, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    t[it] = slowest * 1e6;
  }
  qsort(t, iters, sizeof *t, cmp);
  if (rank == 0) {
    double us = t[iters / 2];
    printf("iocoll write block %ld blocks %ld ranks %d us %.1f MBps %.1f\n", b, k, size, us,
           (double)b * k * size / us);
    printf("# io_collwrite: done\n");
  }
  MPI_File_close(&fh);
  if (rank == 0) unlink(path);
  MPI_Type_free(&cycle);
  MPI_Type_free(&block);
  MPI_Info_free(&info);
  free(buf);
  MPI_Finalize();
  return 0;
}
