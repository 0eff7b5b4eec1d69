/* MPI_Accumulate with every predefined operation on every predefined type
 * it applies to (and MPI_ERR_OP where it does not), in fence epochs, on an
 * MPI_Win_allocate window (shared memory: CPU atomics for 8-byte integers,
 * the accumulate lock for the rest) and an MPI_Win_create window (single
 * copy under the accumulate lock). Every rank adds its contribution to
 * rank 0; the reference result is computed with MPI_Reduce_local over the
 * same contributions. MPI_REPLACE leaves one of the contributions,
 * MPI_NO_OP leaves the target alone. Also MPI_Get_accumulate with each op
 * from a single origin (the fetched values must be the previous contents). */
#include <complex.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define K 5      /* elements per accumulate */
#define SLOT 512 /* bytes per (type) slot in the window */

enum kind { SINT, UINT, REAL, CPLX, BOOL, FLOG, BYTE, PAIR };

struct type_case {
  MPI_Datatype type;
  const char *name;
  enum kind kind;
  int size;     /* of the value (pairs: of the value part) */
  int pair_int; /* pairs: offset of the int index */
};

#define T(t, k, s) \
  { t, #t, k, s, 0 }
static const struct type_case types[] = {
    T(MPI_CHAR, SINT, 1),
    T(MPI_SIGNED_CHAR, SINT, 1),
    T(MPI_UNSIGNED_CHAR, UINT, 1),
    T(MPI_SHORT, SINT, 2),
    T(MPI_UNSIGNED_SHORT, UINT, 2),
    T(MPI_INT, SINT, 4),
    T(MPI_UNSIGNED, UINT, 4),
    T(MPI_LONG, SINT, 8),
    T(MPI_UNSIGNED_LONG, UINT, 8),
    T(MPI_LONG_LONG, SINT, 8),
    T(MPI_UNSIGNED_LONG_LONG, UINT, 8),
    T(MPI_INT8_T, SINT, 1),
    T(MPI_INT16_T, SINT, 2),
    T(MPI_INT32_T, SINT, 4),
    T(MPI_INT64_T, SINT, 8),
    T(MPI_UINT8_T, UINT, 1),
    T(MPI_UINT16_T, UINT, 2),
    T(MPI_UINT32_T, UINT, 4),
    T(MPI_UINT64_T, UINT, 8),
    T(MPI_AINT, SINT, 8),
    T(MPI_COUNT, SINT, 8),
    T(MPI_OFFSET, SINT, 8),
    T(MPI_FLOAT, REAL, 4),
    T(MPI_DOUBLE, REAL, 8),
    T(MPI_LONG_DOUBLE, REAL, 16),
    T(MPI_C_FLOAT_COMPLEX, CPLX, 8),
    T(MPI_C_DOUBLE_COMPLEX, CPLX, 16),
    T(MPI_C_BOOL, BOOL, 1),
    T(MPI_BYTE, BYTE, 1),
    T(MPI_WCHAR, UINT, 4),
    T(MPI_CXX_BOOL, BOOL, 1),
    /* Fortran types (the multi-language types are the same kernels) */
    T(MPI_INTEGER, SINT, 4),
    T(MPI_INTEGER8, SINT, 8),
    T(MPI_REAL, REAL, 4),
    T(MPI_REAL8, REAL, 8),
    T(MPI_DOUBLE_PRECISION, REAL, 8),
    T(MPI_COMPLEX, CPLX, 8),
    T(MPI_DOUBLE_COMPLEX, CPLX, 16),
    T(MPI_LOGICAL, FLOG, 4),
    {MPI_2INTEGER, "MPI_2INTEGER", PAIR, 4, 4},
    {MPI_2REAL, "MPI_2REAL", PAIR, 4, 4},
    {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", PAIR, 8, 8},
    {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", PAIR, 16, 16},
    {MPI_2INT, "MPI_2INT", PAIR, 4, 4},
    {MPI_FLOAT_INT, "MPI_FLOAT_INT", PAIR, 4, 4},
    {MPI_DOUBLE_INT, "MPI_DOUBLE_INT", PAIR, 8, 8},
    {MPI_LONG_INT, "MPI_LONG_INT", PAIR, 8, 8},
    {MPI_SHORT_INT, "MPI_SHORT_INT", PAIR, 2, 4},
};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

static const struct {
  MPI_Op op;
  const char *name;
} ops[] = {{MPI_MAX, "MPI_MAX"},         {MPI_MIN, "MPI_MIN"},       {MPI_SUM, "MPI_SUM"},
           {MPI_PROD, "MPI_PROD"},       {MPI_LAND, "MPI_LAND"},     {MPI_BAND, "MPI_BAND"},
           {MPI_LOR, "MPI_LOR"},         {MPI_BOR, "MPI_BOR"},       {MPI_LXOR, "MPI_LXOR"},
           {MPI_BXOR, "MPI_BXOR"},       {MPI_MINLOC, "MPI_MINLOC"}, {MPI_MAXLOC, "MPI_MAXLOC"},
           {MPI_REPLACE, "MPI_REPLACE"}, {MPI_NO_OP, "MPI_NO_OP"}};
#define NOPS ((int)(sizeof ops / sizeof ops[0]))

/* Stores small integer v in element i of buf (in the type's representation). */
static void set(const struct type_case *t, MPI_Aint extent, void *buf, int i, int v) {
  char *p = (char *)buf + i * extent;
  switch (t->kind) {
    case SINT:
    case UINT:
    case BYTE:
      if (t->size == 1) *(int8_t *)p = (int8_t)v;
      else if (t->size == 2) *(int16_t *)p = (int16_t)v;
      else if (t->size == 4) *(int32_t *)p = v;
      else *(int64_t *)p = v;
      break;
    case REAL:
      if (t->size == 4) *(float *)p = (float)v;
      else if (t->size == 8) *(double *)p = v;
      else *(long double *)p = v;
      break;
    case CPLX:
      if (t->size == 8) *(float _Complex *)p = (float)v + 2.0f * I;
      else *(double _Complex *)p = v + 3.0 * I;
      break;
    case BOOL: *(bool *)p = v % 2; break;
    case FLOG: *(int *)p = v % 2; break;
    case PAIR:
      if (t->type == MPI_FLOAT_INT) *(float *)p = (float)(v % 4);
      else if (t->type == MPI_DOUBLE_INT) *(double *)p = v % 4;
      else if (t->type == MPI_SHORT_INT) *(short *)p = (short)(v % 4);
      else if (t->type == MPI_LONG_INT) *(long *)p = v % 4;
      else if (t->type == MPI_LONG_DOUBLE_INT) *(long double *)p = v % 4;
      else if (t->type == MPI_2REAL) *(float *)p = (float)(v % 4);
      else if (t->type == MPI_2DOUBLE_PRECISION) *(double *)p = v % 4;
      else *(int *)p = v % 4;
      /* index: an int, except in the Fortran pairs, where it has the value's type */
      if (t->type == MPI_2REAL) *(float *)(p + t->pair_int) = (float)v;
      else if (t->type == MPI_2DOUBLE_PRECISION) *(double *)(p + t->pair_int) = v;
      else *(int *)(p + t->pair_int) = v;
      break;
  }
}

static int same(const struct type_case *t, MPI_Aint extent, const void *a, const void *b, int i) {
  const char *x = (const char *)a + i * extent, *y = (const char *)b + i * extent;
  switch (t->kind) {
    case REAL:
      if (t->size == 16) return *(const long double *)x == *(const long double *)y;
      return memcmp(x, y, t->size) == 0;
    case BOOL: return (*(const bool *)x != 0) == (*(const bool *)y != 0);
    case FLOG: return (*(const int *)x != 0) == (*(const int *)y != 0);
    case PAIR:
      if (t->type == MPI_LONG_DOUBLE_INT)
        return *(const long double *)x == *(const long double *)y &&
               *(const int *)(x + 16) == *(const int *)(y + 16);
      if (t->type == MPI_2DOUBLE_PRECISION) return memcmp(x, y, 16) == 0;
      return memcmp(x, y, t->size) == 0 &&
             *(const int *)(x + t->pair_int) == *(const int *)(y + t->pair_int);
    default: return memcmp(x, y, t->size) == 0;
  }
}

static int contribution(int rank, int i) { return 1 + (rank * 3 + i * 7) % 5; }

static void one_case(MPI_Win win, char *mem, int rank, int size, const struct type_case *t, int o) {
  MPI_Aint lb, extent;
  MPI_Type_get_extent(t->type, &lb, &extent);
  char init[SLOT], mine[SLOT], expected[SLOT], any[SLOT];
  memset(init, 0, sizeof init);
  for (int i = 0; i < K; ++i) set(t, extent, init, i, 2 + i % 3);
  for (int i = 0; i < K; ++i) set(t, extent, mine, i, contribution(rank, i));
  /* Does the op apply? MPI_Reduce_local answers with MPI_ERR_OP when not
     (it refuses MPI_REPLACE/MPI_NO_OP, which apply to everything). */
  memcpy(expected, init, sizeof init);
  int applies = ops[o].op == MPI_REPLACE || ops[o].op == MPI_NO_OP;
  if (!applies) {
    char scratch[SLOT];
    memcpy(scratch, init, sizeof init);
    applies = MPI_Reduce_local(mine, scratch, K, t->type, ops[o].op) == MPI_SUCCESS;
    for (int r = 0; applies && r < size; ++r) {
      char theirs[SLOT];
      for (int i = 0; i < K; ++i) set(t, extent, theirs, i, contribution(r, i));
      MPI_Reduce_local(theirs, expected, K, t->type, ops[o].op);
    }
  }
  if (rank == 0) memcpy(mem, init, sizeof init);
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  int rc = MPI_Accumulate(mine, K, t->type, 0, 0, K, t->type, ops[o].op, win);
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  if (!applies) {
    CHECK_ERR_CLASS(rc, MPI_ERR_OP);
    return;
  }
  CHECK(rc == MPI_SUCCESS, "%s on %s: %s", ops[o].name, t->name, mtest_err_text(rc));
  if (rank != 0) return;
  for (int i = 0; i < K; ++i) {
    if (ops[o].op == MPI_REPLACE) {
      int found = 0;
      for (int r = 0; r < size && !found; ++r) {
        set(t, extent, any, i, contribution(r, i));
        found = same(t, extent, mem, any, i);
      }
      CHECK(found, "MPI_REPLACE on %s element %d: the result is none of the contributions", t->name,
            i);
    } else {
      CHECK(same(t, extent, mem, expected, i), "%s on %s element %d differs from MPI_Reduce_local",
            ops[o].name, t->name, i);
    }
  }
}

/* Get_accumulate from rank 0 only: fetch must return the previous values. */
static void fetch_case(MPI_Win win, char *mem, int rank, const struct type_case *t, int o) {
  MPI_Aint lb, extent;
  MPI_Type_get_extent(t->type, &lb, &extent);
  char init[SLOT], mine[SLOT], fetched[SLOT], expected[SLOT];
  memset(init, 0, sizeof init);
  for (int i = 0; i < K; ++i) set(t, extent, init, i, 2 + i % 3);
  for (int i = 0; i < K; ++i) set(t, extent, mine, i, contribution(1, i));
  memcpy(expected, init, sizeof init);
  if (ops[o].op == MPI_REPLACE) memcpy(expected, mine, sizeof mine);
  else if (ops[o].op != MPI_NO_OP &&
           MPI_Reduce_local(mine, expected, K, t->type, ops[o].op) != MPI_SUCCESS)
    return;
  if (rank == 0) memcpy(mem, init, sizeof init);
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  if (rank == 0) {
    memset(fetched, 0, sizeof fetched);
    CHECK_SUCCESS(MPI_Get_accumulate(mine, K, t->type, fetched, K, t->type, 0, 0, K, t->type,
                                     ops[o].op, win));
  }
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  if (rank != 0) return;
  for (int i = 0; i < K; ++i) {
    CHECK(same(t, extent, fetched, init, i),
          "Get_accumulate %s on %s: fetched element %d is not the old value", ops[o].name, t->name,
          i);
    CHECK(same(t, extent, mem, expected, i), "Get_accumulate %s on %s: element %d is wrong",
          ops[o].name, t->name, i);
  }
}

static void run(MPI_Win win, char *mem, int rank, int size) {
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  for (int t = 0; t < NTYPES; ++t)
    for (int o = 0; o < NOPS; ++o) one_case(win, mem, rank, size, &types[t], o);
  for (int t = 0; t < NTYPES; ++t)
    for (int o = 0; o < NOPS; ++o) fetch_case(win, mem, rank, &types[t], o);
  /* MPI_NO_OP with Get_accumulate may pass no origin at all. */
  long got = -1;
  if (rank == 0) *(long *)mem = 42;
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  if (rank == 1)
    CHECK_SUCCESS(MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, &got, 1, MPI_LONG, 0, 0, 1,
                                     MPI_LONG, MPI_NO_OP, win));
  CHECK_SUCCESS(MPI_Win_fence(0, win));
  if (rank == 1) CHECK_INT(got, 42);
}

int main(int argc, char **argv) {
  int rank, size;
  mtest_init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char *mem;
  MPI_Win win;
  CHECK_SUCCESS(MPI_Win_allocate(SLOT, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  run(win, mem, rank, size);
  CHECK_SUCCESS(MPI_Win_free(&win));
  mem = aligned_alloc(64, SLOT);
  CHECK_SUCCESS(MPI_Win_create(mem, SLOT, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  run(win, mem, rank, size);
  CHECK_SUCCESS(MPI_Win_free(&win));
  free(mem);
  return mtest_finish();
}
