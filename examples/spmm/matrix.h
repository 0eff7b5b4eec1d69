/* Sparse matrices for the SpMM example: a CSR type, the generators (R-MAT,
 * uniform, banded) with a fixed seed, a Matrix Market reader, the packed
 * tile format the processes exchange, and the local tile multiply. */
#ifndef SPMM_MATRIX_H
#define SPMM_MATRIX_H

#include <stddef.h>
#include <stdint.h>

/* Compressed sparse rows: row r holds col[rowptr[r] .. rowptr[r+1]). */
typedef struct Csr {
  int rows, cols;
  long nnz;
  long *rowptr;
  int *col;
  double *val;
} Csr;

/* R-MAT (a = 0.6, b = c = d = 0.4/3) with 2^scale rows and edge_factor edges
 * per row; duplicate edges are summed. */
Csr csr_rmat(int scale, int edge_factor, uint64_t seed);
/* edge_factor random columns per row, uniformly spread. */
Csr csr_uniform(int scale, int edge_factor, uint64_t seed);
/* Each row r has entries in columns r - half .. r + half. */
Csr csr_banded(int scale, int half, uint64_t seed);
/* A Matrix Market coordinate file (real, integer or pattern; general or
 * symmetric). Returns 0 and fills *out, or -1 with a message in err. */
int csr_read_mtx(const char *path, Csr *out, char *err, size_t errlen);
void csr_free(Csr *m);

/* A packed tile: rowptr (rows + 1 ints), col (nnz ints), padding to 8 bytes,
 * val (nnz doubles); column indices are local to the tile. */
size_t tile_bytes(int rows, long nnz);
/* Where a packed tile's values start. */
size_t tile_values_offset(int rows, long nnz);
/* Packs rows [r0, r1) and columns [c0, c1) of m into buf (tile_bytes long);
 * returns the tile's nnz. With buf NULL it only counts. */
long tile_pack(const Csr *m, int r0, int r1, int c0, int c1, void *buf);

/* c (rows x width, row-major, leading dimension ldc) += tile * b (tile cols x
 * width, row-major, leading dimension ldb). Returns the flops done. */
double tile_multiply(const void *tile, int rows, long nnz, const double *b, int ldb, int width,
                     double *c, int ldc);

#endif
