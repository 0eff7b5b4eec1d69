/* Stationary A: each process multiplies the A tiles it owns by the B tiles of
 * their row of B (fetched with MPI_Rget, the next one prefetched, starting at
 * j = i + k) and sends every product to the owner of its C tile with
 * MPI_Accumulate (MPI_SUM), its own tiles included, so C is only ever
 * updated by the window's atomic accumulation. */
#include <stdlib.h>
#include <string.h>

#include "spmm.h"

typedef struct AccumStep {
  int i, k, j;
} AccumStep;

static int next_step(const Problem *p, int *n, AccumStep *out) {
  const int row_tiles = p->mt / p->pr, k_tiles = p->kt / p->pc;
  const int total = row_tiles * k_tiles * p->nt;
  if (*n >= total) return 0;
  const int j_step = *n % p->nt, k_t = (*n / p->nt) % k_tiles, i_t = *n / (p->nt * k_tiles);
  const int i = p->my_r + i_t * p->pr, k = p->my_c + k_t * p->pc;
  *out = (AccumStep){i, k, (j_step + i + k) % p->nt};
  ++*n;
  return 1;
}

/* Starts the get of B(k, j) into buf, or points at the local tile. */
static const double *fetch_b(const Problem *p, Stats *s, AccumStep st, double *buf,
                             MPI_Request *req) {
  double t = MPI_Wtime();
  const int owner = owner_b(p, st.k, st.j), b_tile = st.k * p->nt + st.j;
  const int count = tile_depth(p, st.k) * tile_width(p, st.j);
  *req = MPI_REQUEST_NULL;
  const double *b = p->b_local + p->b_off[b_tile];
  if (owner != p->rank && count > 0) {
    MPI_Rget(buf, count, MPI_DOUBLE, owner, p->b_off[b_tile], count, MPI_DOUBLE, p->win_b, req);
    s->bytes += sizeof(double) * (double)count;
    b = buf;
  }
  s->t_comm += MPI_Wtime() - t;
  return b;
}

void run_accum(Problem *p, Stats *s) {
  double *bbuf[2] = {tile_alloc(p, sizeof(double) * p->b_max),
                     tile_alloc(p, sizeof(double) * p->b_max)};
  double *tmp = malloc(sizeof(double) * p->c_max + 8);
  MPI_Request req[2];
  const double *b[2];
  int n = 0, cur = 0;
  AccumStep now, next;
  int have = next_step(p, &n, &now);
  if (have) b[cur] = fetch_b(p, s, now, bbuf[cur], &req[cur]);
  while (have) {
    const int have_next = next_step(p, &n, &next);
    if (have_next) b[1 - cur] = fetch_b(p, s, next, bbuf[1 - cur], &req[1 - cur]);
    double t = MPI_Wtime();
    MPI_Wait(&req[cur], MPI_STATUS_IGNORE);
    s->t_wait += MPI_Wtime() - t;
    const int count = tile_rows(p, now.i) * tile_width(p, now.j);
    memset(tmp, 0, sizeof(double) * (size_t)count);
    multiply_tiles(p, s, now.i, now.k, now.j, p->a_local + p->a_off[now.i * p->kt + now.k], b[cur],
                   tmp);
    s->local_tiles++;
    t = MPI_Wtime();
    if (count > 0) {
      const int owner = owner_c(p, now.i, now.j);
      MPI_Accumulate(tmp, count, MPI_DOUBLE, owner, p->c_off[now.i * p->nt + now.j], count,
                     MPI_DOUBLE, MPI_SUM, p->win_c);
      MPI_Win_flush_local(owner, p->win_c);
    }
    s->t_comm += MPI_Wtime() - t;
    have = have_next;
    now = next;
    cur = 1 - cur;
  }
  double t = MPI_Wtime();
  MPI_Win_flush_all(p->win_c);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_sync(p->win_c);
  s->t_wait += MPI_Wtime() - t;
  tile_free(p, bbuf[0]);
  tile_free(p, bbuf[1]);
  free(tmp);
}
