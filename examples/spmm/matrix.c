/* Generators, the Matrix Market reader, tile packing and the local multiply. */
#include "matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* xorshift64*: small, fast and the same on every rank for the same seed. */
static uint64_t next_random(uint64_t *state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1DULL;
}

static double unit_random(uint64_t *state) {
  return (double)(next_random(state) >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct Triple {
  int row, col;
  double val;
} Triple;

static int triple_order(const void *pa, const void *pb) {
  const Triple *a = pa, *b = pb;
  if (a->row != b->row) return a->row < b->row ? -1 : 1;
  if (a->col != b->col) return a->col < b->col ? -1 : 1;
  return 0;
}

/* Sorts the triples and sums duplicates into a CSR matrix; frees t. */
static Csr csr_from_triples(int rows, int cols, Triple *t, long count) {
  qsort(t, (size_t)count, sizeof *t, triple_order);
  Csr m = {rows,
           cols,
           0,
           calloc((size_t)rows + 1, sizeof(long)),
           malloc(sizeof(int) * (size_t)(count + 1)),
           malloc(sizeof(double) * (size_t)(count + 1))};
  for (long e = 0; e < count; ++e) {
    if (m.nnz > 0 && m.col[m.nnz - 1] == t[e].col && e > 0 && t[e - 1].row == t[e].row) {
      m.val[m.nnz - 1] += t[e].val;
      continue;
    }
    m.col[m.nnz] = t[e].col;
    m.val[m.nnz] = t[e].val;
    m.rowptr[t[e].row + 1]++;
    m.nnz++;
  }
  for (int r = 0; r < rows; ++r) m.rowptr[r + 1] += m.rowptr[r];
  free(t);
  return m;
}

Csr csr_rmat(int scale, int edge_factor, uint64_t seed) {
  const int n = 1 << scale;
  const long count = (long)edge_factor * n;
  const double a = 0.6, b = 0.4 / 3, c = 0.4 / 3;
  Triple *t = malloc(sizeof *t * (size_t)count);
  uint64_t state = seed | 1;
  for (long e = 0; e < count; ++e) {
    int row = 0, col = 0;
    for (int level = 0; level < scale; ++level) {
      const double u = unit_random(&state);
      row <<= 1;
      col <<= 1;
      if (u < a) continue;
      if (u < a + b) col |= 1;
      else if (u < a + b + c) row |= 1;
      else row |= 1, col |= 1;
    }
    t[e] = (Triple){row, col, 0.5 + unit_random(&state)};
  }
  return csr_from_triples(n, n, t, count);
}

Csr csr_uniform(int scale, int edge_factor, uint64_t seed) {
  const int n = 1 << scale;
  const long count = (long)edge_factor * n;
  Triple *t = malloc(sizeof *t * (size_t)count);
  uint64_t state = seed | 1;
  for (long e = 0; e < count; ++e)
    t[e] = (Triple){(int)(e / edge_factor), (int)(next_random(&state) % (uint64_t)n),
                    0.5 + unit_random(&state)};
  return csr_from_triples(n, n, t, count);
}

Csr csr_banded(int scale, int half, uint64_t seed) {
  const int n = 1 << scale;
  Triple *t = malloc(sizeof *t * (size_t)n * (size_t)(2 * half + 1));
  uint64_t state = seed | 1;
  long count = 0;
  for (int r = 0; r < n; ++r)
    for (int c = r - half; c <= r + half; ++c)
      if (c >= 0 && c < n) t[count++] = (Triple){r, c, 0.5 + unit_random(&state)};
  return csr_from_triples(n, n, t, count);
}

int csr_read_mtx(const char *path, Csr *out, char *err, size_t errlen) {
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "cannot open %s", path);
    return -1;
  }
  char line[1024], object[64] = "", format[64] = "", field[64] = "", symmetry[64] = "";
  if (!fgets(line, sizeof line, f) ||
      sscanf(line, "%%%%MatrixMarket %63s %63s %63s %63s", object, format, field, symmetry) != 4 ||
      strcmp(format, "coordinate") != 0 || strcmp(field, "complex") == 0) {
    snprintf(err, errlen, "%s: not a real, integer or pattern Matrix Market coordinate file", path);
    fclose(f);
    return -1;
  }
  const int pattern = strcmp(field, "pattern") == 0;
  const int symmetric = strcmp(symmetry, "general") != 0;
  int rows = 0, cols = 0;
  long entries = 0;
  while (fgets(line, sizeof line, f) && line[0] == '%') {
  }
  if (sscanf(line, "%d %d %ld", &rows, &cols, &entries) != 3 || rows <= 0 || cols <= 0 ||
      entries < 0) {
    snprintf(err, errlen, "%s: bad size line", path);
    fclose(f);
    return -1;
  }
  Triple *t = malloc(sizeof *t * (size_t)(2 * entries + 1));
  long count = 0;
  for (long e = 0; e < entries; ++e) {
    int r, c;
    double v = 1.0;
    if (!fgets(line, sizeof line, f) || sscanf(line, "%d %d %lf", &r, &c, &v) < (pattern ? 2 : 3) ||
        r < 1 || r > rows || c < 1 || c > cols) {
      snprintf(err, errlen, "%s: bad entry %ld", path, e + 1);
      free(t);
      fclose(f);
      return -1;
    }
    t[count++] = (Triple){r - 1, c - 1, v};
    if (symmetric && r != c) t[count++] = (Triple){c - 1, r - 1, v};
  }
  fclose(f);
  *out = csr_from_triples(rows, cols, t, count);
  return 0;
}

void csr_free(Csr *m) {
  free(m->rowptr);
  free(m->col);
  free(m->val);
  memset(m, 0, sizeof *m);
}

static size_t index_bytes(int rows, long nnz) {
  return ((sizeof(int) * ((size_t)rows + 1 + (size_t)nnz)) + 7) & ~(size_t)7;
}

size_t tile_values_offset(int rows, long nnz) { return index_bytes(rows, nnz); }

size_t tile_bytes(int rows, long nnz) {
  return index_bytes(rows, nnz) + sizeof(double) * (size_t)nnz;
}

/* Columns of a row are sorted, so each row's slice of [c0, c1) is a range. */
long tile_pack(const Csr *m, int r0, int r1, int c0, int c1, void *buf) {
  long nnz = 0;
  for (int r = r0; r < r1; ++r)
    for (long e = m->rowptr[r]; e < m->rowptr[r + 1]; ++e) nnz += m->col[e] >= c0 && m->col[e] < c1;
  if (!buf) return nnz;
  int *rowptr = buf, *col = rowptr + (r1 - r0 + 1);
  double *val = (double *)((char *)buf + index_bytes(r1 - r0, nnz));
  long at = 0;
  rowptr[0] = 0;
  for (int r = r0; r < r1; ++r) {
    for (long e = m->rowptr[r]; e < m->rowptr[r + 1]; ++e) {
      if (m->col[e] < c0 || m->col[e] >= c1) continue;
      col[at] = m->col[e] - c0;
      val[at++] = m->val[e];
    }
    rowptr[r - r0 + 1] = (int)at;
  }
  return nnz;
}

double tile_multiply(const void *tile, int rows, long nnz, const double *b, int ldb, int width,
                     double *c, int ldc) {
  const int *rowptr = tile, *col = rowptr + rows + 1;
  const double *val = (const double *)((const char *)tile + index_bytes(rows, nnz));
  for (int r = 0; r < rows; ++r) {
    double *crow = c + (size_t)r * (size_t)ldc;
    for (int e = rowptr[r]; e < rowptr[r + 1]; ++e) {
      const double v = val[e];
      const double *brow = b + (size_t)col[e] * (size_t)ldb;
      for (int x = 0; x < width; ++x) crow[x] += v * brow[x];
    }
  }
  return 2.0 * (double)nnz * width;
}
