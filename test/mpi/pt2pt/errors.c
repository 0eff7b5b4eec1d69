/* Argument errors in point-to-point calls under MPI_ERRORS_RETURN: each
 * returns the right error class, its MPI_Error_string names the bad value,
 * nothing is sent, and communication works normally afterwards. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size, rc, flag;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int buf[8] = {0};
    MPI_Request req;
    MPI_Status st;
    int peer = (rank + 1) % size;

    /* --- ranks ---------------------------------------------------------------- */
    rc = MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    CHECK_ERR_STRING_INT(rc, size);
    rc = MPI_Send(buf, 1, MPI_INT, -5, 0, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    CHECK_ERR_STRING_INT(rc, -5);
    rc = MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD); /* not valid for a send */
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    rc = MPI_Isend(buf, 1, MPI_INT, size + 7, 0, MPI_COMM_WORLD, &req);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    CHECK_ERR_STRING_INT(rc, size + 7);
    rc = MPI_Recv(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    CHECK_ERR_STRING_INT(rc, size);
    rc = MPI_Irecv(buf, 1, MPI_INT, -7, 0, MPI_COMM_WORLD, &req);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    CHECK_ERR_STRING_INT(rc, -7);
    rc = MPI_Ssend(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    rc = MPI_Probe(size + 1, 0, MPI_COMM_WORLD, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    CHECK_ERR_STRING_INT(rc, size + 1);
    rc = MPI_Sendrecv(buf, 1, MPI_INT, peer, 0, buf + 1, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    rc = MPI_Send_init(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &req);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);

    /* --- tags ----------------------------------------------------------------- */
    int *tag_ub = NULL;
    flag = 0;
    CHECK_SUCCESS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    CHECK(flag && tag_ub != NULL && *tag_ub >= 32767, "MPI_TAG_UB flag %d value %d", flag,
          tag_ub ? *tag_ub : -1);
    rc = MPI_Send(buf, 1, MPI_INT, peer, -5, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_TAG);
    CHECK_ERR_STRING_INT(rc, -5);
    rc = MPI_Send(buf, 1, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD); /* only for receives */
    CHECK_ERR_CLASS(rc, MPI_ERR_TAG);
    if (flag && tag_ub && *tag_ub < 0x7fffffff) {
        int bad = *tag_ub + 1;
        rc = MPI_Send(buf, 1, MPI_INT, peer, bad, MPI_COMM_WORLD);
        CHECK_ERR_CLASS(rc, MPI_ERR_TAG);
        CHECK_ERR_STRING_INT(rc, bad);
        rc = MPI_Irecv(buf, 1, MPI_INT, peer, bad, MPI_COMM_WORLD, &req);
        CHECK_ERR_CLASS(rc, MPI_ERR_TAG);
        CHECK_ERR_STRING_INT(rc, bad);
    }
    rc = MPI_Recv(buf, 1, MPI_INT, peer, -5, MPI_COMM_WORLD, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_TAG);
    CHECK_ERR_STRING_INT(rc, -5);
    rc = MPI_Iprobe(peer, -9, MPI_COMM_WORLD, &flag, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_TAG);
    CHECK_ERR_STRING_INT(rc, -9);

    /* --- counts --------------------------------------------------------------- */
    rc = MPI_Send(buf, -1, MPI_INT, peer, 0, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_COUNT);
    CHECK_ERR_STRING_INT(rc, -1);
    rc = MPI_Recv(buf, -1, MPI_INT, peer, 0, MPI_COMM_WORLD, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_COUNT);
    CHECK_ERR_STRING_INT(rc, -1);
    rc = MPI_Irecv(buf, -4, MPI_INT, peer, 0, MPI_COMM_WORLD, &req);
    CHECK_ERR_CLASS(rc, MPI_ERR_COUNT);
    CHECK_ERR_STRING_INT(rc, -4);

    /* --- datatypes ------------------------------------------------------------ */
    rc = MPI_Send(buf, 1, MPI_DATATYPE_NULL, peer, 0, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_TYPE);
    CHECK_ERR_STRING(rc, "datatype");
    rc = MPI_Recv(buf, 1, MPI_DATATYPE_NULL, peer, 0, MPI_COMM_WORLD, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_TYPE);
    MPI_Datatype uncommitted;
    CHECK_SUCCESS(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
    rc = MPI_Send(buf, 1, uncommitted, peer, 0, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_TYPE);
    CHECK_ERR_STRING(rc, "commit");
    rc = MPI_Irecv(buf, 1, uncommitted, peer, 0, MPI_COMM_WORLD, &req);
    CHECK_ERR_CLASS(rc, MPI_ERR_TYPE);
    CHECK_ERR_STRING(rc, "commit");
    MPI_Type_free(&uncommitted);

    /* --- communicators -------------------------------------------------------- */
    rc = MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL);
    CHECK_ERR_CLASS(rc, MPI_ERR_COMM);
    CHECK_ERR_STRING(rc, "comm");
    rc = MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_COMM);
    CHECK_ERR_STRING(rc, "comm");
    rc = MPI_Isend(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &req);
    CHECK_ERR_CLASS(rc, MPI_ERR_COMM);
    rc = MPI_Iprobe(0, 0, MPI_COMM_NULL, &flag, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_COMM);
    MPI_Comm freed;
    MPI_Comm_dup(MPI_COMM_WORLD, &freed);
    MPI_Comm stale = freed;
    MPI_Comm_free(&freed);
    CHECK(freed == MPI_COMM_NULL, "Comm_free did not set MPI_COMM_NULL");
    (void)stale; /* using a freed handle is erroneous; not exercised */

    /* --- buffers -------------------------------------------------------------- */
    rc = MPI_Send(NULL, 5, MPI_INT, peer, 0, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_BUFFER);
    CHECK_ERR_STRING(rc, "buf");
    rc = MPI_Recv(NULL, 5, MPI_INT, peer, 0, MPI_COMM_WORLD, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_BUFFER);
    rc = MPI_Isend(NULL, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &req);
    CHECK_ERR_CLASS(rc, MPI_ERR_BUFFER);

    /* --- requests ------------------------------------------------------------- */
    MPI_Request bogus = (MPI_Request)MPI_COMM_WORLD; /* a handle of another kind */
    rc = MPI_Wait(&bogus, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_REQUEST);
    CHECK_ERR_STRING(rc, "request");
    bogus = (MPI_Request)MPI_COMM_WORLD;
    rc = MPI_Test(&bogus, &flag, &st);
    CHECK_ERR_CLASS(rc, MPI_ERR_REQUEST);
    /* MPI_Start on a request that is not persistent */
    int self_val = 5, self_got = 0;
    CHECK_SUCCESS(MPI_Irecv(&self_got, 1, MPI_INT, rank, 77, MPI_COMM_WORLD, &req));
    rc = MPI_Start(&req);
    CHECK_ERR_CLASS(rc, MPI_ERR_REQUEST);
    CHECK_SUCCESS(MPI_Send(&self_val, 1, MPI_INT, rank, 77, MPI_COMM_WORLD));
    CHECK_SUCCESS(MPI_Wait(&req, &st));
    CHECK_INT(self_got, 5);
    /* MPI_Request_free of MPI_REQUEST_NULL */
    req = MPI_REQUEST_NULL;
    rc = MPI_Request_free(&req);
    CHECK_ERR_CLASS(rc, MPI_ERR_REQUEST);

    /* --- after all of that, a ring exchange works and no stray message arrived --- */
    MPI_Barrier(MPI_COMM_WORLD);
    flag = 1;
    CHECK_SUCCESS(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "a failed call sent a message: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    MPI_Barrier(MPI_COMM_WORLD);
    int left = (rank + size - 1) % size, out[4], in[4] = {-1, -1, -1, -1};
    for (int i = 0; i < 4; i++)
        out[i] = rank * 10 + i;
    CHECK_SUCCESS(
        MPI_Sendrecv(out, 4, MPI_INT, peer, 1, in, 4, MPI_INT, left, 1, MPI_COMM_WORLD, &st));
    for (int i = 0; i < 4; i++)
        CHECK_INT(in[i], left * 10 + i);
    return mtest_finish();
}
