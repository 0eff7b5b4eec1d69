/* Stationary C without collectives: each process walks the k steps of its C
 * tiles, pulling A(i, k) and B(k, j) with MPI_Rget inside one
 * MPI_Win_lock_all epoch. The next step's tiles are requested before the
 * current multiply (prefetch), and tile (i, j) starts at k = i + j so that
 * neighbours do not all read the same tile at once (staggered offsets).
 *
 * With stealing, the k steps of every C tile are a work queue: a counter in a
 * window that the owner and the thieves advance with MPI_Fetch_and_op. A
 * process that has drained its own queues picks random victims, claims their
 * steps the same way, and adds its results into the victim's s window with
 * one MPI_Accumulate per tile; the owner folds s into C at the end. A thief reads a
 * queue (MPI_NO_OP) before it claims from it and leaves the last step to the
 * owner. */
#include <stdlib.h>
#include <string.h>

#include "spmm.h"

typedef struct AsyncStep {
  int i, j, k;
} AsyncStep;

typedef struct Fetch {
  MPI_Request req[2];
  char *a_buf;
  double *b_buf;
  const void *a;
  const double *b;
} Fetch;

/* Starts the gets of A(i, k) and B(k, j); a tile the process owns is used in place. */
static void fetch_start(const Problem *p, Stats *s, Fetch *f, AsyncStep st) {
  double t = MPI_Wtime();
  const int a_tile = st.i * p->kt + st.k, b_tile = st.k * p->nt + st.j;
  const int a_owner = owner_a(p, st.i, st.k), b_owner = owner_b(p, st.k, st.j);
  const int a_bytes = (int)tile_bytes(tile_rows(p, st.i), p->a_nnz[a_tile]);
  const int b_count = tile_depth(p, st.k) * tile_width(p, st.j);
  f->req[0] = f->req[1] = MPI_REQUEST_NULL;
  if (a_owner == p->rank) {
    f->a = p->a_local + p->a_off[a_tile];
  } else {
    MPI_Rget(f->a_buf, a_bytes, MPI_BYTE, a_owner, p->a_off[a_tile], a_bytes, MPI_BYTE, p->win_a,
             &f->req[0]);
    f->a = f->a_buf;
    s->bytes += a_bytes;
  }
  if (b_owner == p->rank) {
    f->b = p->b_local + p->b_off[b_tile];
  } else {
    if (b_count > 0)
      MPI_Rget(f->b_buf, b_count, MPI_DOUBLE, b_owner, p->b_off[b_tile], b_count, MPI_DOUBLE,
               p->win_b, &f->req[1]);
    f->b = f->b_buf;
    s->bytes += sizeof(double) * (double)b_count;
  }
  s->t_comm += MPI_Wtime() - t;
}

static void fetch_wait(Stats *s, Fetch *f) {
  double t = MPI_Wtime();
  MPI_Wait(&f->req[0], MPI_STATUS_IGNORE);
  MPI_Wait(&f->req[1], MPI_STATUS_IGNORE);
  s->t_wait += MPI_Wtime() - t;
}

static void fetch_init(const Problem *p, Fetch *f) {
  f->a_buf = tile_alloc(p, p->a_max);
  f->b_buf = tile_alloc(p, sizeof(double) * p->b_max);
}

static void fetch_free(const Problem *p, Fetch *f) {
  tile_free(p, f->a_buf);
  tile_free(p, f->b_buf);
}

/* Claims the next k step of C tile (i, j) from its owner's queue; 0 when the tile is done. */
static int claim(const Problem *p, Stats *s, int i, int j, AsyncStep *out) {
  double t = MPI_Wtime();
  const int64_t one = 1;
  int64_t old = 0;
  const int owner = owner_c(p, i, j);
  MPI_Fetch_and_op(&one, &old, MPI_INT64_T, owner, i * p->nt + j, MPI_SUM, p->win_q);
  MPI_Win_flush(owner, p->win_q);
  s->t_comm += MPI_Wtime() - t;
  if (old >= p->kt) return 0;
  *out = (AsyncStep){i, j, (int)((old + i + j) % p->kt)};
  return 1;
}

/* A thief leaves a tile alone when fewer steps than this remain: the owner
 * has already claimed the one it is fetching, and a stolen step costs a C
 * tile's accumulation on top of the two gets. */
enum { kStealMin = 2 };

/* The steps of C tile (i, j) nobody has claimed yet, read without claiming. */
static int64_t remaining(const Problem *p, Stats *s, int i, int j) {
  double t = MPI_Wtime();
  int64_t claimed = 0;
  const int owner = owner_c(p, i, j);
  MPI_Fetch_and_op(NULL, &claimed, MPI_INT64_T, owner, i * p->nt + j, MPI_NO_OP, p->win_q);
  MPI_Win_flush(owner, p->win_q);
  s->t_comm += MPI_Wtime() - t;
  return claimed >= p->kt ? 0 : p->kt - claimed;
}

/* The next step of my own C tiles: in order, or through the queues when stealing. */
static int next_own(const Problem *p, Stats *s, int steal, int *tile, int *k_step, AsyncStep *out) {
  const int row_tiles = p->mt / p->pr;
  while (*tile < row_tiles) {
    const int i = p->my_r + *tile * p->pr, j = p->my_c;
    if (steal) {
      if (claim(p, s, i, j, out)) return 1;
    } else if (*k_step < p->kt) {
      *out = (AsyncStep){i, j, (*k_step + i + j) % p->kt};
      ++*k_step;
      return 1;
    }
    ++*tile;
    *k_step = 0;
  }
  return 0;
}

/* Steals from random victims until every queue is empty. */
static void steal_work(Problem *p, Stats *s, Fetch *f, unsigned *seed) {
  int *victims = malloc(sizeof(int) * (size_t)p->size), alive = 0;
  double *tmp = malloc(sizeof(double) * p->c_max + 8);
  for (int r = 0; r < p->size; ++r)
    if (r != p->rank) victims[alive++] = r;
  const int row_tiles = p->mt / p->pr;
  while (alive > 0) {
    const int pick = (int)(rand_r(seed) % (unsigned)alive), v = victims[pick];
    const int v_r = v / p->pc, v_c = v % p->pc;
    for (int t_i = 0; t_i < row_tiles; ++t_i) {
      const int i = v_r + t_i * p->pr, j = v_c, count = tile_rows(p, i) * tile_width(p, j);
      AsyncStep st;
      int taken = 0;
      memset(tmp, 0, sizeof(double) * (size_t)count);
      while (remaining(p, s, i, j) >= kStealMin && claim(p, s, i, j, &st)) {
        fetch_start(p, s, f, st);
        fetch_wait(s, f);
        multiply_tiles(p, s, st.i, st.k, st.j, f->a, f->b, tmp);
        s->stolen_tiles++;
        ++taken;
      }
      /* One accumulation for all the steps taken from this tile. */
      double t = MPI_Wtime();
      if (taken > 0 && count > 0) {
        MPI_Accumulate(tmp, count, MPI_DOUBLE, v, p->c_off[i * p->nt + j], count, MPI_DOUBLE,
                       MPI_SUM, p->win_s);
        MPI_Win_flush_local(v, p->win_s);
      }
      s->t_comm += MPI_Wtime() - t;
    }
    victims[pick] = victims[--alive];
  }
  free(victims);
  free(tmp);
}

void run_async(Problem *p, Stats *s, int steal) {
  Fetch f[2];
  fetch_init(p, &f[0]);
  fetch_init(p, &f[1]);
  int tile = 0, k_step = 0, cur = 0;
  AsyncStep now, next;
  int have = next_own(p, s, steal, &tile, &k_step, &now);
  if (have) fetch_start(p, s, &f[cur], now);
  while (have) {
    const int have_next = next_own(p, s, steal, &tile, &k_step, &next);
    if (have_next) fetch_start(p, s, &f[1 - cur], next);
    fetch_wait(s, &f[cur]);
    multiply_tiles(p, s, now.i, now.k, now.j, f[cur].a, f[cur].b,
                   p->c_local + p->c_off[now.i * p->nt + now.j]);
    s->local_tiles++;
    have = have_next;
    now = next;
    cur = 1 - cur;
  }
  if (steal) {
    unsigned seed = 12345u + 7919u * (unsigned)p->rank;
    steal_work(p, s, &f[0], &seed);
    double t = MPI_Wtime();
    MPI_Win_flush_all(p->win_s);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(p->win_s);
    s->t_wait += MPI_Wtime() - t;
    const int row_tiles = p->mt / p->pr;
    for (int t_i = 0; t_i < row_tiles; ++t_i) {
      const int i = p->my_r + t_i * p->pr, at = (int)p->c_off[i * p->nt + p->my_c];
      const int count = tile_rows(p, i) * tile_width(p, p->my_c);
      for (int x = 0; x < count; ++x) p->c_local[at + x] += p->s_local[at + x];
    }
    s->lost_tiles = (long)row_tiles * p->kt - s->local_tiles;
  } else {
    double t = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    s->t_wait += MPI_Wtime() - t;
  }
  fetch_free(p, &f[0]);
  fetch_free(p, &f[1]);
}
