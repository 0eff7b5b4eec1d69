/* The distributed problem C = A x B shared by the variants: the tile grid,
 * who owns which tile, the windows that expose them, and the counters each
 * process keeps while it multiplies. */
#ifndef SPMM_SPMM_H
#define SPMM_SPMM_H

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

#include "gpu.h"
#include "matrix.h"

/* A is mt x kt tiles, B kt x nt, C mt x nt. The processes form a pr x pc
 * grid (rank = row * pc + col); nt = pc, mt = pr * row_tiles and kt =
 * lcm(pr, pc) * k_tiles, so any process count works. Owners:
 *   A(i, k): (i % pr, k % pc)   B(k, j): (k % pr, j)   C(i, j): (i % pr, j). */
typedef struct Problem {
  int rank, size, pr, pc, my_r, my_c;
  int width; /* columns of B and C */
  Csr a;     /* the whole of A: every process generates or reads it */
  int mt, kt, nt;
  int *rb, *kb, *cb;          /* tile boundaries: rows of A, columns of A, columns of B */
  long *a_nnz;                /* [i * kt + k] */
  MPI_Aint *a_off;            /* byte offset of A(i, k) in its owner's window */
  MPI_Aint *b_off;            /* double offset of B(k, j) in its owner's window */
  MPI_Aint *c_off;            /* double offset of C(i, j) in its owner's window */
  size_t a_max, b_max, c_max; /* the largest tile: bytes, doubles, doubles */
  char *a_local;
  double *b_local, *c_local, *s_local; /* s: what thieves computed for my C tiles */
  int64_t *queue;                      /* [i * nt + j]: next k step of C(i, j) to claim */
  MPI_Win win_a, win_b, win_c, win_s, win_q;
  MPI_Comm row_comm, col_comm; /* SUMMA: rank in row_comm is my_c, in col_comm my_r */
  int imbalance;               /* work on C tile row 0 costs this many times more */
  double *scratch;             /* c_max doubles for the forced-imbalance repeats */
  int create;                  /* windows from MPI_Win_create over malloc'd memory */
  int gpu;                     /* the local multiplies run on the CUDA device */
  int windows;
  void *created[5];
} Problem;

typedef struct Stats {
  double bytes, flops, t_comp, t_wait, t_comm;
  long local_tiles, stolen_tiles, lost_tiles;
} Stats;

static inline int owner_a(const Problem *p, int i, int k) {
  return (i % p->pr) * p->pc + k % p->pc;
}
static inline int owner_b(const Problem *p, int k, int j) { return (k % p->pr) * p->pc + j; }
static inline int owner_c(const Problem *p, int i, int j) { return (i % p->pr) * p->pc + j; }
static inline int tile_rows(const Problem *p, int i) { return p->rb[i + 1] - p->rb[i]; }
static inline int tile_depth(const Problem *p, int k) { return p->kb[k + 1] - p->kb[k]; }
static inline int tile_width(const Problem *p, int j) { return p->cb[j + 1] - p->cb[j]; }

/* c += A(i, k) * B(k, j) with the given tile buffers, counted in s; work on
 * tile row 0 is repeated (into scratch) to force an imbalance. */
void multiply_tiles(const Problem *p, Stats *s, int i, int k, int j, const void *a, const double *b,
                    double *c);

/* Buffers for fetched tiles: page-locked when the multiplies run on the device. */
static inline void *tile_alloc(const Problem *p, size_t bytes) {
  return p->gpu ? gpu_host_alloc(bytes + 8) : malloc(bytes + 8);
}
static inline void tile_free(const Problem *p, void *ptr) {
  if (p->gpu) gpu_host_free(ptr);
  else free(ptr);
}

void run_summa(Problem *p, Stats *s);
void run_async(Problem *p, Stats *s, int steal);
void run_accum(Problem *p, Stats *s);

#endif
