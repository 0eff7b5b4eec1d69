/* Bulk-synchronous SUMMA: at stage k the owners of A(:, k) broadcast them
 * along their process rows and the owner of B(k, j) broadcasts it down its
 * process column; everybody then multiplies, so each stage waits for the
 * slowest process of the one before. */
#include "spmm.h"

void run_summa(Problem *p, Stats *s) {
  const int row_tiles = p->mt / p->pr;
  char *abuf = tile_alloc(p, p->a_max * (size_t)row_tiles);
  double *bbuf = tile_alloc(p, sizeof(double) * p->b_max);
  const int j = p->my_c;
  for (int k = 0; k < p->kt; ++k) {
    const int root_c = k % p->pc, root_r = k % p->pr;
    double t = MPI_Wtime();
    const void *a_tiles[row_tiles];
    for (int t_i = 0; t_i < row_tiles; ++t_i) {
      const int i = p->my_r + t_i * p->pr, idx = i * p->kt + k;
      const size_t bytes = tile_bytes(tile_rows(p, i), p->a_nnz[idx]);
      char *buf = p->my_c == root_c ? p->a_local + p->a_off[idx] : abuf + (size_t)t_i * p->a_max;
      MPI_Bcast(buf, (int)bytes, MPI_BYTE, root_c, p->row_comm);
      if (p->my_c != root_c) s->bytes += (double)bytes;
      a_tiles[t_i] = buf;
    }
    const int count = tile_depth(p, k) * tile_width(p, j);
    double *b = p->my_r == root_r ? p->b_local + p->b_off[k * p->nt + j] : bbuf;
    MPI_Bcast(b, count, MPI_DOUBLE, root_r, p->col_comm);
    if (p->my_r != root_r) s->bytes += sizeof(double) * (double)count;
    s->t_comm += MPI_Wtime() - t;
    for (int t_i = 0; t_i < row_tiles; ++t_i) {
      const int i = p->my_r + t_i * p->pr;
      multiply_tiles(p, s, i, k, j, a_tiles[t_i], b, p->c_local + p->c_off[i * p->nt + j]);
      s->local_tiles++;
    }
  }
  double t = MPI_Wtime();
  MPI_Barrier(MPI_COMM_WORLD);
  s->t_wait += MPI_Wtime() - t;
  tile_free(p, abuf);
  tile_free(p, bbuf);
}
