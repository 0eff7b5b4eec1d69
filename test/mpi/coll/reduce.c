/* MPI_Reduce to every root: predefined ops on several types with
 * rank-dependent values, MPI_IN_PLACE at the root, MINLOC/MAXLOC, a
 * derived type, a commutative user op, and a non-commutative user op whose
 * result proves operands were combined in rank order. */
#include "mtest.h"

/* Elements are (first, last, broken) triples of ints describing a range
 * of ranks; combining [a,b] with [c,d] requires b+1 == c. The identity of
 * order: in is the left operand (lower ranks), inout the right one. */
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

static void int_max_user(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        if (a[i] > b[i])
            b[i] = a[i];
}

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    enum { N = 1000 };
    int isend[N], irecv[N];
    double dsend[N], drecv[N];
    long lsend[N], lrecv[N];

    MPI_Op noncomm, usermax;
    MPI_Op_create(ordered_concat, 0, &noncomm);
    MPI_Op_create(int_max_user, 1, &usermax);

    for (int root = 0; root < size; root++) {
        for (int i = 0; i < N; i++) {
            isend[i] = rank + i;
            dsend[i] = rank * 0.25 + i;
            lsend[i] = (long)rank << 33 | i;
            irecv[i] = -1;
            drecv[i] = -1;
            lrecv[i] = -1;
        }
        /* SUM */
        CHECK_SUCCESS(MPI_Reduce(isend, irecv, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
        CHECK_SUCCESS(MPI_Reduce(dsend, drecv, N, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD));
        CHECK_SUCCESS(MPI_Reduce(lsend, lrecv, N, MPI_LONG, MPI_MAX, root, MPI_COMM_WORLD));
        if (rank == root) {
            int bad = 0;
            for (int i = 0; i < N; i++) {
                if (irecv[i] != size * (size - 1) / 2 + size * i)
                    bad++;
                if (drecv[i] != 0.25 * size * (size - 1) / 2 + (double)size * i)
                    bad++;
                if (lrecv[i] != ((long)(size - 1) << 33 | i))
                    bad++;
            }
            CHECK(bad == 0, "root %d: %d wrong sums/maxima", root, bad);
        } else {
            CHECK(irecv[0] == -1 && drecv[0] == -1, "non-root recvbuf written");
        }

        /* MIN and PROD on small values */
        int mine = rank + 2, got = -1;
        CHECK_SUCCESS(MPI_Reduce(&mine, &got, 1, MPI_INT, MPI_MIN, root, MPI_COMM_WORLD));
        if (rank == root)
            CHECK_INT(got, 2);
        long prod = 1, lgot = -1, lmine = rank + 1;
        for (int r = 1; r <= size; r++)
            prod *= r;
        CHECK_SUCCESS(MPI_Reduce(&lmine, &lgot, 1, MPI_LONG, MPI_PROD, root, MPI_COMM_WORLD));
        if (rank == root)
            CHECK_INT(lgot, prod);

        /* MPI_IN_PLACE at the root */
        for (int i = 0; i < N; i++)
            irecv[i] = rank * i;
        const void *sb = rank == root ? MPI_IN_PLACE : (void *)irecv;
        CHECK_SUCCESS(
            MPI_Reduce(sb, rank == root ? irecv : NULL, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
        if (rank == root) {
            int bad = 0;
            for (int i = 0; i < N; i++)
                if (irecv[i] != i * size * (size - 1) / 2)
                    bad++;
            CHECK(bad == 0, "in-place root %d: %d wrong", root, bad);
        }

        /* MAXLOC on (value, index) pairs: value peaks at rank size-1-(i%size) */
        struct {
            int v, i;
        } pin[8], pout[8];
        for (int i = 0; i < 8; i++) {
            pin[i].v = (rank == size - 1 - i % size) ? 100 : rank;
            pin[i].i = rank;
        }
        CHECK_SUCCESS(MPI_Reduce(pin, pout, 8, MPI_2INT, MPI_MAXLOC, root, MPI_COMM_WORLD));
        if (rank == root)
            for (int i = 0; i < 8; i++)
                CHECK(pout[i].v == 100 && pout[i].i == size - 1 - i % size, "maxloc[%d] = (%d,%d)",
                      i, pout[i].v, pout[i].i);

        /* Non-commutative user op: operand order */
        int trip[3 * 5], tout[3 * 5];
        for (int k = 0; k < 5; k++) {
            trip[3 * k] = rank;
            trip[3 * k + 1] = rank;
            trip[3 * k + 2] = 0;
        }
        CHECK_SUCCESS(MPI_Reduce(trip, tout, 15, MPI_INT, noncomm, root, MPI_COMM_WORLD));
        if (rank == root)
            for (int k = 0; k < 5; k++)
                CHECK(tout[3 * k] == 0 && tout[3 * k + 1] == size - 1 && tout[3 * k + 2] == 0,
                      "non-commutative root %d: [%d,%d] broken %d", root, tout[3 * k],
                      tout[3 * k + 1], tout[3 * k + 2]);
        /* ... and in place */
        if (rank == root) {
            memcpy(tout, trip, sizeof trip);
            CHECK_SUCCESS(
                MPI_Reduce(MPI_IN_PLACE, tout, 15, MPI_INT, noncomm, root, MPI_COMM_WORLD));
            CHECK(tout[0] == 0 && tout[1] == size - 1 && tout[2] == 0,
                  "in-place ordered [%d,%d] %d", tout[0], tout[1], tout[2]);
        } else {
            CHECK_SUCCESS(MPI_Reduce(trip, NULL, 15, MPI_INT, noncomm, root, MPI_COMM_WORLD));
        }

        /* Commutative user op */
        int um = rank * 3 % (size + 1), umax = -1, want = 0;
        for (int r = 0; r < size; r++)
            if (r * 3 % (size + 1) > want)
                want = r * 3 % (size + 1);
        CHECK_SUCCESS(MPI_Reduce(&um, &umax, 1, MPI_INT, usermax, root, MPI_COMM_WORLD));
        if (rank == root)
            CHECK_INT(umax, want);
    }

    /* A derived type: contiguous pairs of doubles, summed element-wise. */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair);
    double ps[6] = {rank, 1, rank, 2, rank, 3}, pr[6] = {0};
    CHECK_SUCCESS(MPI_Reduce(ps, pr, 3, pair, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0)
        for (int k = 0; k < 3; k++)
            CHECK(pr[2 * k] == size * (size - 1) / 2.0 && pr[2 * k + 1] == size * (k + 1.0),
                  "pair %d = (%g,%g)", k, pr[2 * k], pr[2 * k + 1]);
    MPI_Type_free(&pair);

    /* A type with holes and a nonzero lower bound: doubles at 1 and 3
     * (extent 3 doubles, true lb 1 double). Holes at the root stay as they are. */
    MPI_Datatype holes;
    int disps[2] = {1, 3};
    MPI_Type_create_indexed_block(2, 1, disps, MPI_DOUBLE, &holes);
    MPI_Type_commit(&holes);
    for (int root = 0; root < size; root++) {
        double hs[7], hr[7];
        for (int i = 0; i < 7; i++) {
            hs[i] = rank * 10.0 + i;
            hr[i] = -1.0;
        }
        CHECK_SUCCESS(MPI_Reduce(hs, hr, 2, holes, MPI_SUM, root, MPI_COMM_WORLD));
        if (rank == root)
            for (int i = 0; i < 7; i++) {
                int data = i == 1 || i == 3 || i == 4 || i == 6;
                double want = data ? 10.0 * size * (size - 1) / 2 + (double)size * i : -1.0;
                CHECK(hr[i] == want, "holes root %d: [%d] = %g, expected %g", root, i, hr[i], want);
            }
        /* in place */
        for (int i = 0; i < 7; i++)
            hr[i] = rank == root ? hs[i] : -1.0;
        CHECK_SUCCESS(MPI_Reduce(rank == root ? MPI_IN_PLACE : (void *)hs, hr, 2, holes, MPI_MAX,
                                 root, MPI_COMM_WORLD));
        if (rank == root)
            for (int i = 0; i < 7; i++) {
                int data = i == 1 || i == 3 || i == 4 || i == 6;
                double want = data ? 10.0 * (size - 1) + i : hs[i];
                CHECK(hr[i] == want, "in-place holes root %d: [%d] = %g", root, i, hr[i]);
            }
    }
    MPI_Type_free(&holes);

    /* count 0 is fine */
    CHECK_SUCCESS(MPI_Reduce(isend, irecv, 0, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));

    MPI_Op_free(&noncomm);
    MPI_Op_free(&usermax);
    return mtest_finish();
}
