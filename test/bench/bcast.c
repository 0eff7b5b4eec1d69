/* Small-message broadcast latency on all ranks of MPI_COMM_WORLD.
 *
 * Output (one line per size, times from rank 0):
 *   bcast SIZE MEDIAN_US MIN_US MAX_US ITERS
 *       time per MPI_Bcast of SIZE bytes from a root that rotates over the
 *       ranks every iteration (so that no rank can run ahead unboundedly and
 *       every rank is a receiver most of the time, as in osu_bcast with a
 *       barrier-free loop).
 * The contents of every size are checked on every rank before timing.
 *
 * Usage: bcast [-q] [-t TRIALS] [-m TRIAL_MS] [-T SECONDS] [-s SIZES]   (default sizes 1,64,4K)
 */
#include "bench_common.h"

#define MAX_SIZES 64

struct bcast_ctx {
  int rank, nranks, size;
  char *buf;
};

static double kernel_bcast(void *c, long iters) {
  struct bcast_ctx *p = (struct bcast_ctx *)c;
  const double t0 = MPI_Wtime();
  for (long i = 0; i < iters; ++i)
    MPI_Bcast(p->buf, p->size, MPI_BYTE, (int)(i % p->nranks), MPI_COMM_WORLD);
  return MPI_Wtime() - t0;
}

static void check_bcast(struct bcast_ctx *p) {
  for (int root = 0; root < p->nranks; ++root) {
    if (p->rank == root) bench_fill(p->buf, (size_t)p->size, (unsigned)(p->size + root));
    else memset(p->buf, 0, (size_t)p->size);
    bench_check(MPI_Bcast(p->buf, p->size, MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
    long bad = bench_verify(p->buf, (size_t)p->size, (unsigned)(p->size + root));
    if (bad >= 0)
      bench_fail("size %d root %d: rank %d differs at byte %ld", p->size, root, p->rank, bad);
  }
}

int main(int argc, char **argv) {
  long sizes[MAX_SIZES] = {1, 64, 4096};
  int nsizes = 3;
  struct bench_opts o;
  struct bcast_ctx p;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &p.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p.nranks);
  bench_default_opts(&o);
  for (int i = 1; i < argc; ++i) {
    if (bench_common_arg(&o, argc, argv, &i)) continue;
    if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
      nsizes = bench_parse_list(argv[++i], sizes, MAX_SIZES);
    } else {
      bench_fail("unknown argument '%s' (see the comment at the top of bcast.c)", argv[i]);
    }
  }
  long max_size = 1;
  for (int i = 0; i < nsizes; ++i) max_size = sizes[i] > max_size ? sizes[i] : max_size;
  if (max_size > 1L << 24) bench_fail("sizes above 16 MiB are not supported");
  p.buf = (char *)bench_alloc((size_t)max_size);
  if (p.rank == 0) bench_print_header("bcast", &o);
  for (int i = 0; i < nsizes; ++i) {
    p.size = (int)sizes[i];
    check_bcast(&p);
    struct bench_result r = measure(kernel_bcast, &p, &o);
    if (p.rank == 0)
      printf("bcast %d %.3f %.3f %.3f %ld\n", p.size, r.median * 1e6, r.min * 1e6, r.max * 1e6,
             r.iters);
  }
  free(p.buf);
  MPI_Finalize();
  return 0;
}
