/* MPI_Sendrecv, MPI_Sendrecv_replace (ring shift by 1 and by k), MPI_Isendrecv
 * and MPI_Isendrecv_replace, small and large, with wildcard receive sides and
 * MPI_PROC_NULL partners at the ends of an open chain. */
#include "mtest.h"

static int rank, size;

static void check_data(const int *b, int n, int src, int tag, const char *what)
{
    for (int i = 0; i < n; i++)
        if (b[i] != mtest_pattern(src, tag, i)) {
            CHECK(0, "%s (n=%d): element %d is %d, expected %d from %d", what, n, i, b[i],
                  mtest_pattern(src, tag, i), src);
            return;
        }
}

static void check_status(MPI_Status *st, int src, int tag, int n, const char *what)
{
    int c = -1;
    MPI_Get_count(st, MPI_INT, &c);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && c == n,
          "%s: source %d tag %d count %d, expected %d %d %d", what, st->MPI_SOURCE, st->MPI_TAG, c,
          src, tag, n);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int lens[] = {0, 1, 100, 4096, 4097, 50000};
    const int nlens = (int)(sizeof lens / sizeof lens[0]);
    int maxlen = 50000;
    int *s = malloc(maxlen * sizeof(int)), *r = malloc((maxlen + 1) * sizeof(int));
    MPI_Status st;

    for (int li = 0; li < nlens; li++) {
        int n = lens[li];
        for (int shift = 1; shift < size; shift++) {
            int dst = (rank + shift) % size, src = (rank - shift + size) % size;
            int tag = li * 100 + shift;
            /* all messages of the previous step are received: within a step only
             * src sends to this rank, so the wildcard receives below match it */
            MPI_Barrier(MPI_COMM_WORLD);

            /* Sendrecv, receive side names the source */
            for (int i = 0; i < n; i++)
                s[i] = mtest_pattern(rank, tag, i);
            for (int i = 0; i <= n; i++)
                r[i] = -1;
            CHECK_SUCCESS(MPI_Sendrecv(s, n, MPI_INT, dst, tag, r, n + 1, MPI_INT, src, tag,
                                       MPI_COMM_WORLD, &st));
            check_status(&st, src, tag, n, "Sendrecv");
            check_data(r, n, src, tag, "Sendrecv");
            CHECK(r[n] == -1, "Sendrecv wrote past the message");

            /* Sendrecv with wildcards on the receive side */
            for (int i = 0; i <= n; i++)
                r[i] = -1;
            CHECK_SUCCESS(MPI_Sendrecv(s, n, MPI_INT, dst, tag + 1, r, n, MPI_INT, MPI_ANY_SOURCE,
                                       MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            check_status(&st, src, tag + 1, n, "Sendrecv(ANY_SOURCE, ANY_TAG)");
            check_data(r, n, src, tag, "Sendrecv(ANY_SOURCE, ANY_TAG)");

            /* Sendrecv_replace: the buffer now holds the neighbour's data */
            for (int i = 0; i < n; i++)
                r[i] = mtest_pattern(rank, tag + 2, i);
            CHECK_SUCCESS(MPI_Sendrecv_replace(r, n, MPI_INT, dst, tag + 2, src, tag + 2,
                                               MPI_COMM_WORLD, &st));
            check_status(&st, src, tag + 2, n, "Sendrecv_replace");
            check_data(r, n, src, tag + 2, "Sendrecv_replace");

            /* Isendrecv */
            MPI_Request req;
            for (int i = 0; i <= n; i++)
                r[i] = -1;
            for (int i = 0; i < n; i++)
                s[i] = mtest_pattern(rank, tag + 3, i);
            CHECK_SUCCESS(MPI_Isendrecv(s, n, MPI_INT, dst, tag + 3, r, n + 1, MPI_INT, src,
                                        MPI_ANY_TAG, MPI_COMM_WORLD, &req));
            CHECK_SUCCESS(MPI_Wait(&req, &st));
            CHECK(req == MPI_REQUEST_NULL, "Isendrecv request not freed by Wait");
            check_status(&st, src, tag + 3, n, "Isendrecv");
            check_data(r, n, src, tag + 3, "Isendrecv");

            /* Isendrecv_replace, completed with Test */
            for (int i = 0; i < n; i++)
                r[i] = mtest_pattern(rank, tag + 4, i);
            CHECK_SUCCESS(MPI_Isendrecv_replace(r, n, MPI_INT, dst, tag + 4, MPI_ANY_SOURCE,
                                                tag + 4, MPI_COMM_WORLD, &req));
            int flag = 0;
            while (!flag)
                CHECK_SUCCESS(MPI_Test(&req, &flag, &st));
            check_status(&st, src, tag + 4, n, "Isendrecv_replace");
            check_data(r, n, src, tag + 4, "Isendrecv_replace");
        }
    }

    /* Open chain: the ends talk to MPI_PROC_NULL. */
    MPI_Barrier(MPI_COMM_WORLD);
    {
        int n = 5000, tag = 77;
        int next = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
        int prev = rank > 0 ? rank - 1 : MPI_PROC_NULL;
        for (int i = 0; i < n; i++)
            r[i] = mtest_pattern(rank, tag, i);
        CHECK_SUCCESS(
            MPI_Sendrecv_replace(r, n, MPI_INT, next, tag, prev, tag, MPI_COMM_WORLD, &st));
        if (prev == MPI_PROC_NULL) {
            check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "Sendrecv_replace from MPI_PROC_NULL");
            check_data(r, n, rank, tag, "Sendrecv_replace from MPI_PROC_NULL leaves the buffer");
        } else {
            check_status(&st, prev, tag, n, "chain Sendrecv_replace");
            check_data(r, n, prev, tag, "chain Sendrecv_replace");
        }
        MPI_Request req;
        for (int i = 0; i < n; i++)
            s[i] = mtest_pattern(rank, tag + 1, i);
        for (int i = 0; i < n; i++)
            r[i] = -3;
        CHECK_SUCCESS(MPI_Isendrecv(s, n, MPI_INT, prev, tag + 1, r, n, MPI_INT, next, tag + 1,
                                    MPI_COMM_WORLD, &req));
        CHECK_SUCCESS(MPI_Wait(&req, &st));
        if (next == MPI_PROC_NULL) {
            check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "Isendrecv from MPI_PROC_NULL");
            CHECK(r[0] == -3 && r[n - 1] == -3, "Isendrecv from MPI_PROC_NULL changed the buffer");
        } else {
            check_status(&st, next, tag + 1, n, "chain Isendrecv");
            check_data(r, n, next, tag + 1, "chain Isendrecv");
        }
    }

    /* Sendrecv with itself: send and receive sides both name this rank. */
    {
        int n = 3000;
        for (int i = 0; i < n; i++)
            s[i] = mtest_pattern(rank, 5, i);
        CHECK_SUCCESS(
            MPI_Sendrecv(s, n, MPI_INT, rank, 5, r, n, MPI_INT, rank, 5, MPI_COMM_WORLD, &st));
        check_status(&st, rank, 5, n, "Sendrecv to self");
        check_data(r, n, rank, 5, "Sendrecv to self");
        for (int i = 0; i < n; i++)
            r[i] = mtest_pattern(rank, 6, i);
        CHECK_SUCCESS(MPI_Sendrecv_replace(r, n, MPI_INT, rank, 6, rank, 6, MPI_COMM_WORLD, &st));
        check_data(r, n, rank, 6, "Sendrecv_replace to self");
    }
    free(s);
    free(r);
    return mtest_finish();
}
