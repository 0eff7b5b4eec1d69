/* The Fortran datatypes are named, usable datatypes in C too (MPICH's datatype/typename), with
 * gfortran's sizes (REAL16 and INTEGER16 are 16 bytes, the pair types two of their element), and
 * move data between ranks; MPI_INTEGER16 is moved but has no reductions. Structs made only of
 * MPI_LB / MPI_UB markers have the bounds MPICH gives them (datatype/struct_no_real_types):
 * {(LB,10)} lb 10 extent -10, {(UB,10)} lb 0 extent 10, {(LB,-4),(UB,20)} lb -4 extent 24. */
#include <string.h>

#include "mtest.h"

struct Named {
    MPI_Datatype type;
    const char *name;
    int size;
    MPI_Aint extent;
};

static void check_markers(int n, const MPI_Datatype *types, const MPI_Aint *disps, MPI_Aint lb,
                          MPI_Aint extent)
{
    int lens[2] = {1, 1};
    MPI_Datatype t = MPI_DATATYPE_NULL;
    CHECK_SUCCESS(MPI_Type_create_struct(n, lens, disps, types, &t));
    MPI_Aint got_lb = -99, got_extent = -99;
    int size = -1;
    CHECK_SUCCESS(MPI_Type_get_extent(t, &got_lb, &got_extent));
    CHECK_SUCCESS(MPI_Type_size(t, &size));
    CHECK(got_lb == lb && got_extent == extent,
          "markers-only struct (%d): lb %ld extent %ld, "
          "expected %ld %ld",
          n, (long)got_lb, (long)got_extent, (long)lb, (long)extent);
    CHECK_INT(size, 0);
    CHECK_SUCCESS(MPI_Type_free(&t));
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const struct Named named[] = {
        {MPI_CHARACTER, "MPI_CHARACTER", 1, 1},
        {MPI_INTEGER, "MPI_INTEGER", 4, 4},
        {MPI_REAL, "MPI_REAL", 4, 4},
        {MPI_LOGICAL, "MPI_LOGICAL", 4, 4},
        {MPI_COMPLEX, "MPI_COMPLEX", 8, 8},
        {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8, 8},
        {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16, 16},
        {MPI_2INTEGER, "MPI_2INTEGER", 8, 8},
        {MPI_2REAL, "MPI_2REAL", 8, 8},
        {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16, 16},
        {MPI_REAL4, "MPI_REAL4", 4, 4},
        {MPI_REAL8, "MPI_REAL8", 8, 8},
        {MPI_REAL16, "MPI_REAL16", 16, 16},
        {MPI_COMPLEX8, "MPI_COMPLEX8", 8, 8},
        {MPI_COMPLEX16, "MPI_COMPLEX16", 16, 16},
        {MPI_COMPLEX32, "MPI_COMPLEX32", 32, 32},
        {MPI_INTEGER1, "MPI_INTEGER1", 1, 1},
        {MPI_INTEGER2, "MPI_INTEGER2", 2, 2},
        {MPI_INTEGER4, "MPI_INTEGER4", 4, 4},
        {MPI_INTEGER8, "MPI_INTEGER8", 8, 8},
        {MPI_INTEGER16, "MPI_INTEGER16", 16, 16},
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        const struct Named *n = &named[i];
        CHECK(n->type != MPI_DATATYPE_NULL, "%s is MPI_DATATYPE_NULL", n->name);
        char name[MPI_MAX_OBJECT_NAME];
        int len = 0, sz = -1;
        MPI_Aint lb = -1, extent = -1;
        CHECK_SUCCESS(MPI_Type_get_name(n->type, name, &len));
        CHECK(strcmp(name, n->name) == 0 && len == (int)strlen(n->name), "name of %s: '%s' (%d)",
              n->name, name, len);
        CHECK_SUCCESS(MPI_Type_size(n->type, &sz));
        CHECK(sz == n->size, "size of %s: %d, expected %d", n->name, sz, n->size);
        CHECK_SUCCESS(MPI_Type_get_extent(n->type, &lb, &extent));
        CHECK(lb == 0 && extent == n->extent, "%s: lb %ld extent %ld", n->name, (long)lb,
              (long)extent);
    }

    /* INTEGER16 values travel unchanged around a ring. */
    if (size > 1) {
        unsigned char out[3][16], in[3][16];
        for (int k = 0; k < 3; k++)
            for (int b = 0; b < 16; b++)
                out[k][b] = (unsigned char)(rank * 31 + k * 16 + b);
        const int right = (rank + 1) % size, left = (rank + size - 1) % size;
        CHECK_SUCCESS(MPI_Sendrecv(out, 3, MPI_INTEGER16, right, 5, in, 3, MPI_INTEGER16, left, 5,
                                   MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int k = 0; k < 3; k++)
            for (int b = 0; b < 16; b++)
                CHECK(in[k][b] == (unsigned char)(left * 31 + k * 16 + b), "byte %d of %d", b, k);
    }
    /* No reduction kernels for INTEGER16: refused, not silently wrong. */
    unsigned char a[16] = {1}, r[16];
    int rc = MPI_Allreduce(a, r, 1, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rc != MPI_SUCCESS, "MPI_SUM on MPI_INTEGER16 succeeded");

    /* Structs of markers only. */
    MPI_Datatype lb_only[] = {MPI_LB}, ub_only[] = {MPI_UB}, both[] = {MPI_LB, MPI_UB};
    MPI_Aint d10[] = {10}, dboth[] = {-4, 20};
    check_markers(1, lb_only, d10, 10, -10);
    check_markers(1, ub_only, d10, 0, 10);
    check_markers(2, both, dboth, -4, 24);

    return mtest_finish();
}
