/* Bad arguments to point-to-point calls and their _c forms: ranks, tags,
 * counts, datatypes (NULL, freed, uncommitted), communicators (NULL, freed),
 * NULL buffers and requests, message sizes that overflow MPI_Count, message
 * handles. Every case is local: nothing is sent, no peer waits. */
#include "badargs.h"

#define EXPECT2(cls, text, fn, ...)             \
    do {                                        \
        EXPECT(cls, text, fn(__VA_ARGS__));     \
        EXPECT(cls, text, fn##_c(__VA_ARGS__)); \
    } while (0)

int main(int argc, char **argv)
{
    int rank, size, flag;
    ba_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const MPI_Comm W = MPI_COMM_WORLD;
    int a[8] = {0};
    MPI_Request req;
    MPI_Status st;
    MPI_Message msg;
    const int peer = (rank + 1) % size;

    MPI_Datatype uncommitted, freed;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    MPI_Type_contiguous(2, MPI_INT, &freed);
    MPI_Type_commit(&freed);
    MPI_Type_free(&freed);
    MPI_Comm freed_comm;
    MPI_Comm_dup(W, &freed_comm);
    MPI_Comm_free(&freed_comm);

    /* Sends: every mode, blocking and not. */
    EXPECT2(MPI_ERR_RANK, "dest", MPI_Send, a, 1, MPI_INT, size, 0, W);
    EXPECT2(MPI_ERR_RANK, "dest", MPI_Send, a, 1, MPI_INT, -7, 0, W);
    EXPECT2(MPI_ERR_RANK, "dest", MPI_Send, a, 1, MPI_INT, MPI_ANY_SOURCE, 0, W);
    EXPECT2(MPI_ERR_TAG, "tag", MPI_Send, a, 1, MPI_INT, peer, -1, W);
    EXPECT2(MPI_ERR_TAG, "tag", MPI_Send, a, 1, MPI_INT, peer, MPI_ANY_TAG, W);
    EXPECT2(MPI_ERR_COUNT, "count", MPI_Send, a, -1, MPI_INT, peer, 0, W);
    EXPECT2(MPI_ERR_BUFFER, "buf", MPI_Send, NULL, 1, MPI_INT, peer, 0, W);
    EXPECT2(MPI_ERR_TYPE, "datatype", MPI_Send, a, 1, MPI_DATATYPE_NULL, peer, 0, W);
    EXPECT2(MPI_ERR_TYPE, "datatype", MPI_Send, a, 1, freed, peer, 0, W);
    EXPECT2(MPI_ERR_TYPE, "datatype", MPI_Send, a, 1, uncommitted, peer, 0, W);
    EXPECT2(MPI_ERR_COMM, "comm", MPI_Send, a, 1, MPI_INT, peer, 0, MPI_COMM_NULL);
    EXPECT2(MPI_ERR_COMM, "comm", MPI_Send, a, 1, MPI_INT, peer, 0, freed_comm);
    EXPECT2(MPI_ERR_RANK, "dest", MPI_Ssend, a, 1, MPI_INT, size, 0, W);
    EXPECT2(MPI_ERR_TAG, "tag", MPI_Rsend, a, 1, MPI_INT, peer, -2, W);
    EXPECT2(MPI_ERR_COUNT, "count", MPI_Bsend, a, -3, MPI_INT, peer, 0, W);
    EXPECT2(MPI_ERR_ARG, "request", MPI_Isend, a, 1, MPI_INT, peer, 0, W, NULL);
    EXPECT2(MPI_ERR_RANK, "dest", MPI_Issend, a, 1, MPI_INT, size + 5, 0, W, &req);
    EXPECT2(MPI_ERR_BUFFER, "buf", MPI_Irsend, NULL, 2, MPI_INT, peer, 0, W, &req);
    EXPECT2(MPI_ERR_TYPE, "datatype", MPI_Ibsend, a, 1, freed, peer, 0, W, &req);
    EXPECT2(MPI_ERR_TAG, "tag", MPI_Send_init, a, 1, MPI_INT, peer, -9, W, &req);
    EXPECT2(MPI_ERR_ARG, "request", MPI_Ssend_init, a, 1, MPI_INT, peer, 0, W, NULL);
    /* Sizes that do not fit: 2^62 doubles are 2^65 bytes, never a 0-byte message. */
    EXPECT(MPI_ERR_COUNT, "buf", MPI_Send_c(a, (MPI_Count)1 << 62, MPI_DOUBLE, peer, 0, W));
    EXPECT(MPI_ERR_COUNT, "buf", MPI_Isend_c(a, (MPI_Count)1 << 61, MPI_INT64_T, peer, 0, W, &req));
    EXPECT(MPI_ERR_COUNT, "buf", MPI_Recv_c(a, (MPI_Count)1 << 62, MPI_DOUBLE, peer, 0, W, &st));
    EXPECT(MPI_ERR_COUNT, "sendbuf",
           MPI_Sendrecv_c(a, (MPI_Count)1 << 62, MPI_DOUBLE, rank, 0, a, 1, MPI_DOUBLE, rank, 0, W,
                          &st));

    /* MPI_IN_PLACE is not an address: only collectives take it. */
    EXPECT2(MPI_ERR_BUFFER, "buf", MPI_Send, MPI_IN_PLACE, 1, MPI_INT, peer, 0, W);
    EXPECT2(MPI_ERR_BUFFER, "buf", MPI_Isend, MPI_IN_PLACE, 1, MPI_INT, rank, 0, W, &req);
    EXPECT2(MPI_ERR_BUFFER, "buf", MPI_Recv, MPI_IN_PLACE, 1, MPI_INT, peer, 0, W, &st);
    EXPECT2(MPI_ERR_BUFFER, "sendbuf", MPI_Sendrecv, MPI_IN_PLACE, 1, MPI_INT, rank, 0, a, 1,
            MPI_INT, rank, 0, W, &st);
    EXPECT2(MPI_ERR_BUFFER, "buffer", MPI_Buffer_attach, MPI_IN_PLACE, 1000);

    /* Receives and probes. */
    EXPECT2(MPI_ERR_RANK, "source", MPI_Recv, a, 1, MPI_INT, size, 0, W, &st);
    EXPECT2(MPI_ERR_RANK, "source", MPI_Recv, a, 1, MPI_INT, -9, 0, W, &st);
    EXPECT2(MPI_ERR_TAG, "tag", MPI_Recv, a, 1, MPI_INT, peer, -5, W, &st);
    EXPECT2(MPI_ERR_COUNT, "count", MPI_Recv, a, -1, MPI_INT, peer, 0, W, &st);
    EXPECT2(MPI_ERR_BUFFER, "buf", MPI_Recv, NULL, 1, MPI_INT, peer, 0, W, &st);
    EXPECT2(MPI_ERR_TYPE, "datatype", MPI_Recv, a, 1, uncommitted, peer, 0, W, &st);
    EXPECT2(MPI_ERR_ARG, "status", MPI_Recv, a, 1, MPI_INT, peer, 0, W, NULL);
    EXPECT2(MPI_ERR_RANK, "source", MPI_Irecv, a, 1, MPI_INT, size, 0, W, &req);
    EXPECT2(MPI_ERR_ARG, "request", MPI_Irecv, a, 1, MPI_INT, peer, 0, W, NULL);
    EXPECT2(MPI_ERR_TAG, "tag", MPI_Recv_init, a, 1, MPI_INT, peer, -3, W, &req);
    EXPECT(MPI_ERR_RANK, "source", MPI_Probe(size, 0, W, &st));
    EXPECT(MPI_ERR_TAG, "tag", MPI_Probe(peer, -4, W, &st));
    EXPECT(MPI_ERR_COMM, "comm", MPI_Probe(peer, 0, MPI_COMM_NULL, &st));
    EXPECT(MPI_ERR_ARG, "flag", MPI_Iprobe(peer, 0, W, NULL, &st));
    EXPECT(MPI_ERR_RANK, "source", MPI_Iprobe(-8, 0, W, &flag, &st));
    EXPECT(MPI_ERR_RANK, "source", MPI_Mprobe(size, 0, W, &msg, &st));
    EXPECT(MPI_ERR_ARG, "message", MPI_Mprobe(peer, 0, W, NULL, &st));
    EXPECT(MPI_ERR_ARG, "flag", MPI_Improbe(peer, 0, W, NULL, &msg, &st));
    msg = MPI_MESSAGE_NULL;
    EXPECT2(MPI_ERR_REQUEST, "message", MPI_Mrecv, a, 1, MPI_INT, &msg, &st);
    msg = (MPI_Message)0x7c001234;
    EXPECT2(MPI_ERR_REQUEST, "message", MPI_Mrecv, a, 1, MPI_INT, &msg, &st);
    EXPECT2(MPI_ERR_ARG, "message", MPI_Mrecv, a, 1, MPI_INT, NULL, &st);
    msg = MPI_MESSAGE_NULL;
    EXPECT2(MPI_ERR_REQUEST, "message", MPI_Imrecv, a, 1, MPI_INT, &msg, &req);

    /* Sendrecv */
    EXPECT2(MPI_ERR_RANK, "dest", MPI_Sendrecv, a, 1, MPI_INT, size, 0, a, 1, MPI_INT, peer, 0, W,
            &st);
    EXPECT2(MPI_ERR_RANK, "source", MPI_Sendrecv, a, 1, MPI_INT, peer, 0, a, 1, MPI_INT, size, 0, W,
            &st);
    EXPECT2(MPI_ERR_TAG, "sendtag", MPI_Sendrecv, a, 1, MPI_INT, peer, MPI_ANY_TAG, a, 1, MPI_INT,
            peer, 0, W, &st);
    EXPECT2(MPI_ERR_BUFFER, "recvbuf", MPI_Sendrecv, a, 1, MPI_INT, peer, 0, NULL, 1, MPI_INT, peer,
            0, W, &st);
    EXPECT2(MPI_ERR_COUNT, "count", MPI_Sendrecv_replace, a, -1, MPI_INT, peer, 0, peer, 0, W, &st);
    EXPECT2(MPI_ERR_TAG, "recvtag", MPI_Isendrecv_replace, a, 1, MPI_INT, peer, 0, peer, -6, W,
            &req);

    /* Persistent requests: starting one twice, a freed one. */
    {
        MPI_Request p;
        MPI_Recv_init(a, 1, MPI_INT, MPI_PROC_NULL, 0, W, &p);
        MPI_Start(&p);
        EXPECT(MPI_ERR_REQUEST, "request", MPI_Start(&p));
        MPI_Wait(&p, MPI_STATUS_IGNORE);
        MPI_Request copy = p;
        MPI_Request_free(&p);
        EXPECT(MPI_ERR_REQUEST, "request", MPI_Start(&copy));
    }
    /* Bsend without an attached buffer. */
    EXPECT2(MPI_ERR_BUFFER, "buffer", MPI_Bsend, a, 1, MPI_INT, peer, 0, W);

    /* Buffer attach/detach */
    EXPECT2(MPI_ERR_BUFFER, "buffer", MPI_Buffer_attach, NULL, 100);
    EXPECT2(MPI_ERR_COUNT, "size", MPI_Buffer_attach, a, -1);

    MPI_Type_free(&uncommitted);
    return ba_finish();
}
