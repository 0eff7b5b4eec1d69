/* The MPI_ERROR field of a status belongs to the caller except in calls that
 * complete several requests and return MPI_ERR_IN_STATUS (MPI 4.1, 3.2.5):
 * every single-completion call (Recv, Mrecv, Probe, Iprobe, Mprobe, Improbe,
 * Wait, Test, Waitany, Testany, Sendrecv, Sendrecv_replace,
 * Request_get_status, receives from MPI_PROC_NULL, MPI_REQUEST_NULL) leaves
 * a preset value alone, and so do Waitall/Testall/Waitsome/Testsome when
 * they succeed. When one of them returns MPI_ERR_IN_STATUS, each status's
 * MPI_ERROR says how its request ended. Ranks 0 and 1 talk; others idle. */
#include "mtest.h"

#define PRESET 0x5eed

static void preset(MPI_Status *st, int n)
{
    for (int i = 0; i < n; ++i) {
        memset(&st[i], 0xab, sizeof st[i]);
        st[i].MPI_ERROR = PRESET;
    }
}

#define CHECK_KEPT(st, what)                                                                   \
    CHECK((st).MPI_ERROR == PRESET, "%s: MPI_ERROR is %d, the caller's %d must survive", what, \
          (st).MPI_ERROR, PRESET)

int main(int argc, char **argv)
{
    int rank, size, flag, index;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Status st, sts[3];
    MPI_Request req, reqs[3];
    int v = 0, w[3] = {0, 0, 0};
    const int peer = 1 - rank;

    if (rank <= 1) {
        /* Recv and Probe/Iprobe */
        if (rank == 0) {
            for (int i = 0; i < 12; ++i)
                MPI_Send(&i, 1, MPI_INT, peer, 10 + i, MPI_COMM_WORLD);
        } else {
            preset(&st, 1);
            CHECK_SUCCESS(MPI_Probe(0, 10, MPI_COMM_WORLD, &st));
            CHECK_KEPT(st, "MPI_Probe");
            CHECK_INT(st.MPI_TAG, 10);
            preset(&st, 1);
            flag = 0;
            while (!flag)
                CHECK_SUCCESS(MPI_Iprobe(0, 10, MPI_COMM_WORLD, &flag, &st));
            CHECK_KEPT(st, "MPI_Iprobe");
            preset(&st, 1);
            CHECK_SUCCESS(MPI_Recv(&v, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, &st));
            CHECK_KEPT(st, "MPI_Recv");
            CHECK_INT(st.MPI_SOURCE, 0);
            CHECK_INT(v, 0);

            MPI_Message msg;
            preset(&st, 1);
            CHECK_SUCCESS(MPI_Mprobe(0, 11, MPI_COMM_WORLD, &msg, &st));
            CHECK_KEPT(st, "MPI_Mprobe");
            preset(&st, 1);
            CHECK_SUCCESS(MPI_Mrecv(&v, 1, MPI_INT, &msg, &st));
            CHECK_KEPT(st, "MPI_Mrecv");
            CHECK_INT(v, 1);
            preset(&st, 1);
            flag = 0;
            while (!flag)
                CHECK_SUCCESS(MPI_Improbe(0, 12, MPI_COMM_WORLD, &flag, &msg, &st));
            CHECK_KEPT(st, "MPI_Improbe");
            CHECK_SUCCESS(MPI_Imrecv(&v, 1, MPI_INT, &msg, &req));
            preset(&st, 1);
            CHECK_SUCCESS(MPI_Wait(&req, &st));
            CHECK_KEPT(st, "MPI_Wait after MPI_Imrecv");
            CHECK_INT(v, 2);

            CHECK_SUCCESS(MPI_Irecv(&v, 1, MPI_INT, 0, 13, MPI_COMM_WORLD, &req));
            preset(&st, 1);
            flag = 0;
            while (!flag)
                CHECK_SUCCESS(MPI_Test(&req, &flag, &st));
            CHECK_KEPT(st, "MPI_Test");
            CHECK_INT(v, 3);

            CHECK_SUCCESS(MPI_Irecv(&v, 1, MPI_INT, 0, 14, MPI_COMM_WORLD, &req));
            preset(&st, 1);
            flag = 0;
            while (!flag)
                CHECK_SUCCESS(MPI_Request_get_status(req, &flag, &st));
            CHECK_KEPT(st, "MPI_Request_get_status");
            CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));

            for (int i = 0; i < 2; ++i)
                CHECK_SUCCESS(MPI_Irecv(&w[i], 1, MPI_INT, 0, 15 + i, MPI_COMM_WORLD, &reqs[i]));
            preset(&st, 1);
            CHECK_SUCCESS(MPI_Waitany(2, reqs, &index, &st));
            CHECK_KEPT(st, "MPI_Waitany");
            preset(&st, 1);
            flag = 0;
            while (!flag)
                CHECK_SUCCESS(MPI_Testany(2, reqs, &index, &flag, &st));
            CHECK_KEPT(st, "MPI_Testany");

            /* Successful multiple completions leave the field alone too. */
            for (int i = 0; i < 3; ++i)
                CHECK_SUCCESS(MPI_Irecv(&w[i], 1, MPI_INT, 0, 17 + i, MPI_COMM_WORLD, &reqs[i]));
            preset(sts, 3);
            CHECK_SUCCESS(MPI_Waitall(3, reqs, sts));
            for (int i = 0; i < 3; ++i)
                CHECK_KEPT(sts[i], "MPI_Waitall (success)");
            CHECK_INT(w[2], 9);

            CHECK_SUCCESS(MPI_Irecv(&w[0], 1, MPI_INT, 0, 20, MPI_COMM_WORLD, &reqs[0]));
            int outcount = 0, indices[3];
            preset(sts, 3);
            while (outcount == 0)
                CHECK_SUCCESS(MPI_Waitsome(1, reqs, &outcount, indices, sts));
            CHECK_KEPT(sts[0], "MPI_Waitsome (success)");

            CHECK_SUCCESS(MPI_Irecv(&w[0], 1, MPI_INT, 0, 21, MPI_COMM_WORLD, &reqs[0]));
            preset(sts, 3);
            flag = 0;
            while (!flag)
                CHECK_SUCCESS(MPI_Testall(1, reqs, &flag, sts));
            CHECK_KEPT(sts[0], "MPI_Testall (success)");
        }

        /* MPI_PROC_NULL and MPI_REQUEST_NULL: empty statuses, field kept. */
        preset(&st, 1);
        CHECK_SUCCESS(MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
        CHECK_KEPT(st, "MPI_Recv from MPI_PROC_NULL");
        CHECK_INT(st.MPI_SOURCE, MPI_PROC_NULL);
        preset(&st, 1);
        CHECK_SUCCESS(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
        CHECK_KEPT(st, "MPI_Probe of MPI_PROC_NULL");
        req = MPI_REQUEST_NULL;
        preset(&st, 1);
        CHECK_SUCCESS(MPI_Wait(&req, &st));
        CHECK_KEPT(st, "MPI_Wait on MPI_REQUEST_NULL");
        CHECK_INT(st.MPI_TAG, MPI_ANY_TAG);

        /* Sendrecv and Sendrecv_replace */
        int out = rank + 100, in = -1;
        preset(&st, 1);
        CHECK_SUCCESS(MPI_Sendrecv(&out, 1, MPI_INT, peer, 30, &in, 1, MPI_INT, peer, 30,
                                   MPI_COMM_WORLD, &st));
        CHECK_KEPT(st, "MPI_Sendrecv");
        CHECK_INT(in, peer + 100);
        preset(&st, 1);
        CHECK_SUCCESS(
            MPI_Sendrecv_replace(&out, 1, MPI_INT, peer, 31, peer, 31, MPI_COMM_WORLD, &st));
        CHECK_KEPT(st, "MPI_Sendrecv_replace");
        CHECK_INT(out, peer + 100);

        /* A truncated receive among good ones: MPI_ERR_IN_STATUS, and every
         * status's MPI_ERROR tells which one failed. */
        if (rank == 0) {
            int big[2] = {1, 2};
            MPI_Send(big, 1, MPI_INT, peer, 40, MPI_COMM_WORLD);
            MPI_Send(big, 2, MPI_INT, peer, 41, MPI_COMM_WORLD);
            MPI_Send(big, 1, MPI_INT, peer, 42, MPI_COMM_WORLD);
        } else {
            for (int i = 0; i < 3; ++i)
                CHECK_SUCCESS(MPI_Irecv(&w[i], 1, MPI_INT, 0, 40 + i, MPI_COMM_WORLD, &reqs[i]));
            preset(sts, 3);
            int rc = MPI_Waitall(3, reqs, sts);
            CHECK_ERR_CLASS(rc, MPI_ERR_IN_STATUS);
            CHECK_INT(sts[0].MPI_ERROR, MPI_SUCCESS);
            CHECK_ERR_CLASS(sts[1].MPI_ERROR, MPI_ERR_TRUNCATE);
            CHECK_INT(sts[2].MPI_ERROR, MPI_SUCCESS);
        }
    }
    return mtest_finish();
}
