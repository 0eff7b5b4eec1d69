/* Isend/Irecv between all pairs of ranks, completed with each of Waitall,
 * Waitany, Waitsome, Testall, Testany and Testsome (arrays with some
 * MPI_REQUEST_NULL entries); statuses, counts and data are checked, and each
 * request completes exactly once. */
#include "mtest.h"

#define PER_PEER 3
static int rank, size;

static int msg_len(int src, int dst, int k)
{
    static const int lens[] = {1, 100, 5000, 0, 20000, 17};
    return lens[(src * 5 + dst * 3 + k) % 6];
}
static int msg_tag(int src, int k) { return 100 + k * 10 + src; }

enum { WAITALL, WAITANY, WAITSOME, TESTALL, TESTANY, TESTSOME, NMETHODS };
static const char *method_name[] = {"Waitall", "Waitany", "Waitsome",
                                    "Testall", "Testany", "Testsome"};

static void check_empty_status(MPI_Status *st, const char *what)
{
    int c = -1;
    MPI_Get_count(st, MPI_INT, &c);
    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && c == 0,
          "%s: status of a null request: source %d tag %d count %d", what, st->MPI_SOURCE,
          st->MPI_TAG, c);
}

static void run(int method)
{
    int nreq = 2 * (size - 1) * PER_PEER; /* receives, with a null slot in between */
    MPI_Request *rreq = malloc(nreq * sizeof(MPI_Request));
    MPI_Request *sreq = malloc(nreq * sizeof(MPI_Request));
    int **rbuf = calloc(nreq, sizeof(int *)), **sbuf = calloc(nreq, sizeof(int *));
    int *src_of = malloc(nreq * sizeof(int)), *k_of = malloc(nreq * sizeof(int));
    int *done = calloc(nreq, sizeof(int));
    MPI_Status *sts = malloc(nreq * sizeof(MPI_Status));
    int *idx = malloc(nreq * sizeof(int));
    int n = 0, ns = 0;
    const char *name = method_name[method];

    for (int p = 0; p < size; p++) {
        if (p == rank)
            continue;
        for (int k = 0; k < PER_PEER; k++) {
            int len = msg_len(p, rank, k);
            rbuf[n] = malloc((len + 1) * sizeof(int));
            for (int i = 0; i <= len; i++)
                rbuf[n][i] = -7;
            src_of[n] = p;
            k_of[n] = k;
            CHECK_SUCCESS(
                MPI_Irecv(rbuf[n], len + 1, MPI_INT, p, msg_tag(p, k), MPI_COMM_WORLD, &rreq[n]));
            n++;
            rreq[n] = MPI_REQUEST_NULL; /* a null request in the array */
            src_of[n] = -1;
            done[n] = 1;
            n++;
        }
    }
    for (int p = 0; p < size; p++) {
        if (p == rank)
            continue;
        for (int k = 0; k < PER_PEER; k++) {
            int len = msg_len(rank, p, k);
            sbuf[ns] = malloc((len + 1) * sizeof(int));
            for (int i = 0; i < len; i++)
                sbuf[ns][i] = mtest_pattern(rank, msg_tag(rank, k) + p, i);
            CHECK_SUCCESS(
                MPI_Isend(sbuf[ns], len, MPI_INT, p, msg_tag(rank, k), MPI_COMM_WORLD, &sreq[ns]));
            ns++;
        }
    }

    int remaining = (size - 1) * PER_PEER, spins = 0;
    while (remaining > 0) {
        int outcount = 0, flag = 0, index = -1;
        switch (method) {
        case WAITALL:
            CHECK_SUCCESS(MPI_Waitall(n, rreq, sts));
            for (int i = 0; i < n; i++)
                if (src_of[i] >= 0)
                    idx[outcount++] = i;
            break;
        case TESTALL:
            CHECK_SUCCESS(MPI_Testall(n, rreq, &flag, sts));
            if (flag)
                for (int i = 0; i < n; i++)
                    if (src_of[i] >= 0)
                        idx[outcount++] = i;
            break;
        case WAITANY:
        case TESTANY: {
            MPI_Status st;
            if (method == WAITANY) {
                CHECK_SUCCESS(MPI_Waitany(n, rreq, &index, &st));
                flag = 1;
            } else {
                CHECK_SUCCESS(MPI_Testany(n, rreq, &index, &flag, &st));
            }
            if (flag) {
                CHECK(index >= 0 && index < n, "%s: index %d", name, index);
                if (index >= 0 && index < n) {
                    idx[outcount++] = index;
                    sts[index] = st;
                }
            } else {
                CHECK(index == MPI_UNDEFINED, "%s: flag 0 with index %d", name, index);
            }
            break;
        }
        case WAITSOME:
        case TESTSOME: {
            MPI_Status *tmp = malloc(n * sizeof(MPI_Status));
            if (method == WAITSOME)
                CHECK_SUCCESS(MPI_Waitsome(n, rreq, &outcount, idx, tmp));
            else
                CHECK_SUCCESS(MPI_Testsome(n, rreq, &outcount, idx, tmp));
            CHECK(outcount != MPI_UNDEFINED && outcount >= 0 && outcount <= remaining,
                  "%s: outcount %d with %d pending", name, outcount, remaining);
            if (outcount == MPI_UNDEFINED || outcount < 0)
                outcount = 0;
            if (method == WAITSOME)
                CHECK(outcount > 0, "Waitsome returned no completion");
            for (int j = 0; j < outcount; j++)
                if (idx[j] >= 0 && idx[j] < n)
                    sts[idx[j]] = tmp[j];
            free(tmp);
            break;
        }
        }
        for (int j = 0; j < outcount; j++) {
            int i = idx[j];
            if (i < 0 || i >= n || src_of[i] < 0) {
                CHECK(0, "%s: completion index %d is not an active request", name, i);
                continue;
            }
            CHECK(!done[i], "%s: request %d completed twice", name, i);
            CHECK(rreq[i] == MPI_REQUEST_NULL,
                  "%s: completed request %d not set to MPI_REQUEST_NULL", name, i);
            done[i] = 1;
            remaining--;
            int p = src_of[i], k = k_of[i], len = msg_len(p, rank, k), c = -1;
            MPI_Get_count(&sts[i], MPI_INT, &c);
            CHECK(sts[i].MPI_SOURCE == p && sts[i].MPI_TAG == msg_tag(p, k) && c == len,
                  "%s: request %d: source %d tag %d count %d, expected %d %d %d", name, i,
                  sts[i].MPI_SOURCE, sts[i].MPI_TAG, c, p, msg_tag(p, k), len);
            for (int e = 0; e < len; e++)
                if (rbuf[i][e] != mtest_pattern(p, msg_tag(p, k) + rank, e)) {
                    CHECK(0, "%s: from %d msg %d element %d is %d", name, p, k, e, rbuf[i][e]);
                    break;
                }
            CHECK(rbuf[i][len] == -7, "%s: element past the message overwritten", name);
        }
        if (method == WAITALL || method == TESTALL)
            if (outcount > 0)
                remaining = 0;
        if (++spins > 50000000) {
            CHECK(0, "%s: %d receives never completed", name, remaining);
            break;
        }
    }
    /* all requests null now: the "any"/"some" calls report MPI_UNDEFINED */
    if (remaining == 0) {
        MPI_Status st;
        int index = 0, flag = 0, outcount = 0;
        switch (method) {
        case WAITANY:
            CHECK_SUCCESS(MPI_Waitany(n, rreq, &index, &st));
            CHECK(index == MPI_UNDEFINED, "Waitany on null requests: index %d", index);
            check_empty_status(&st, "Waitany");
            break;
        case TESTANY:
            CHECK_SUCCESS(MPI_Testany(n, rreq, &index, &flag, &st));
            CHECK(index == MPI_UNDEFINED && flag, "Testany on null requests: index %d flag %d",
                  index, flag);
            check_empty_status(&st, "Testany");
            break;
        case WAITSOME:
            CHECK_SUCCESS(MPI_Waitsome(n, rreq, &outcount, idx, sts));
            CHECK(outcount == MPI_UNDEFINED, "Waitsome on null requests: outcount %d", outcount);
            break;
        case TESTSOME:
            CHECK_SUCCESS(MPI_Testsome(n, rreq, &outcount, idx, sts));
            CHECK(outcount == MPI_UNDEFINED, "Testsome on null requests: outcount %d", outcount);
            break;
        case TESTALL:
            CHECK_SUCCESS(MPI_Testall(n, rreq, &flag, sts));
            CHECK(flag, "Testall on null requests: flag 0");
            for (int i = 0; i < n; i++)
                check_empty_status(&sts[i], "Testall");
            break;
        case WAITALL:
            CHECK_SUCCESS(MPI_Waitall(n, rreq, sts));
            for (int i = 0; i < n; i++)
                check_empty_status(&sts[i], "Waitall");
            break;
        }
    }
    MPI_Status *ssts = malloc((ns + 1) * sizeof(MPI_Status));
    CHECK_SUCCESS(MPI_Waitall(ns, sreq, ssts));
    for (int i = 0; i < ns; i++)
        CHECK(sreq[i] == MPI_REQUEST_NULL, "send request %d not freed", i);
    free(ssts);
    for (int i = 0; i < n; i++)
        free(rbuf[i]);
    for (int i = 0; i < ns; i++)
        free(sbuf[i]);
    free(rreq);
    free(sreq);
    free(rbuf);
    free(sbuf);
    free(src_of);
    free(k_of);
    free(done);
    free(sts);
    free(idx);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int m = 0; m < NMETHODS; m++)
        run(m);

    /* Wait/Test on MPI_REQUEST_NULL return at once with an empty status. */
    MPI_Request null = MPI_REQUEST_NULL;
    MPI_Status st;
    int flag = 0;
    CHECK_SUCCESS(MPI_Wait(&null, &st));
    check_empty_status(&st, "Wait(MPI_REQUEST_NULL)");
    CHECK_SUCCESS(MPI_Test(&null, &flag, &st));
    CHECK(flag, "Test(MPI_REQUEST_NULL) gave flag 0");
    check_empty_status(&st, "Test(MPI_REQUEST_NULL)");
    /* zero-length arrays */
    int index = 0, outcount = 0;
    CHECK_SUCCESS(MPI_Waitall(0, NULL, NULL));
    CHECK_SUCCESS(MPI_Waitany(0, NULL, &index, &st));
    CHECK_INT(index, MPI_UNDEFINED);
    CHECK_SUCCESS(MPI_Testany(0, NULL, &index, &flag, &st));
    CHECK(index == MPI_UNDEFINED && flag, "Testany(0): index %d flag %d", index, flag);
    CHECK_SUCCESS(MPI_Waitsome(0, NULL, &outcount, NULL, NULL));
    CHECK_INT(outcount, MPI_UNDEFINED);
    CHECK_SUCCESS(MPI_Testall(0, NULL, &flag, NULL));
    CHECK_INT(flag, 1);
    return mtest_finish();
}
