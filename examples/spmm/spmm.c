/* spmm: C = A x B with A sparse and B, C dense, on a 2-D grid of tiles over
 * the processes, by four algorithms (see README.md): bulk-synchronous SUMMA,
 * stationary C with one-sided gets, the same with work stealing, and
 * stationary A with remote accumulation. Each run is checked against a
 * serial multiply; --stats prints what every process fetched, computed,
 * stole and waited for. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spmm.h"

typedef struct Options {
  const char *variant, *matrix;
  int scale, width, edge_factor, row_tiles, k_tiles, imbalance, reps, stats, create, gpu;
} Options;

static void usage(void) {
  fprintf(
      stderr,
      "usage: spmm [--variant summa|async|steal|accum|all] [--matrix "
      "rmat|uniform|banded|FILE.mtx]\n"
      "            [--scale S] [--width W] [--edge-factor E] [--tiles R,K] [--imbalance F]\n"
      "            [--reps N] [--window allocate|create] [--gpu] [--stats]\n"
      "  A has 2^S rows (generators), B and C have W columns; R and K multiply the tile rows\n"
      "  and tile steps per process; F makes the work of C tile row 0 cost F times more.\n"
      "  --window create exposes malloc'd memory (MPI_Win_create) instead of MPI_Win_allocate.\n"
      "  --gpu runs the local multiplies on a CUDA device (a build with make GPU=1).\n");
}

static int parse(int argc, char **argv, Options *o) {
  *o = (Options){"all", "rmat", 10, 32, 8, 2, 2, 1, 3, 0, 0, 0};
  for (int a = 1; a < argc; ++a) {
    const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
    if (strcmp(arg, "--stats") == 0) {
      o->stats = 1;
      continue;
    }
    if (strcmp(arg, "--gpu") == 0) {
      o->gpu = 1;
      continue;
    }
    if (!val) return -1;
    ++a;
    if (strcmp(arg, "--variant") == 0) o->variant = val;
    else if (strcmp(arg, "--matrix") == 0) o->matrix = val;
    else if (strcmp(arg, "--scale") == 0) o->scale = atoi(val);
    else if (strcmp(arg, "--width") == 0) o->width = atoi(val);
    else if (strcmp(arg, "--edge-factor") == 0) o->edge_factor = atoi(val);
    else if (strcmp(arg, "--imbalance") == 0) o->imbalance = atoi(val);
    else if (strcmp(arg, "--reps") == 0) o->reps = atoi(val);
    else if (strcmp(arg, "--window") == 0) {
      if (strcmp(val, "create") != 0 && strcmp(val, "allocate") != 0) return -1;
      o->create = strcmp(val, "create") == 0;
    } else if (strcmp(arg, "--tiles") == 0) {
      if (sscanf(val, "%d,%d", &o->row_tiles, &o->k_tiles) != 2) return -1;
    } else return -1;
  }
  if (o->scale < 1 || o->scale > 26 || o->width < 1 || o->edge_factor < 1 || o->row_tiles < 1 ||
      o->k_tiles < 1 || o->imbalance < 1 || o->reps < 1)
    return -1;
  return 0;
}

/* B's entries are a function of their position, so nobody has to send them. */
static double b_value(int row, int col) {
  return 1.0 + (double)((row * 31 + col * 17) % 23) / 23.0;
}

static int gcd(int a, int b) { return b ? gcd(b, a % b) : a; }

void multiply_tiles(const Problem *p, Stats *s, int i, int k, int j, const void *a, const double *b,
                    double *c) {
  double t = MPI_Wtime();
  const int rows = tile_rows(p, i), width = tile_width(p, j);
  const long nnz = p->a_nnz[i * p->kt + k];
  const int repeats = i == 0 ? p->imbalance : 1;
  for (int r = 0; r < repeats; ++r) {
    double *out = r == 0 ? c : p->scratch;
    if (p->gpu)
      gpu_multiply(a, tile_bytes(rows, nnz), tile_values_offset(rows, nnz), rows, tile_depth(p, k),
                   nnz, b, width, out);
    else tile_multiply(a, rows, nnz, b, width, width, out, width);
    s->flops += 2.0 * (double)nnz * width;
  }
  s->t_comp += MPI_Wtime() - t;
}

/* Exposes bytes of memory in a window and opens the passive epoch every
 * variant works in. */
static MPI_Win make_window(Problem *p, MPI_Aint bytes, int unit, void *base) {
  MPI_Win win;
  if (bytes <= 0) bytes = 8;
  if (p->create) {
    void *mem = malloc((size_t)bytes);
    p->created[p->windows] = mem;
    *(void **)base = mem;
    MPI_Win_create(mem, bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  } else {
    MPI_Win_allocate(bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD, base, &win);
  }
  p->windows++;
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  return win;
}

/* Cuts A, B and C into tiles, works out every tile's owner and offset, and
 * exposes this process's tiles in windows. */
static void setup(Problem *p, const Options *o) {
  MPI_Comm_rank(MPI_COMM_WORLD, &p->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p->size);
  p->pr = 1;
  for (int d = 1; d * d <= p->size; ++d)
    if (p->size % d == 0) p->pr = d;
  p->pc = p->size / p->pr;
  p->my_r = p->rank / p->pc;
  p->my_c = p->rank % p->pc;
  p->width = o->width;
  p->imbalance = o->imbalance;
  p->create = o->create;
  p->mt = p->pr * o->row_tiles;
  p->kt = p->pr / gcd(p->pr, p->pc) * p->pc * o->k_tiles;
  p->nt = p->pc;
  const int m = p->a.rows, depth = p->a.cols;
  p->rb = malloc(sizeof(int) * (size_t)(p->mt + 1));
  p->kb = malloc(sizeof(int) * (size_t)(p->kt + 1));
  p->cb = malloc(sizeof(int) * (size_t)(p->nt + 1));
  for (int i = 0; i <= p->mt; ++i) p->rb[i] = (int)((long)i * m / p->mt);
  for (int k = 0; k <= p->kt; ++k) p->kb[k] = (int)((long)k * depth / p->kt);
  for (int j = 0; j <= p->nt; ++j) p->cb[j] = (int)((long)j * p->width / p->nt);

  /* nnz of every A tile in one pass over A. */
  p->a_nnz = calloc((size_t)p->mt * (size_t)p->kt, sizeof(long));
  int *k_of_col = malloc(sizeof(int) * (size_t)(depth + 1));
  for (int k = 0; k < p->kt; ++k)
    for (int c = p->kb[k]; c < p->kb[k + 1]; ++c) k_of_col[c] = k;
  for (int i = 0; i < p->mt; ++i)
    for (long e = p->a.rowptr[p->rb[i]]; e < p->a.rowptr[p->rb[i + 1]]; ++e)
      p->a_nnz[i * p->kt + k_of_col[p->a.col[e]]]++;
  free(k_of_col);

  /* Offsets: each owner lays its tiles out in tile order. */
  MPI_Aint *a_used = calloc((size_t)p->size, sizeof(MPI_Aint)),
           *b_used = calloc((size_t)p->size, sizeof(MPI_Aint)),
           *c_used = calloc((size_t)p->size, sizeof(MPI_Aint));
  p->a_off = malloc(sizeof(MPI_Aint) * (size_t)(p->mt * p->kt));
  p->b_off = malloc(sizeof(MPI_Aint) * (size_t)(p->kt * p->nt));
  p->c_off = malloc(sizeof(MPI_Aint) * (size_t)(p->mt * p->nt));
  p->a_max = p->b_max = p->c_max = 0;
  for (int i = 0; i < p->mt; ++i)
    for (int k = 0; k < p->kt; ++k) {
      const size_t bytes = tile_bytes(tile_rows(p, i), p->a_nnz[i * p->kt + k]);
      const int owner = owner_a(p, i, k);
      p->a_off[i * p->kt + k] = a_used[owner];
      a_used[owner] += (MPI_Aint)bytes;
      if (bytes > p->a_max) p->a_max = bytes;
    }
  for (int k = 0; k < p->kt; ++k)
    for (int j = 0; j < p->nt; ++j) {
      const size_t count = (size_t)tile_depth(p, k) * (size_t)tile_width(p, j);
      const int owner = owner_b(p, k, j);
      p->b_off[k * p->nt + j] = b_used[owner];
      b_used[owner] += (MPI_Aint)count;
      if (count > p->b_max) p->b_max = count;
    }
  for (int i = 0; i < p->mt; ++i)
    for (int j = 0; j < p->nt; ++j) {
      const size_t count = (size_t)tile_rows(p, i) * (size_t)tile_width(p, j);
      const int owner = owner_c(p, i, j);
      p->c_off[i * p->nt + j] = c_used[owner];
      c_used[owner] += (MPI_Aint)count;
      if (count > p->c_max) p->c_max = count;
    }

  p->win_a = make_window(p, a_used[p->rank], 1, &p->a_local);
  p->win_b =
      make_window(p, b_used[p->rank] * (MPI_Aint)sizeof(double), sizeof(double), &p->b_local);
  p->win_c =
      make_window(p, c_used[p->rank] * (MPI_Aint)sizeof(double), sizeof(double), &p->c_local);
  p->win_s =
      make_window(p, c_used[p->rank] * (MPI_Aint)sizeof(double), sizeof(double), &p->s_local);
  p->win_q = make_window(p, (MPI_Aint)sizeof(int64_t) * p->mt * p->nt, sizeof(int64_t), &p->queue);
  p->scratch = malloc(sizeof(double) * p->c_max + 8);
  for (int i = 0; i < p->mt; ++i)
    for (int k = 0; k < p->kt; ++k)
      if (owner_a(p, i, k) == p->rank)
        tile_pack(&p->a, p->rb[i], p->rb[i + 1], p->kb[k], p->kb[k + 1],
                  p->a_local + p->a_off[i * p->kt + k]);
  for (int k = 0; k < p->kt; ++k)
    for (int j = 0; j < p->nt; ++j) {
      if (owner_b(p, k, j) != p->rank) continue;
      double *b = p->b_local + p->b_off[k * p->nt + j];
      const int w = tile_width(p, j);
      for (int r = 0; r < tile_depth(p, k); ++r)
        for (int c = 0; c < w; ++c) b[r * w + c] = b_value(p->kb[k] + r, p->cb[j] + c);
    }
  MPI_Win_sync(p->win_a);
  MPI_Win_sync(p->win_b);
  MPI_Comm_split(MPI_COMM_WORLD, p->my_r, p->my_c, &p->row_comm);
  MPI_Comm_split(MPI_COMM_WORLD, p->my_c, p->my_r, &p->col_comm);
  free(a_used);
  free(b_used);
  free(c_used);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void teardown(Problem *p) {
  MPI_Win *wins[] = {&p->win_a, &p->win_b, &p->win_c, &p->win_s, &p->win_q};
  for (int w = 0; w < 5; ++w) {
    MPI_Win_unlock_all(*wins[w]);
    MPI_Win_free(wins[w]);
  }
  MPI_Comm_free(&p->row_comm);
  MPI_Comm_free(&p->col_comm);
  free(p->rb);
  free(p->kb);
  free(p->cb);
  free(p->a_nnz);
  free(p->a_off);
  free(p->b_off);
  free(p->c_off);
  free(p->scratch);
  for (int w = 0; w < p->windows; ++w) free(p->created[w]);
}

/* Zeroes C, the stolen sums and the work queues before a run. */
static void prepare(Problem *p) {
  const int row_tiles = p->mt / p->pr;
  for (int t = 0; t < row_tiles; ++t) {
    const int i = p->my_r + t * p->pr, at = (int)p->c_off[i * p->nt + p->my_c];
    const size_t count = (size_t)tile_rows(p, i) * (size_t)tile_width(p, p->my_c);
    memset(p->c_local + at, 0, sizeof(double) * count);
    memset(p->s_local + at, 0, sizeof(double) * count);
    p->queue[i * p->nt + p->my_c] = 0;
  }
  MPI_Win_sync(p->win_c);
  MPI_Win_sync(p->win_s);
  MPI_Win_sync(p->win_q);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Max relative error of my C tiles against a serial multiply of the same rows. */
static double verify(const Problem *p) {
  double err = 0, norm = 0;
  const int j = p->my_c, w = tile_width(p, j), row_tiles = p->mt / p->pr;
  double *ref = malloc(sizeof(double) * (size_t)(w > 0 ? w : 1));
  for (int t = 0; t < row_tiles; ++t) {
    const int i = p->my_r + t * p->pr;
    const double *c = p->c_local + p->c_off[i * p->nt + j];
    for (int r = p->rb[i]; r < p->rb[i + 1]; ++r) {
      memset(ref, 0, sizeof(double) * (size_t)w);
      for (long e = p->a.rowptr[r]; e < p->a.rowptr[r + 1]; ++e)
        for (int x = 0; x < w; ++x) ref[x] += p->a.val[e] * b_value(p->a.col[e], p->cb[j] + x);
      for (int x = 0; x < w; ++x) {
        const double diff = fabs(c[(r - p->rb[i]) * w + x] - ref[x]);
        if (diff > err || diff != diff) err = diff != diff ? INFINITY : diff;
        if (fabs(ref[x]) > norm) norm = fabs(ref[x]);
      }
    }
  }
  free(ref);
  double local[2] = {err, norm}, global[2];
  MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return global[1] > 0 ? global[0] / global[1] : global[0];
}

/* The flops each process has at each SUMMA stage k, from the tile sizes
 * alone: end to end (max/avg of the totals) and per stage (what a run that
 * synchronizes after every stage pays: sum of maxima over sum of means). */
static void static_imbalance(const Problem *p, double *end_to_end, double *per_stage) {
  double *work = calloc((size_t)p->size * (size_t)p->kt, sizeof(double));
  for (int i = 0; i < p->mt; ++i)
    for (int j = 0; j < p->nt; ++j)
      for (int k = 0; k < p->kt; ++k)
        work[owner_c(p, i, j) * p->kt + k] +=
            2.0 * (double)p->a_nnz[i * p->kt + k] * tile_width(p, j) * (i == 0 ? p->imbalance : 1);
  double max_total = 0, sum_total = 0, sum_max = 0;
  for (int r = 0; r < p->size; ++r) {
    double total = 0;
    for (int k = 0; k < p->kt; ++k) total += work[r * p->kt + k];
    if (total > max_total) max_total = total;
    sum_total += total;
  }
  for (int k = 0; k < p->kt; ++k) {
    double max = 0;
    for (int r = 0; r < p->size; ++r)
      if (work[r * p->kt + k] > max) max = work[r * p->kt + k];
    sum_max += max;
  }
  *end_to_end = sum_total > 0 ? max_total / (sum_total / p->size) : 1;
  *per_stage = sum_total > 0 ? sum_max / (sum_total / p->size) : 1;
  free(work);
}

enum { kStatFields = 8 };

static void print_stats(const Problem *p, const char *name, const Stats *s) {
  const double mine[kStatFields] = {s->bytes,
                                    (double)s->local_tiles,
                                    (double)s->stolen_tiles,
                                    (double)s->lost_tiles,
                                    s->flops,
                                    s->t_comp,
                                    s->t_wait,
                                    s->t_comm};
  double *all = p->rank == 0 ? malloc(sizeof(double) * kStatFields * (size_t)p->size) : NULL;
  MPI_Gather(mine, kStatFields, MPI_DOUBLE, all, kStatFields, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (p->rank != 0) return;
  double stolen = 0;
  for (int r = 0; r < p->size; ++r) {
    const double *v = all + r * kStatFields;
    printf(
        "spmm-stats: %s rank %d: fetched %.0f B, tiles local %.0f stolen %.0f lost %.0f, flops "
        "%.3g, "
        "compute %.4f s, wait %.4f s, comm %.4f s\n",
        name, r, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    stolen += v[2];
  }
  double end_to_end, per_stage;
  static_imbalance(p, &end_to_end, &per_stage);
  printf(
      "spmm-stats: %s load imbalance (max/avg flops by owner of C): end to end %.2f, per stage "
      "%.2f; "
      "tiles stolen in all %.0f\n",
      name, end_to_end, per_stage, stolen);
  free(all);
}

static int run_variant(Problem *p, const Options *o, const char *name) {
  Stats s;
  double best = 0;
  for (int rep = 0; rep < o->reps; ++rep) {
    prepare(p);
    memset(&s, 0, sizeof s);
    const double t0 = MPI_Wtime();
    if (strcmp(name, "summa") == 0) run_summa(p, &s);
    else if (strcmp(name, "async") == 0) run_async(p, &s, 0);
    else if (strcmp(name, "steal") == 0) run_async(p, &s, 1);
    else run_accum(p, &s);
    double t = MPI_Wtime() - t0, slowest;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rep == 0 || slowest < best) best = slowest;
  }
  const double err = verify(p);
  double flops[2] = {s.flops, s.flops}, sum_max[2];
  MPI_Allreduce(&flops[0], &sum_max[0], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&flops[1], &sum_max[1], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const int ok = err <= 1e-10;
  if (p->rank == 0)
    printf(
        "spmm: %s matrix=%s rows=%d nnz=%ld width=%d procs=%d grid=%dx%d tiles=%dx%dx%d time=%.6f "
        "s "
        "imbalance=%.2f maxrelerr=%.2e %s\n",
        name, o->matrix, p->a.rows, p->a.nnz, p->width, p->size, p->pr, p->pc, p->mt, p->kt, p->nt,
        best, sum_max[0] > 0 ? sum_max[1] / (sum_max[0] / p->size) : 1.0, err,
        ok ? "verified" : "WRONG");
  if (o->stats) print_stats(p, name, &s);
  fflush(stdout);
  return ok;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Options o;
  Problem p;
  memset(&p, 0, sizeof p);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (parse(argc, argv, &o) != 0) {
    if (rank == 0) usage();
    MPI_Finalize();
    return 2;
  }
  const uint64_t seed = 0x5eed5eedULL;
  char err[256] = "";
  if (strcmp(o.matrix, "rmat") == 0) p.a = csr_rmat(o.scale, o.edge_factor, seed);
  else if (strcmp(o.matrix, "uniform") == 0) p.a = csr_uniform(o.scale, o.edge_factor, seed);
  else if (strcmp(o.matrix, "banded") == 0) p.a = csr_banded(o.scale, o.edge_factor / 2, seed);
  else if (csr_read_mtx(o.matrix, &p.a, err, sizeof err) != 0) {
    if (rank == 0) fprintf(stderr, "spmm: %s\n", err);
    MPI_Finalize();
    return 2;
  }
  if (o.gpu) {
    char why[256] = "";
    MPI_Comm node;
    int local_rank;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_free(&node);
    p.gpu = gpu_init(local_rank, why, sizeof why) == 0;
    int all_ready = 0;
    MPI_Allreduce(&p.gpu, &all_ready, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    p.gpu = all_ready;
    if (rank == 0 && p.gpu) printf("# spmm: local multiplies on the CUDA device\n");
    if (rank == 0 && !p.gpu)
      printf("# spmm: --gpu skipped: %s; multiplying on the CPU\n",
             why[0] ? why : "a process has no device");
  }
  setup(&p, &o);
  const char *all[] = {"summa", "async", "steal", "accum"};
  int ok = 1, ran = 0;
  for (int v = 0; v < 4; ++v) {
    if (strcmp(o.variant, "all") != 0 && strcmp(o.variant, all[v]) != 0) continue;
    ok &= run_variant(&p, &o, all[v]);
    ++ran;
  }
  if (ran == 0 && rank == 0) usage();
  if (ran > 0 && rank == 0) printf("# spmm: done\n");
  teardown(&p);
  csr_free(&p.a);
  MPI_Finalize();
  return ran == 0 ? 2 : ok ? 0 : 1;
}
