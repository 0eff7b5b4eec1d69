/* Small-message allreduce latency on all ranks of MPI_COMM_WORLD.
 *
 * Output (one line per size, times from rank 0):
 *   allreduce SIZE MEDIAN_US MIN_US MAX_US ITERS
 *       time per MPI_Allreduce (MPI_SUM) of SIZE bytes of 32-bit ints.
 * The sums are checked on every rank before timing.
 *
 * Usage: allreduce [-q] [-t TRIALS] [-m TRIAL_MS] [-T SECONDS] [-s SIZES]   (default size 8)
 */
#include "bench_common.h"

#define MAX_SIZES 64

struct allreduce_ctx {
  int rank, nranks, count;
  int *in, *out;
};

static double kernel_allreduce(void *c, long iters) {
  struct allreduce_ctx *p = (struct allreduce_ctx *)c;
  const double t0 = MPI_Wtime();
  for (long i = 0; i < iters; ++i)
    MPI_Allreduce(p->in, p->out, p->count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return MPI_Wtime() - t0;
}

/* Rank r contributes r + i at index i: the sum is n(n-1)/2 + n*i. */
static void check_allreduce(struct allreduce_ctx *p) {
  for (int i = 0; i < p->count; ++i) {
    p->in[i] = p->rank + i;
    p->out[i] = -1;
  }
  bench_check(MPI_Allreduce(p->in, p->out, p->count, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
              "MPI_Allreduce");
  const int n = p->nranks;
  for (int i = 0; i < p->count; ++i) {
    if (p->out[i] != n * (n - 1) / 2 + n * i)
      bench_fail("count %d: rank %d has %d at %d, want %d", p->count, p->rank, p->out[i], i,
                 n * (n - 1) / 2 + n * i);
  }
}

/* The options; returns how many sizes (bytes, multiples of 4) are in sizes[]. */
static int parse_args(int argc, char **argv, struct bench_opts *o, long *sizes) {
  int nsizes = 1;
  sizes[0] = 8;
  bench_default_opts(o);
  for (int i = 1; i < argc; ++i) {
    if (bench_common_arg(o, argc, argv, &i)) continue;
    if (strcmp(argv[i], "-s") != 0 || i + 1 >= argc)
      bench_fail("unknown argument '%s' (see the comment at the top of allreduce.c)", argv[i]);
    nsizes = bench_parse_list(argv[++i], sizes, MAX_SIZES);
  }
  for (int i = 0; i < nsizes; ++i) {
    if (sizes[i] < 4 || sizes[i] % 4 != 0 || sizes[i] > 1L << 24)
      bench_fail("size %ld: want a multiple of 4 from 4 to 16 MiB", sizes[i]);
  }
  return nsizes;
}

int main(int argc, char **argv) {
  long sizes[MAX_SIZES];
  struct bench_opts o;
  struct allreduce_ctx p;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &p.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p.nranks);
  const int nsizes = parse_args(argc, argv, &o, sizes);
  long largest = 4;
  for (int i = 0; i < nsizes; ++i) largest = sizes[i] > largest ? sizes[i] : largest;
  p.in = (int *)bench_alloc((size_t)largest);
  p.out = (int *)bench_alloc((size_t)largest);
  if (p.rank == 0) bench_print_header("allreduce", &o);
  for (int i = 0; i < nsizes; ++i) {
    p.count = (int)(sizes[i] / 4);
    check_allreduce(&p);
    struct bench_result r = measure(kernel_allreduce, &p, &o);
    if (p.rank == 0)
      printf("allreduce %ld %.3f %.3f %.3f %ld\n", sizes[i], r.median * 1e6, r.min * 1e6,
             r.max * 1e6, r.iters);
  }
  free(p.in);
  free(p.out);
  MPI_Finalize();
  return 0;
}
