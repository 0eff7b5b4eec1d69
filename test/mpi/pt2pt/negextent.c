/* Datatypes with negative extents, strides and displacements over the wire.
 * For each type, the byte offsets of its ints in pack order are written down
 * by hand from MPI's definitions (instance k starts k extents after the
 * buffer pointer, wherever lb is). Rank 0 sends `count` instances of the type
 * and rank 1 receives plain ints, which must be the values at those offsets;
 * then rank 1 sends plain ints back and rank 0 receives into the type, which
 * must put them at those offsets and touch nothing else. Also checks lb and
 * extent as MPI_Type_get_extent reports them. */
#include "mtest.h"

#define ARENA 1024
#define ORIGIN 512 /* the buffer pointer passed to MPI: offsets are relative to it */

struct typecase {
    const char *name;
    MPI_Datatype type;
    int count;
    MPI_Aint lb, extent;
    int n;           /* ints per message */
    int offsets[24]; /* byte offsets in pack order */
};

static int value_at(int offset) { return 1000 + offset; }

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Datatype minus3_9, six_minus9, empty, marker;
    MPI_Type_create_resized(MPI_INT, -3, 9, &minus3_9);
    MPI_Type_create_resized(MPI_INT, 6, -9, &six_minus9);
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_create_resized(empty, 0, -10, &marker);

    struct typecase cases[6];
    int ncases = 0;
    struct typecase *c;

    /* vector(2, 1, -1) of (lb -3, extent 9): ints at 0, -9; lb -12, ub 6. */
    c = &cases[ncases++];
    *c = (struct typecase){"vector of resized(-3, 9)", MPI_DATATYPE_NULL, 3, -12, 18, 6,
                           {0, -9, 18, 9, 36, 27}};
    MPI_Type_vector(2, 1, -1, minus3_9, &c->type);

    /* vector(2, 1, -1) of (lb 6, extent -9): ints at 0, 9; lb 6, ub 6. */
    c = &cases[ncases++];
    *c = (struct typecase){"vector of resized(6, -9)", MPI_DATATYPE_NULL, 1, 6, 0, 2, {0, 9}};
    MPI_Type_vector(2, 1, -1, six_minus9, &c->type);

    /* hvector(3, 1, -16) of int: ints at 0, -16, -32; lb -32, extent 36. */
    c = &cases[ncases++];
    *c = (struct typecase){"hvector stride -16",    MPI_DATATYPE_NULL, 2, -32, 36, 6,
                           {0, -16, -32, 36, 20, 4}};
    MPI_Type_create_hvector(3, 1, -16, MPI_INT, &c->type);

    /* indexed {2 at -5, 1 at 3} (in ints): ints at -20, -16, 12; lb -20, extent 36. */
    c = &cases[ncases++];
    *c = (struct typecase){"indexed negative displacements", MPI_DATATYPE_NULL, 2, -20, 36, 6,
                           {-20, -16, 12, 16, 20, 48}};
    {
        int lens[2] = {2, 1}, displs[2] = {-5, 3};
        MPI_Type_indexed(2, lens, displs, MPI_INT, &c->type);
    }

    /* struct {int at 40, marker (extent -10) at 0, int at -8}: no padding (ints
     * only); lb -8 from the int, ub 44; the marker (lb 0, ub -10) does not
     * move them. */
    c = &cases[ncases++];
    *c = (struct typecase){
        "struct with a negative-extent marker", MPI_DATATYPE_NULL, 2, -8, 52, 4, {40, -8, 92, 44}};
    {
        int lens[3] = {1, 1, 1};
        MPI_Aint displs[3] = {40, 0, -8};
        MPI_Datatype types[3] = {MPI_INT, marker, MPI_INT};
        MPI_Type_create_struct(3, lens, displs, types, &c->type);
    }

    /* contiguous(3) of resized(int, 6, -9): ints at 0, -9, -18; lb -12,
     * ub -3 (extent 9 though each step goes down by 9). */
    c = &cases[ncases++];
    *c = (struct typecase){"contiguous of resized(6, -9)", MPI_DATATYPE_NULL, 2, -12, 9, 6,
                           {0, -9, -18, 9, 0, -9}};
    MPI_Type_contiguous(3, six_minus9, &c->type);

    for (int t = 0; t < ncases; ++t) {
        c = &cases[t];
        MPI_Type_commit(&c->type);
        MPI_Aint lb, extent;
        MPI_Type_get_extent(c->type, &lb, &extent);
        CHECK(lb == c->lb && extent == c->extent, "%s: lb %ld extent %ld, expected %ld %ld",
              c->name, (long)lb, (long)extent, (long)c->lb, (long)c->extent);
        int size;
        MPI_Type_size(c->type, &size);
        CHECK(size * c->count == c->n * (int)sizeof(int), "%s: size %d", c->name, size);
        if (size < 2)
            continue;
        char arena[ARENA];
        char *buf = arena + ORIGIN;
        int ints[24];
        if (rank == 0) {
            for (int off = -ORIGIN; off < ARENA - ORIGIN - 3; off += 1) {
                int v = value_at(off);
                memcpy(buf + off, &v, sizeof v); /* later writes overlap earlier: fine */
            }
            /* Each listed offset holds value_at(offset) after the writes above
             * only if nothing overwrote it: rewrite them last. */
            for (int i = 0; i < c->n; ++i) {
                int v = value_at(c->offsets[i]);
                memcpy(buf + c->offsets[i], &v, sizeof v);
            }
            CHECK_SUCCESS(MPI_Send(buf, c->count, c->type, 1, t, MPI_COMM_WORLD));
        } else if (rank == 1) {
            CHECK_SUCCESS(MPI_Recv(ints, c->n, MPI_INT, 0, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int i = 0; i < c->n; ++i)
                CHECK(ints[i] == value_at(c->offsets[i]),
                      "%s: int %d is %d, expected %d (offset %d)", c->name, i, ints[i],
                      value_at(c->offsets[i]), c->offsets[i]);
            for (int i = 0; i < c->n; ++i)
                ints[i] = 5000 + i;
            CHECK_SUCCESS(MPI_Send(ints, c->n, MPI_INT, 0, t, MPI_COMM_WORLD));
        }
        if (rank == 0) {
            memset(arena, 0x55, sizeof arena);
            CHECK_SUCCESS(
                MPI_Recv(buf, c->count, c->type, 1, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            char expected[ARENA];
            memset(expected, 0x55, sizeof expected);
            for (int i = 0; i < c->n; ++i) {
                int v = 5000 + i;
                memcpy(expected + ORIGIN + c->offsets[i], &v, sizeof v);
            }
            CHECK(memcmp(arena, expected, sizeof arena) == 0, "%s: received layout differs",
                  c->name);
        }
    }
    for (int t = 0; t < ncases; ++t)
        MPI_Type_free(&cases[t].type);
    MPI_Type_free(&minus3_9);
    MPI_Type_free(&six_minus9);
    MPI_Type_free(&marker);
    MPI_Type_free(&empty);
    return mtest_finish();
}
