/* Ping-pong latency and streaming bandwidth between ranks 0 and 1.
 *
 * Output (one line per measurement, times from rank 0):
 *   lat SIZE MEDIAN_US MIN_US MAX_US ITERS
 *       one-way latency = half the round trip of MPI_Send/MPI_Recv of SIZE
 *       bytes there and back (rank 1 returns what it received)
 *   bw SIZE MEDIAN_MBPS MIN_MBPS MAX_MBPS ITERS
 *       rank 0 MPI_Isends a window of W messages of SIZE bytes, rank 1 has
 *       W MPI_Irecvs into W distinct buffers; both MPI_Waitall, then rank 1
 *       sends a 4-byte ack. MB/s = 10^6 bytes/s of payload.
 * Lines starting with '#' are comments. Every message size is checked
 * (count and contents) before timing and the last timed message after each
 * trial; a mismatch aborts with an error.
 *
 * Usage: pingpong [-q] [-t TRIALS] [-m TRIAL_MS] [-T SECONDS] [-s SIZES] [-b SIZES] [-w WINDOW]
 *   SIZES: comma list, K/M suffixes allowed, e.g. -s 0,8,4K,1M.
 *   "-s none" or "-b none" skips that part.
 */
#include "bench_common.h"

#define TAG_LAT 11
#define TAG_BW 12
#define TAG_ACK 13
#define TAG_CHECK 14
#define MAX_SIZES 64

struct pp_ctx {
  int rank;
  int size; /* bytes per message */
  int window;
  char *sbuf;  /* rank 0 sends from here */
  char *rbuf;  /* rank 0 receives the echo / rank 1 receives the ping */
  char **rwin; /* rank 1: one buffer per window slot */
  MPI_Request *reqs;
};

static double kernel_lat(void *c, long iters) {
  struct pp_ctx *p = (struct pp_ctx *)c;
  const double t0 = MPI_Wtime();
  if (p->rank == 0) {
    for (long i = 0; i < iters; ++i) {
      MPI_Send(p->sbuf, p->size, MPI_BYTE, 1, TAG_LAT, MPI_COMM_WORLD);
      MPI_Recv(p->rbuf, p->size, MPI_BYTE, 1, TAG_LAT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  } else if (p->rank == 1) {
    for (long i = 0; i < iters; ++i) {
      MPI_Recv(p->rbuf, p->size, MPI_BYTE, 0, TAG_LAT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(p->rbuf, p->size, MPI_BYTE, 0, TAG_LAT, MPI_COMM_WORLD);
    }
  }
  return MPI_Wtime() - t0;
}

static double kernel_bw(void *c, long iters) {
  struct pp_ctx *p = (struct pp_ctx *)c;
  int ack = 0;
  const double t0 = MPI_Wtime();
  if (p->rank == 0) {
    for (long i = 0; i < iters; ++i) {
      for (int w = 0; w < p->window; ++w)
        MPI_Isend(p->sbuf, p->size, MPI_BYTE, 1, TAG_BW, MPI_COMM_WORLD, &p->reqs[w]);
      MPI_Waitall(p->window, p->reqs, MPI_STATUSES_IGNORE);
      MPI_Recv(&ack, 1, MPI_INT, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  } else if (p->rank == 1) {
    for (long i = 0; i < iters; ++i) {
      for (int w = 0; w < p->window; ++w)
        MPI_Irecv(p->rwin[w], p->size, MPI_BYTE, 0, TAG_BW, MPI_COMM_WORLD, &p->reqs[w]);
      MPI_Waitall(p->window, p->reqs, MPI_STATUSES_IGNORE);
      MPI_Send(&ack, 1, MPI_INT, 0, TAG_ACK, MPI_COMM_WORLD);
    }
  }
  return MPI_Wtime() - t0;
}

/* One checked exchange of `size` bytes: 0 -> 1 -> 0, with counts and
 * contents verified on both sides. */
static void check_exchange(struct pp_ctx *p) {
  MPI_Status st;
  int count = -1;
  long bad;
  if (p->rank == 0) {
    memset(p->rbuf, 0, (size_t)p->size);
    MPI_Send(p->sbuf, p->size, MPI_BYTE, 1, TAG_CHECK, MPI_COMM_WORLD);
    bench_check(MPI_Recv(p->rbuf, p->size, MPI_BYTE, 1, TAG_CHECK, MPI_COMM_WORLD, &st),
                "MPI_Recv");
    MPI_Get_count(&st, MPI_BYTE, &count);
    if (count != p->size || st.MPI_SOURCE != 1 || st.MPI_TAG != TAG_CHECK)
      bench_fail("size %d: echo has count %d source %d tag %d", p->size, count, st.MPI_SOURCE,
                 st.MPI_TAG);
    if ((bad = bench_verify(p->rbuf, (size_t)p->size, (unsigned)p->size)) >= 0)
      bench_fail("size %d: echo differs at byte %ld", p->size, bad);
  } else if (p->rank == 1) {
    memset(p->rbuf, 0, (size_t)p->size);
    bench_check(MPI_Recv(p->rbuf, p->size, MPI_BYTE, 0, TAG_CHECK, MPI_COMM_WORLD, &st),
                "MPI_Recv");
    MPI_Get_count(&st, MPI_BYTE, &count);
    if (count != p->size || st.MPI_SOURCE != 0 || st.MPI_TAG != TAG_CHECK)
      bench_fail("size %d: ping has count %d source %d tag %d", p->size, count, st.MPI_SOURCE,
                 st.MPI_TAG);
    if ((bad = bench_verify(p->rbuf, (size_t)p->size, (unsigned)p->size)) >= 0)
      bench_fail("size %d: ping differs at byte %ld", p->size, bad);
    MPI_Send(p->rbuf, p->size, MPI_BYTE, 0, TAG_CHECK, MPI_COMM_WORLD);
  }
}

int main(int argc, char **argv) {
  static const long default_lat[] = {0, 8, 64, 512, 4096, 16384, 65536, 262144, 1048576, 4194304};
  static const long default_bw[] = {65536, 1048576, 4194304};
  long lat_sizes[MAX_SIZES], bw_sizes[MAX_SIZES];
  int nlat = 10, nbw = 3, nranks, window = 64;
  struct bench_opts o;
  struct pp_ctx p;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &p.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  bench_default_opts(&o);
  memcpy(lat_sizes, default_lat, sizeof default_lat);
  memcpy(bw_sizes, default_bw, sizeof default_bw);
  for (int i = 1; i < argc; ++i) {
    if (bench_common_arg(&o, argc, argv, &i)) continue;
    if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
      ++i;
      nlat = strcmp(argv[i], "none") == 0 ? 0 : bench_parse_list(argv[i], lat_sizes, MAX_SIZES);
    } else if (strcmp(argv[i], "-b") == 0 && i + 1 < argc) {
      ++i;
      nbw = strcmp(argv[i], "none") == 0 ? 0 : bench_parse_list(argv[i], bw_sizes, MAX_SIZES);
    } else if (strcmp(argv[i], "-w") == 0 && i + 1 < argc) {
      window = atoi(argv[++i]);
      if (window < 1) bench_fail("-w wants a positive window");
    } else {
      bench_fail("unknown argument '%s' (see the comment at the top of pingpong.c)", argv[i]);
    }
  }
  if (nranks != 2) bench_fail("run with exactly 2 ranks (got %d)", nranks);

  long max_size = 0;
  for (int i = 0; i < nlat; ++i) max_size = lat_sizes[i] > max_size ? lat_sizes[i] : max_size;
  for (int i = 0; i < nbw; ++i) max_size = bw_sizes[i] > max_size ? bw_sizes[i] : max_size;
  if (max_size > 1L << 30) bench_fail("sizes above 1 GiB are not supported");
  p.window = window;
  p.sbuf = (char *)bench_alloc((size_t)max_size);
  p.rbuf = (char *)bench_alloc((size_t)max_size);
  p.reqs = (MPI_Request *)malloc(sizeof(MPI_Request) * (size_t)window);
  p.rwin = (char **)malloc(sizeof(char *) * (size_t)window);
  long max_bw = 0;
  for (int i = 0; i < nbw; ++i) max_bw = bw_sizes[i] > max_bw ? bw_sizes[i] : max_bw;
  for (int w = 0; w < window; ++w)
    p.rwin[w] = p.rank == 1 && nbw > 0 ? (char *)bench_alloc((size_t)max_bw) : NULL;

  if (p.rank == 0) {
    bench_print_header("pingpong", &o);
    printf(
        "# pingpong: lat SIZE median_us min_us max_us iters | bw SIZE median_MBps min_MBps "
        "max_MBps iters (window %d)\n",
        window);
    fflush(stdout);
  }

  for (int s = 0; s < nlat; ++s) {
    p.size = (int)lat_sizes[s];
    bench_fill(p.sbuf, (size_t)p.size, (unsigned)p.size);
    check_exchange(&p);
    memset(p.rbuf, 0, (size_t)p.size); /* the timed echoes must refill it */
    struct bench_result r = measure(kernel_lat, &p, &o);
    if (p.rank == 0) {
      long bad = bench_verify(p.rbuf, (size_t)p.size, (unsigned)p.size);
      if (bad >= 0) bench_fail("lat size %d: last echo differs at byte %ld", p.size, bad);
      printf("lat %d %.3f %.3f %.3f %ld\n", p.size, r.median * 0.5e6, r.min * 0.5e6, r.max * 0.5e6,
             r.iters);
      fflush(stdout);
    }
  }

  for (int s = 0; s < nbw; ++s) {
    p.size = (int)bw_sizes[s];
    bench_fill(p.sbuf, (size_t)p.size, (unsigned)p.size);
    check_exchange(&p);
    if (p.rank == 1)
      for (int w = 0; w < window; ++w) memset(p.rwin[w], 0, (size_t)p.size);
    struct bench_result r = measure(kernel_bw, &p, &o);
    if (p.rank == 1) {
      for (int w = 0; w < window; ++w) {
        long bad = bench_verify(p.rwin[w], (size_t)p.size, (unsigned)p.size);
        if (bad >= 0) bench_fail("bw size %d: window slot %d differs at byte %ld", p.size, w, bad);
      }
    }
    if (p.rank == 0) {
      const double bytes = (double)p.size * window;
      /* The fastest trial has the highest bandwidth. */
      printf("bw %d %.1f %.1f %.1f %ld\n", p.size, bytes / r.median / 1e6, bytes / r.max / 1e6,
             bytes / r.min / 1e6, r.iters);
      fflush(stdout);
    }
  }

  MPI_Barrier(MPI_COMM_WORLD);
  if (p.rank == 0) printf("# pingpong: done\n");
  fflush(stdout); /* seen by drivers that stop a run hung in MPI_Finalize */
  for (int w = 0; w < window; ++w) free(p.rwin[w]);
  free(p.rwin);
  free(p.reqs);
  free(p.sbuf);
  free(p.rbuf);
  MPI_Finalize();
  return 0;
}
