/* MPI_Type_get_envelope / MPI_Type_get_contents (and _c) for every combiner
 * we build, against the arguments the constructor was given; the decoded
 * types are usable and must be freed; predefined types are NAMED and have no
 * contents; too small arrays are MPI_ERR_ARG; MPI_Type_match_size and the
 * f90 parameterized types. */
#include "mtest.h"

/* Checks the envelope of `t` and returns its contents in the arrays. */
static void envelope(MPI_Datatype t, int combiner, int ni, int na, int nd)
{
    int gi = -1, ga = -1, gd = -1, gc = -1;
    CHECK_SUCCESS(MPI_Type_get_envelope(t, &gi, &ga, &gd, &gc));
    CHECK_INT(gc, combiner);
    CHECK_INT(gi, ni);
    CHECK_INT(ga, na);
    CHECK_INT(gd, nd);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int ints[32];
    MPI_Aint aints[16];
    MPI_Datatype types[8];

    /* Predefined: NAMED, nothing to decode. */
    envelope(MPI_DOUBLE, MPI_COMBINER_NAMED, 0, 0, 0);
    CHECK_ERR_CLASS(MPI_Type_get_contents(MPI_DOUBLE, 0, 0, 0, ints, aints, types), MPI_ERR_TYPE);

    /* vector(3, 2, 5, MPI_INT) */
    MPI_Datatype vec;
    MPI_Type_vector(3, 2, 5, MPI_INT, &vec);
    envelope(vec, MPI_COMBINER_VECTOR, 3, 0, 1);
    CHECK_SUCCESS(MPI_Type_get_contents(vec, 3, 0, 1, ints, aints, types));
    CHECK_INT(ints[0], 3);
    CHECK_INT(ints[1], 2);
    CHECK_INT(ints[2], 5);
    CHECK(types[0] == MPI_INT, "vector's old type 0x%x", (unsigned)types[0]);
    CHECK_ERR_CLASS(MPI_Type_get_contents(vec, 2, 0, 1, ints, aints, types), MPI_ERR_ARG);

    /* struct of the vector and a double: the derived component comes back
     * as a handle the caller frees, and it still works. */
    int blocks[2] = {1, 2};
    MPI_Aint displs[2] = {0, 64};
    MPI_Datatype comps[2] = {vec, MPI_DOUBLE};
    MPI_Datatype st;
    MPI_Type_create_struct(2, blocks, displs, comps, &st);
    envelope(st, MPI_COMBINER_STRUCT, 3, 2, 2);
    CHECK_SUCCESS(MPI_Type_get_contents(st, 3, 2, 2, ints, aints, types));
    CHECK_INT(ints[0], 2);
    CHECK_INT(ints[1], 1);
    CHECK_INT(ints[2], 2);
    CHECK_INT((long)aints[1], 64);
    CHECK(types[1] == MPI_DOUBLE, "struct's second type");
    MPI_Datatype got_vec = types[0];
    MPI_Type_free(&vec);
    MPI_Type_free(&st);
    int size = 0;
    CHECK_SUCCESS(MPI_Type_size(got_vec, &size));
    CHECK_INT(size, 6 * (int)sizeof(int));
    envelope(got_vec, MPI_COMBINER_VECTOR, 3, 0, 1);
    CHECK_SUCCESS(MPI_Type_free(&got_vec));

    /* resized, hvector, indexed_block, dup */
    MPI_Datatype rs, hv, ib, dup;
    MPI_Type_create_resized(MPI_INT, -4, 16, &rs);
    envelope(rs, MPI_COMBINER_RESIZED, 0, 2, 1);
    CHECK_SUCCESS(MPI_Type_get_contents(rs, 0, 2, 1, ints, aints, types));
    CHECK_INT((long)aints[0], -4);
    CHECK_INT((long)aints[1], 16);
    MPI_Type_create_hvector(4, 1, 24, rs, &hv);
    envelope(hv, MPI_COMBINER_HVECTOR, 2, 1, 1);
    CHECK_SUCCESS(MPI_Type_get_contents(hv, 2, 1, 1, ints, aints, types));
    CHECK_INT(ints[0], 4);
    CHECK_INT((long)aints[0], 24);
    MPI_Type_free(&types[0]);
    int ibd[3] = {0, 7, 3};
    MPI_Type_create_indexed_block(3, 2, ibd, MPI_SHORT, &ib);
    envelope(ib, MPI_COMBINER_INDEXED_BLOCK, 5, 0, 1);
    CHECK_SUCCESS(MPI_Type_get_contents(ib, 5, 0, 1, ints, aints, types));
    CHECK_INT(ints[3], 7);
    MPI_Type_dup(ib, &dup);
    envelope(dup, MPI_COMBINER_DUP, 0, 0, 1);

    /* Large-count constructor: decoded with the _c calls only. */
    MPI_Datatype bigvec;
    MPI_Type_vector_c(3, 2, (MPI_Count)1 << 33, MPI_CHAR, &bigvec);
    MPI_Count ci = -1, ca = -1, cc = -1, cd = -1;
    int comb = -1;
    CHECK_SUCCESS(MPI_Type_get_envelope_c(bigvec, &ci, &ca, &cc, &cd, &comb));
    CHECK_INT(comb, MPI_COMBINER_VECTOR);
    CHECK_INT((long)cc, 3);
    CHECK_INT((long)cd, 1);
    MPI_Count counts[4];
    CHECK_SUCCESS(MPI_Type_get_contents_c(bigvec, ci, ca, cc, cd, ints, aints, counts, types));
    CHECK(counts[2] == (MPI_Count)1 << 33, "stride %lld", (long long)counts[2]);
    int gi, ga, gd, gc;
    CHECK_ERR_CLASS(MPI_Type_get_envelope(bigvec, &gi, &ga, &gd, &gc), MPI_ERR_TYPE);

    /* match_size and f90 types. */
    MPI_Datatype m;
    CHECK_SUCCESS(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m));
    CHECK(m == MPI_REAL8, "match REAL 8");
    CHECK_SUCCESS(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &m));
    CHECK(m == MPI_INTEGER4, "match INTEGER 4");
    CHECK_ERR_CLASS(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &m), MPI_ERR_ARG);
    CHECK_ERR_CLASS(MPI_Type_match_size(99, 4, &m), MPI_ERR_ARG);
    MPI_Datatype f1, f2;
    CHECK_SUCCESS(MPI_Type_create_f90_real(10, MPI_UNDEFINED, &f1));
    CHECK_SUCCESS(MPI_Type_create_f90_real(10, MPI_UNDEFINED, &f2));
    CHECK(f1 == f2, "the same parameters give the same type");
    CHECK_SUCCESS(MPI_Type_size(f1, &size));
    CHECK_INT(size, 8);
    envelope(f1, MPI_COMBINER_F90_REAL, 2, 0, 0);
    CHECK_SUCCESS(MPI_Type_get_contents(f1, 2, 0, 0, ints, aints, types));
    CHECK_INT(ints[0], 10);
    CHECK_INT(ints[1], MPI_UNDEFINED);
    CHECK_ERR_CLASS(MPI_Type_free(&f1), MPI_ERR_TYPE);
    MPI_Datatype fi, fc;
    CHECK_SUCCESS(MPI_Type_create_f90_integer(9, &fi));
    CHECK_SUCCESS(MPI_Type_size(fi, &size));
    CHECK_INT(size, 4);
    CHECK_SUCCESS(MPI_Type_create_f90_complex(5, 30, &fc));
    CHECK_SUCCESS(MPI_Type_size(fc, &size));
    CHECK_INT(size, 8);
    CHECK_ERR_CLASS(MPI_Type_create_f90_integer(40, &fi), MPI_ERR_ARG);
    CHECK_ERR_CLASS(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &f1), MPI_ERR_ARG);

    MPI_Type_free(&rs);
    MPI_Type_free(&hv);
    MPI_Type_free(&ib);
    MPI_Type_free(&dup);
    MPI_Type_free(&bigvec);
    return mtest_finish();
}
