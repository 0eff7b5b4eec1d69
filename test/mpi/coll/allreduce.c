/* MPI_Allreduce on every process: predefined ops over integer, floating,
 * logical and bitwise cases with rank-dependent values, MPI_IN_PLACE,
 * large counts, MINLOC with MPI_DOUBLE_INT, a non-commutative user op
 * (operand order), and bit-identical floating results on all processes. */
#include "mtest.h"

static void ordered_concat(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i += 3) {
        int broken = a[i + 2] || b[i + 2] || a[i + 1] + 1 != b[i];
        b[i] = a[i];
        b[i + 2] = broken;
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* int: SUM MAX MIN PROD LAND LOR LXOR BAND BOR BXOR */
    struct {
        MPI_Op op;
        const char *name;
    } ops[] = {{MPI_SUM, "sum"},   {MPI_MAX, "max"},  {MPI_MIN, "min"},   {MPI_PROD, "prod"},
               {MPI_LAND, "land"}, {MPI_LOR, "lor"},  {MPI_LXOR, "lxor"}, {MPI_BAND, "band"},
               {MPI_BOR, "bor"},   {MPI_BXOR, "bxor"}};
    for (unsigned k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        enum { N = 17 };
        int in[N], out[N];
        for (int i = 0; i < N; i++)
            in[i] = (k == 3) ? (rank % 3 == 0 ? 2 : 1) : (rank * 7 + i) % 11;
        CHECK_SUCCESS(MPI_Allreduce(in, out, N, MPI_INT, ops[k].op, MPI_COMM_WORLD));
        for (int i = 0; i < N; i++) {
            long want = 0;
            for (int r = 0; r < size; r++) {
                long v = (k == 3) ? (r % 3 == 0 ? 2 : 1) : (r * 7 + i) % 11;
                if (r == 0) { /* one process: its value as is */
                    want = v;
                    continue;
                }
                switch (k) {
                case 0: want += v; break;
                case 1: want = v > want ? v : want; break;
                case 2: want = v < want ? v : want; break;
                case 3: want *= v; break;
                case 4: want = want && v; break;
                case 5: want = want || v; break;
                case 6: want = (want != 0) != (v != 0); break;
                case 7: want &= v; break;
                case 8: want |= v; break;
                case 9: want ^= v; break;
                }
            }
            CHECK(out[i] == want, "%s[%d] = %d, expected %ld", ops[k].name, i, out[i], want);
        }
    }

    /* double SUM with values that make the result depend on the order of
     * additions: all processes must get the same bits. */
    enum { M = 100000 };
    double *d = malloc(M * sizeof(double)), *dout = malloc(M * sizeof(double));
    for (int i = 0; i < M; i++)
        d[i] = (rank % 2 ? 1e16 : 1.0) * (i % 5 + 1) + rank * 0.1;
    CHECK_SUCCESS(MPI_Allreduce(d, dout, M, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    double first[2] = {dout[0], dout[M - 1]}, root_first[2];
    memcpy(root_first, first, sizeof first);
    MPI_Bcast(root_first, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    CHECK(memcmp(first, root_first, sizeof first) == 0, "results differ between processes");
    /* and a check of magnitude */
    double approx = 0;
    for (int r = 0; r < size; r++)
        approx += (r % 2 ? 1e16 : 1.0) * 1 + r * 0.1;
    CHECK(dout[0] > approx * 0.999999 && dout[0] < approx * 1.000001, "sum %g vs %g", dout[0],
          approx);

    /* large int count with MPI_IN_PLACE */
    int *big = malloc(M * sizeof(int));
    for (int i = 0; i < M; i++)
        big[i] = rank + i;
    CHECK_SUCCESS(MPI_Allreduce(MPI_IN_PLACE, big, M, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    int bad = 0;
    for (int i = 0; i < M; i++)
        if (big[i] != size * (size - 1) / 2 + size * i)
            bad++;
    CHECK(bad == 0, "in-place: %d wrong", bad);

    /* MINLOC on MPI_DOUBLE_INT: minimum at the middle rank; ties go to the lower index */
    struct {
        double v;
        int i;
    } din[3], dres[3];
    for (int k = 0; k < 3; k++) {
        din[k].v = (rank == size / 2) ? -1.0 : (k == 2 ? -1.0 : rank + 1.0);
        din[k].i = rank;
    }
    CHECK_SUCCESS(MPI_Allreduce(din, dres, 3, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(dres[0].v == -1.0 && dres[0].i == size / 2, "minloc (%g,%d)", dres[0].v, dres[0].i);
    CHECK(dres[2].v == -1.0 && dres[2].i == 0, "minloc tie (%g,%d)", dres[2].v, dres[2].i);

    /* unsigned long BXOR of one-hot bits */
    unsigned long bit = 1ul << (rank % 64), xr = 0;
    CHECK_SUCCESS(MPI_Allreduce(&bit, &xr, 1, MPI_UNSIGNED_LONG, MPI_BXOR, MPI_COMM_WORLD));
    unsigned long wantx = 0;
    for (int r = 0; r < size; r++)
        wantx ^= 1ul << (r % 64);
    CHECK(xr == wantx, "bxor %lx vs %lx", xr, wantx);

    /* Non-commutative user op, plain and in place. */
    MPI_Op noncomm;
    MPI_Op_create(ordered_concat, 0, &noncomm);
    int trip[9], tout[9];
    for (int k = 0; k < 3; k++) {
        trip[3 * k] = trip[3 * k + 1] = rank;
        trip[3 * k + 2] = 0;
    }
    CHECK_SUCCESS(MPI_Allreduce(trip, tout, 9, MPI_INT, noncomm, MPI_COMM_WORLD));
    for (int k = 0; k < 3; k++)
        CHECK(tout[3 * k] == 0 && tout[3 * k + 1] == size - 1 && !tout[3 * k + 2],
              "ordered [%d,%d] broken %d", tout[3 * k], tout[3 * k + 1], tout[3 * k + 2]);
    CHECK_SUCCESS(MPI_Allreduce(MPI_IN_PLACE, trip, 9, MPI_INT, noncomm, MPI_COMM_WORLD));
    CHECK(trip[0] == 0 && trip[1] == size - 1 && !trip[2], "in-place ordered [%d,%d] %d", trip[0],
          trip[1], trip[2]);
    MPI_Op_free(&noncomm);

    /* A type with holes and a nonzero lower bound: ints at 2 and 3 of every
     * 5 (resized). The holes keep each process's own values. */
    MPI_Datatype blk, spaced;
    int disp = 2;
    MPI_Type_create_indexed_block(1, 2, &disp, MPI_INT, &blk);
    MPI_Type_create_resized(blk, 0, 5 * sizeof(int), &spaced);
    MPI_Type_commit(&spaced);
    int hs[15], hr[15];
    for (int i = 0; i < 15; i++) {
        hs[i] = rank + i;
        hr[i] = -1 - rank;
    }
    CHECK_SUCCESS(MPI_Allreduce(hs, hr, 3, spaced, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 15; i++) {
        int data = i % 5 == 2 || i % 5 == 3;
        int want = data ? size * (size - 1) / 2 + size * i : -1 - rank;
        CHECK(hr[i] == want, "holes [%d] = %d, expected %d", i, hr[i], want);
    }
    CHECK_SUCCESS(MPI_Allreduce(MPI_IN_PLACE, hs, 3, spaced, MPI_MAX, MPI_COMM_WORLD));
    for (int i = 0; i < 15; i++) {
        int data = i % 5 == 2 || i % 5 == 3;
        int want = data ? size - 1 + i : rank + i;
        CHECK(hs[i] == want, "in-place holes [%d] = %d, expected %d", i, hs[i], want);
    }
    MPI_Type_free(&spaced);
    MPI_Type_free(&blk);

    /* On a subcommunicator of the odd ranks, reversed. */
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &sub);
    int s = -1, want = 0;
    for (int r = rank % 2; r < size; r += 2)
        want += r;
    CHECK_SUCCESS(MPI_Allreduce(&rank, &s, 1, MPI_INT, MPI_SUM, sub));
    CHECK_INT(s, want);
    MPI_Comm_free(&sub);

    free(d);
    free(dout);
    free(big);
    return mtest_finish();
}
