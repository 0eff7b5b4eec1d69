/* One-sided latency and bandwidth between ranks 0 (origin) and 1 (target),
 * for each synchronization mode and operation.
 *
 * Output (times from rank 0, medians over trials; see bench_common.h):
 *   rmalat SYNC OP SIZE MEDIAN_US MIN_US MAX_US ITERS
 *       one epoch with one operation of SIZE bytes:
 *         fence   MPI_Put/Get/Accumulate + MPI_Win_fence (both ranks fence)
 *         pscw    origin: start, op, complete; target: post, wait
 *         lock    origin: lock(exclusive), op, unlock; the target only
 *                 waits in the benchmark's next collective
 *         flush   inside one MPI_Win_lock_all: op + MPI_Win_flush
 *   rmabw SYNC OP SIZE MEDIAN_MBPS MIN MAX ITERS
 *       one epoch with WINDOW operations of SIZE bytes each; MB/s = 10^6 B/s
 *   lockget SHARED|EXCLUSIVE 8 MEDIAN_US MIN MAX ITERS
 *       uncontended MPI_Win_lock + MPI_Get of 8 bytes + MPI_Win_unlock
 * OP is put, get or acc (MPI_Accumulate, MPI_SUM on MPI_DOUBLE). The window
 * is made by MPI_Win_allocate (-c: MPI_Win_create over malloc'd memory).
 * Every (sync, op, size) is checked once before timing: the target's window
 * (or the origin's buffer for get) holds the expected bytes afterwards.
 *
 * Usage: rma_lat [-q] [-t TRIALS] [-m TRIAL_MS] [-s SIZES] [-b SIZES]
 *                [-y SYNCS] [-o OPS] [-w WINDOW] [-c]
 *   SIZES: comma list with K/M suffixes; "-b none" skips bandwidth.
 *   SYNCS: subset of fence,pscw,lock,flush; OPS: subset of put,get,acc. */
#include "bench_common.h"

#define MAX_SIZES 32

enum sync_mode { FENCE, PSCW, LOCK, FLUSH, NSYNC };
enum op_kind { PUT, GET, ACC, NOP };
static const char *sync_names[NSYNC] = {"fence", "pscw", "lock", "flush"};
static const char *op_names[NOP] = {"put", "get", "acc"};

struct ctx {
  int rank;
  MPI_Win win;
  char *winbuf;   /* this rank's window memory */
  char *buf;      /* origin buffer */
  MPI_Group peer; /* group of the other rank */
  enum sync_mode sync;
  enum op_kind op;
  long size;
  int count; /* operations per epoch */
  int lock_type;
};

static void do_op(struct ctx *c, int i) {
  const long off = (long)i * c->size;
  switch (c->op) {
    case PUT:
      MPI_Put(c->buf + off, (int)c->size, MPI_BYTE, 1, off, (int)c->size, MPI_BYTE, c->win);
      break;
    case GET:
      MPI_Get(c->buf + off, (int)c->size, MPI_BYTE, 1, off, (int)c->size, MPI_BYTE, c->win);
      break;
    case ACC:
      MPI_Accumulate(c->buf + off, (int)(c->size / 8), MPI_DOUBLE, 1, off, (int)(c->size / 8),
                     MPI_DOUBLE, MPI_SUM, c->win);
      break;
    default: break;
  }
}

/* The fence and flush modes keep an epoch open across iterations. */
static void open_mode(struct ctx *c) {
  if (c->sync == FENCE) MPI_Win_fence(0, c->win);
  if (c->sync == FLUSH && c->rank == 0) MPI_Win_lock_all(0, c->win);
}

static void close_mode(struct ctx *c) {
  if (c->sync == FENCE) MPI_Win_fence(0, c->win);
  if (c->sync == FLUSH && c->rank == 0) MPI_Win_unlock_all(c->win);
}

static void epoch(struct ctx *c) {
  switch (c->sync) {
    case FENCE:
      if (c->rank == 0)
        for (int i = 0; i < c->count; ++i) do_op(c, i);
      MPI_Win_fence(0, c->win);
      break;
    case PSCW:
      if (c->rank == 0) {
        MPI_Win_start(c->peer, 0, c->win);
        for (int i = 0; i < c->count; ++i) do_op(c, i);
        MPI_Win_complete(c->win);
      } else {
        MPI_Win_post(c->peer, 0, c->win);
        MPI_Win_wait(c->win);
      }
      break;
    case LOCK:
      if (c->rank == 0) {
        MPI_Win_lock(c->lock_type, 1, 0, c->win);
        for (int i = 0; i < c->count; ++i) do_op(c, i);
        MPI_Win_unlock(1, c->win);
      }
      break;
    case FLUSH:
      if (c->rank == 0) {
        for (int i = 0; i < c->count; ++i) do_op(c, i);
        MPI_Win_flush(1, c->win);
      }
      break;
    default: break;
  }
}

static double kernel(void *p, long iters) {
  struct ctx *c = (struct ctx *)p;
  open_mode(c);
  const double t0 = MPI_Wtime();
  for (long i = 0; i < iters; ++i) epoch(c);
  const double t = MPI_Wtime() - t0;
  close_mode(c);
  return t;
}

/* One checked epoch: fill, transfer, compare. */
static void verify(struct ctx *c) {
  const long bytes = c->size * c->count;
  const unsigned seed = (unsigned)(c->sync * 16 + c->op * 4 + 1);
  double *d = (double *)c->buf, *w = (double *)c->winbuf;
  /* measure() ends without a barrier: the origin may still be timing. */
  MPI_Barrier(MPI_COMM_WORLD);
  if (c->op == ACC) {
    for (long i = 0; i < bytes / 8; ++i) d[i] = (double)(i % 17);
    if (c->rank == 1)
      for (long i = 0; i < bytes / 8; ++i) w[i] = 1.0;
  } else if (c->op == PUT) {
    bench_fill(c->buf, bytes, seed);
  } else {
    if (c->rank == 1) bench_fill(c->winbuf, bytes, seed);
    memset(c->buf, 0, bytes);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  open_mode(c);
  epoch(c);
  close_mode(c);
  MPI_Barrier(MPI_COMM_WORLD);
  long bad = -1;
  if (c->op == PUT && c->rank == 1) bad = bench_verify(c->winbuf, bytes, seed);
  if (c->op == GET && c->rank == 0) bad = bench_verify(c->buf, bytes, seed);
  if (c->op == ACC && c->rank == 1)
    for (long i = 0; i < bytes / 8 && bad < 0; ++i)
      if (w[i] != 1.0 + (double)(i % 17)) bad = i;
  if (bad >= 0)
    bench_fail("%s %s of %ld bytes: wrong data at %ld", sync_names[c->sync], op_names[c->op],
               c->size, bad);
  /* The target checks before the origin's next timed operations arrive. */
  MPI_Barrier(MPI_COMM_WORLD);
}

static int in_list(const char *list, const char *name) {
  const size_t n = strlen(name);
  for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
    if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
  return 0;
}

int main(int argc, char **argv) {
  struct bench_opts o;
  long lat_sizes[MAX_SIZES], bw_sizes[MAX_SIZES];
  int nlat = 0, nbw = 0, window = 32, use_create = 0;
  const char *syncs = "fence,pscw,lock,flush", *ops = "put,get,acc";
  MPI_Init(&argc, &argv);
  bench_default_opts(&o);
  nlat = bench_parse_list("8,64,512,4K,32K,256K,1M", lat_sizes, MAX_SIZES);
  nbw = bench_parse_list("4K,64K,1M", bw_sizes, MAX_SIZES);
  for (int i = 1; i < argc; ++i) {
    if (bench_common_arg(&o, argc, argv, &i)) continue;
    if (!strcmp(argv[i], "-s") && i + 1 < argc)
      nlat = !strcmp(argv[++i], "none") ? 0 : bench_parse_list(argv[i], lat_sizes, MAX_SIZES);
    else if (!strcmp(argv[i], "-b") && i + 1 < argc)
      nbw = !strcmp(argv[++i], "none") ? 0 : bench_parse_list(argv[i], bw_sizes, MAX_SIZES);
    else if (!strcmp(argv[i], "-y") && i + 1 < argc) syncs = argv[++i];
    else if (!strcmp(argv[i], "-o") && i + 1 < argc) ops = argv[++i];
    else if (!strcmp(argv[i], "-w") && i + 1 < argc) window = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-c")) use_create = 1;
    else bench_fail("unknown argument '%s'", argv[i]);
  }
  struct ctx c;
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) bench_fail("rma_lat runs on 2 ranks");
  long most = 8;
  for (int i = 0; i < nlat; ++i) most = lat_sizes[i] > most ? lat_sizes[i] : most;
  for (int i = 0; i < nbw; ++i) most = bw_sizes[i] * window > most ? bw_sizes[i] * window : most;
  c.buf = bench_alloc(most);
  if (use_create) {
    c.winbuf = bench_alloc(most);
    bench_check(MPI_Win_create(c.winbuf, most, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c.win),
                "MPI_Win_create");
  } else {
    bench_check(MPI_Win_allocate(most, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c.winbuf, &c.win),
                "MPI_Win_allocate");
    memset(c.winbuf, 0, most);
  }
  MPI_Group world;
  int other = 1 - c.rank;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &other, &c.peer);
  MPI_Group_free(&world);
  c.lock_type = MPI_LOCK_EXCLUSIVE;
  if (c.rank == 0) {
    bench_print_header("rma_lat", &o);
    printf("# rma_lat: window by %s, %d operations per epoch for bandwidth\n",
           use_create ? "MPI_Win_create" : "MPI_Win_allocate", window);
  }
  for (int s = 0; s < NSYNC; ++s) {
    if (!in_list(syncs, sync_names[s])) continue;
    for (int op = 0; op < NOP; ++op) {
      if (!in_list(ops, op_names[op])) continue;
      c.sync = (enum sync_mode)s;
      c.op = (enum op_kind)op;
      for (int k = 0; k < nlat + nbw; ++k) {
        const int is_bw = k >= nlat;
        c.size = is_bw ? bw_sizes[k - nlat] : lat_sizes[k];
        if (c.op == ACC && c.size % 8) continue;
        c.count = is_bw ? window : 1;
        verify(&c);
        struct bench_result r = measure(kernel, &c, &o);
        if (c.rank == 0) {
          if (is_bw) {
            const double mb = (double)c.size * c.count / 1e6;
            printf("rmabw %s %s %ld %.1f %.1f %.1f %ld\n", sync_names[s], op_names[op], c.size,
                   mb / r.median, mb / r.max, mb / r.min, r.iters);
          } else {
            printf("rmalat %s %s %ld %.3f %.3f %.3f %ld\n", sync_names[s], op_names[op], c.size,
                   r.median * 1e6, r.min * 1e6, r.max * 1e6, r.iters);
          }
          fflush(stdout);
        }
      }
    }
  }
  /* Uncontended lock + 8-byte get + unlock, shared and exclusive. */
  c.sync = LOCK;
  c.op = GET;
  c.size = 8;
  c.count = 1;
  for (int t = 0; t < 2; ++t) {
    c.lock_type = t == 0 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE;
    struct bench_result r = measure(kernel, &c, &o);
    if (c.rank == 0)
      printf("lockget %s 8 %.3f %.3f %.3f %ld\n", t == 0 ? "shared" : "exclusive", r.median * 1e6,
             r.min * 1e6, r.max * 1e6, r.iters);
  }
  if (c.rank == 0) printf("# rma_lat: done\n");
  fflush(stdout); /* seen by drivers that stop a run hung in MPI_Finalize */
  MPI_Group_free(&c.peer);
  MPI_Win_free(&c.win);
  MPI_Finalize();
  return 0;
}
