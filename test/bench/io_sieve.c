/* Data sieving against one call per piece, for noncontiguous independent access: each rank
 * writes (then reads) N pieces of P bytes separated by holes of H bytes, through a file view
 * (an hvector filetype), with romio_ds_write / romio_ds_read = enable (read the covering
 * extent, patch or pick the pieces), = disable (one pwrite / pread per piece) and unset (the
 * library's automatic choice, "ds auto"). Every rank
 * uses its own file region; times are the slowest rank's, medians over the iterations.
 *
 * usage: io_sieve [-p pieces list] [-g holes list] [-d data bytes per access] [-i iters]
 *                 [-f path]        (lists are comma separated byte counts)
 * output: "iosieve <write|read> piece P hole H pieces N ds <on|off|auto> us T", then a line
 *         "iosieve-best <write|read> piece P hole H <sieve|calls> ratio R auto/best A" per
 *         (P, H) (R: the slower forced choice over the faster; A: automatic over the faster), and
 *         "# io_sieve: done" */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int parse_list(const char *s, long *out, int max) {
  int n = 0;
  while (*s && n < max) {
    out[n++] = strtol(s, (char **)&s, 0);
    if (*s == ',') s++;
  }
  return n;
}

/* One access of `n` pieces of `p` bytes with holes of `h` bytes, ds on or off; the slowest
 * rank's median time in microseconds. Each rank's region is at most 64 MiB (fewer pieces for
 * large holes). */
static double run(const char *path, int write, long p, long h, long n, int ds, int iters,
                  char *buf) {
  MPI_Info info;
  MPI_Info_create(&info);
  if (ds >= 0) /* else the library's own choice */
    MPI_Info_set(info, write ? "romio_ds_write" : "romio_ds_read", ds ? "enable" : "disable");
  MPI_File fh;
  if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh) !=
      MPI_SUCCESS) {
    fprintf(stderr, "io_sieve: cannot open %s\n", path);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Datatype ft;
  MPI_Type_create_hvector((int)n, (int)p, p + h, MPI_BYTE, &ft);
  MPI_Type_commit(&ft);
  MPI_Offset region = (MPI_Offset)n * (p + h);
  MPI_File_set_view(fh, region * rank, MPI_BYTE, ft, "native", info);
  double t[101];
  for (int it = 0; it < iters; it++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (write) MPI_File_write_at(fh, 0, buf, (int)(n * p), MPI_BYTE, MPI_STATUS_IGNORE);
    else MPI_File_read_at(fh, 0, buf, (int)(n * p), MPI_BYTE, MPI_STATUS_IGNORE);
    double el = MPI_Wtime() - t0, slowest = 0;
    MPI_Allreduce(&el, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    t[it] = slowest * 1e6;
  }
  MPI_File_close(&fh);
  MPI_Type_free(&ft);
  MPI_Info_free(&info);
  return median(t, iters);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long pieces[16] = {64, 1024, 16384}, holes[16] = {64, 1024, 16384, 65536, 262144};
  int np = 3, nh = 5, iters = 5;
  long data = 1L << 20;
  char path[1024];
  snprintf(path, sizeof path, "%s/stmpi-io-sieve.%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
           (int)getpid());
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-p") && i + 1 < argc) np = parse_list(argv[++i], pieces, 16);
    else if (!strcmp(argv[i], "-g") && i + 1 < argc) nh = parse_list(argv[++i], holes, 16);
    else if (!strcmp(argv[i], "-d") && i + 1 < argc) data = strtol(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "-i") && i + 1 < argc) iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-f") && i + 1 < argc) snprintf(path, sizeof path, "%s", argv[++i]);
  }
  if (iters < 1 || iters > 101) iters = 5;
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  char *buf = malloc(data);
  for (long i = 0; i < data; i++) buf[i] = (char)(i * 7 + rank);
  for (int a = 0; a < np; a++)
    for (int b = 0; b < nh; b++) {
      long p = pieces[a], h = holes[b], n = data / p;
      if (n * (p + h) > (64L << 20)) n = (64L << 20) / (p + h); /* regions of 64 MiB at most */
      if (n < 2) continue;
      for (int write = 1; write >= 0; write--) {
        double on = run(path, write, p, h, n, 1, iters, buf);
        double off = run(path, write, p, h, n, 0, iters, buf);
        double dflt = run(path, write, p, h, n, -1, iters, buf);
        if (rank == 0) {
          const char *op = write ? "write" : "read";
          printf("iosieve %s piece %ld hole %ld pieces %ld ds on us %.1f\n", op, p, h, n, on);
          printf("iosieve %s piece %ld hole %ld pieces %ld ds off us %.1f\n", op, p, h, n, off);
          printf("iosieve %s piece %ld hole %ld pieces %ld ds auto us %.1f\n", op, p, h, n, dflt);
          printf("iosieve-best %s piece %ld hole %ld %s ratio %.2f auto/best %.2f\n", op, p, h,
                 on <= off ? "sieve" : "calls", on <= off ? off / on : on / off,
                 dflt / (on <= off ? on : off));
          fflush(stdout);
        }
      }
      if (rank == 0) unlink(path);
      MPI_Barrier(MPI_COMM_WORLD);
    }
  if (rank == 0) printf("# io_sieve: done\n");
  free(buf);
  MPI_Finalize();
  return 0;
}
