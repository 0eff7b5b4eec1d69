/* MPI_PROC_NULL as source and destination of every kind of send and
 * receive: calls succeed at once, receives leave the buffer alone and return
 * source MPI_PROC_NULL, tag MPI_ANY_TAG and count 0. */
#include "mtest.h"

static void check_null_status(MPI_Status *st, const char *what)
{
    int c = -1, e = -1;
    MPI_Get_count(st, MPI_INT, &c);
    MPI_Get_elements(st, MPI_INT, &e);
    CHECK(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG && c == 0 && e == 0,
          "%s: source %d tag %d count %d elements %d", what, st->MPI_SOURCE, st->MPI_TAG, c, e);
}

static void poison(MPI_Status *st)
{
    st->MPI_SOURCE = 12345;
    st->MPI_TAG = 6789;
    st->MPI_ERROR = 4242;
}

int main(int argc, char **argv)
{
    int rank;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int buf[8], sbuf[8];
    MPI_Status st;
    MPI_Request req;
    for (int i = 0; i < 8; i++) {
        buf[i] = -1;
        sbuf[i] = rank * 8 + i;
    }

    CHECK_SUCCESS(MPI_Send(sbuf, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    CHECK_SUCCESS(MPI_Ssend(sbuf, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    CHECK_SUCCESS(MPI_Rsend(sbuf, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    /* Bsend to MPI_PROC_NULL needs no buffer space */
    CHECK_SUCCESS(MPI_Bsend(sbuf, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));

    poison(&st);
    CHECK_SUCCESS(MPI_Recv(buf, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Recv");
    poison(&st);
    CHECK_SUCCESS(MPI_Recv(buf, 8, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Recv(ANY_TAG)");

    CHECK_SUCCESS(MPI_Isend(sbuf, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req));
    poison(&st);
    CHECK_SUCCESS(MPI_Wait(&req, &st));
    CHECK(req == MPI_REQUEST_NULL, "Isend request not freed");
    CHECK_SUCCESS(MPI_Issend(sbuf, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &req));
    int flag = 0;
    CHECK_SUCCESS(MPI_Test(&req, &flag, &st));
    CHECK(flag, "Issend to MPI_PROC_NULL not complete at the first Test");
    if (!flag)
        MPI_Wait(&req, &st);

    CHECK_SUCCESS(MPI_Irecv(buf, 8, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &req));
    poison(&st);
    flag = 0;
    CHECK_SUCCESS(MPI_Test(&req, &flag, &st));
    CHECK(flag, "Irecv from MPI_PROC_NULL not complete at the first Test");
    if (!flag)
        MPI_Wait(&req, &st);
    check_null_status(&st, "Irecv+Test");

    MPI_Request reqs[3];
    MPI_Status sts[3];
    CHECK_SUCCESS(MPI_Irecv(buf, 8, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &reqs[0]));
    CHECK_SUCCESS(MPI_Isend(sbuf, 8, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &reqs[1]));
    CHECK_SUCCESS(MPI_Irecv(buf, 8, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[2]));
    poison(&sts[0]);
    poison(&sts[2]);
    CHECK_SUCCESS(MPI_Waitall(3, reqs, sts));
    check_null_status(&sts[0], "Irecv+Waitall");
    check_null_status(&sts[2], "Irecv(ANY_TAG)+Waitall");

    /* Sendrecv with both partners MPI_PROC_NULL */
    poison(&st);
    CHECK_SUCCESS(MPI_Sendrecv(sbuf, 8, MPI_INT, MPI_PROC_NULL, 4, buf, 8, MPI_INT, MPI_PROC_NULL,
                               4, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Sendrecv");
    poison(&st);
    int rep[8];
    for (int i = 0; i < 8; i++)
        rep[i] = 100 + i;
    CHECK_SUCCESS(MPI_Sendrecv_replace(rep, 8, MPI_INT, MPI_PROC_NULL, 4, MPI_PROC_NULL, 4,
                                       MPI_COMM_WORLD, &st));
    check_null_status(&st, "Sendrecv_replace");
    for (int i = 0; i < 8; i++)
        CHECK(rep[i] == 100 + i, "Sendrecv_replace changed element %d to %d", i, rep[i]);
    poison(&st);
    CHECK_SUCCESS(MPI_Isendrecv(sbuf, 8, MPI_INT, MPI_PROC_NULL, 4, buf, 8, MPI_INT, MPI_PROC_NULL,
                                4, MPI_COMM_WORLD, &req));
    CHECK_SUCCESS(MPI_Wait(&req, &st));
    check_null_status(&st, "Isendrecv");
    poison(&st);
    CHECK_SUCCESS(MPI_Isendrecv_replace(rep, 8, MPI_INT, MPI_PROC_NULL, 4, MPI_PROC_NULL, 4,
                                        MPI_COMM_WORLD, &req));
    CHECK_SUCCESS(MPI_Wait(&req, &st));
    check_null_status(&st, "Isendrecv_replace");

    /* persistent requests to and from MPI_PROC_NULL */
    MPI_Request p[2];
    CHECK_SUCCESS(MPI_Send_init(sbuf, 8, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &p[0]));
    CHECK_SUCCESS(MPI_Recv_init(buf, 8, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &p[1]));
    for (int it = 0; it < 3; it++) {
        CHECK_SUCCESS(MPI_Startall(2, p));
        poison(&sts[1]);
        CHECK_SUCCESS(MPI_Waitall(2, p, sts));
        check_null_status(&sts[1], "Recv_init");
    }
    MPI_Request_free(&p[0]);
    MPI_Request_free(&p[1]);

    /* the receive buffer was never written */
    for (int i = 0; i < 8; i++)
        CHECK(buf[i] == -1, "buffer element %d changed to %d", i, buf[i]);

    /* MPI_PROC_NULL works on a duplicated communicator too */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    poison(&st);
    CHECK_SUCCESS(MPI_Recv(buf, 8, MPI_INT, MPI_PROC_NULL, 0, dup, &st));
    check_null_status(&st, "Recv on a dup");
    MPI_Comm_free(&dup);
    return mtest_finish();
}
