/* Errors of MPICH's stream API: enqueue on a communicator without a stream,
 * on one made from a stream without type, from MPIX_STREAM_NULL or by
 * MPIX_Stream_comm_create_multiplex; a stream freed while a communicator
 * uses it; a CUDA stream where the build or the machine has none; missing
 * or malformed info values (and the hex forms that are accepted); stream
 * indices out of range and a wildcard source on a multiplex communicator;
 * MPIX_Wait_enqueue on another request; a truncated enqueued receive.
 * Each is the expected class with a message naming the call and the stream
 * or argument, and nothing hangs. */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

static MPI_Info host_info(MPIX_Host_stream host, int lower, int zero_runs)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "type", "MPIX_Host_stream");
    /* the handle's bytes in hex, lower case or with "[N]" zero runs */
    const unsigned char *b = (const unsigned char *)&host;
    char text[128] = "";
    size_t n = sizeof host;
    for (size_t i = 0; i < n;) {
        if (zero_runs && b[i] == 0 && i + 1 < n && b[i + 1] == 0) {
            size_t j = i;
            while (j < n && b[j] == 0)
                j++;
            sprintf(text + strlen(text), "[%zu]", j - i);
            i = j;
        } else {
            sprintf(text + strlen(text), lower ? "%02x" : "%02X", b[i]);
            i++;
        }
    }
    MPI_Info_set(info, "value", text);
    return info;
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size, rc, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Request req;
    MPI_Comm comm;

    /* A communicator without a stream. */
    rc = MPIX_Send_enqueue(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPIX_ERR_STREAM);
    CHECK_ERR_STRING(rc, "MPIX_Send_enqueue: communicator 0x44000000 has no stream");
    rc = MPIX_Irecv_enqueue(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
    CHECK_ERR_CLASS(rc, MPIX_ERR_STREAM);
    rc = MPIX_Allreduce_enqueue(&x, &rank, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPIX_ERR_STREAM);
    CHECK_ERR_STRING(rc, "MPIX_Allreduce_enqueue");
    int cls = 0;
    MPI_Error_class(rc, &cls);
    CHECK_INT(cls, 106);

    /* A stream without type (MPICH's CPU context): no stream to enqueue on. */
    MPIX_Stream general;
    CHECK_SUCCESS(MPIX_Stream_create(MPI_INFO_NULL, &general));
    CHECK_SUCCESS(MPIX_Stream_comm_create(MPI_COMM_WORLD, general, &comm));
    rc = MPIX_Isend_enqueue(&x, 1, MPI_INT, 0, 0, comm, &req);
    CHECK_ERR_CLASS(rc, MPIX_ERR_STREAM);
    CHECK_ERR_STRING(rc, "has no stream to enqueue on");
    CHECK_ERR_STRING_INT(rc, 0); /* the message names the handles */
    /* ... and it cannot be freed while the communicator uses it. */
    rc = MPIX_Stream_free(&general);
    CHECK_ERR_CLASS(rc, MPIX_ERR_STREAM);
    CHECK_ERR_STRING(rc, "still used by 1 communicator");
    CHECK(general != MPIX_STREAM_NULL, "the handle was reset by a failed free");
    MPI_Comm dup;
    MPI_Comm_dup(comm, &dup);
    MPIX_Stream got = MPIX_STREAM_NULL;
    CHECK_SUCCESS(MPIX_Comm_get_stream(dup, 0, &got));
    CHECK(got == general, "the duplicate lost the stream");
    CHECK_SUCCESS(MPIX_Comm_get_stream(dup, 1, &got));
    CHECK(got == MPIX_STREAM_NULL, "index 1 of a single-stream communicator");
    MPI_Comm_free(&dup);
    MPI_Comm_free(&comm);
    CHECK_SUCCESS(MPIX_Stream_free(&general));
    rc = MPIX_Stream_free(&general);
    CHECK_ERR_CLASS(rc, MPIX_ERR_STREAM);
    CHECK_ERR_STRING(rc, "MPIX_Stream_free");

    /* MPIX_STREAM_NULL communicators exist; enqueue on them does not. */
    CHECK_SUCCESS(MPIX_Stream_comm_create(MPI_COMM_WORLD, MPIX_STREAM_NULL, &comm));
    rc = MPIX_Recv_enqueue(&x, 1, MPI_INT, 0, 0, comm, MPI_STATUS_IGNORE);
    CHECK_ERR_CLASS(rc, MPIX_ERR_STREAM);
    CHECK_ERR_STRING(rc, "MPIX_STREAM_NULL");
    MPI_Comm_free(&comm);
    rc = MPIX_Stream_comm_create(MPI_COMM_WORLD, (MPIX_Stream)0xbc000007, &comm);
    CHECK_ERR_CLASS(rc, MPIX_ERR_STREAM);
    CHECK_ERR_STRING(rc, "not a live MPIX_Stream");

    /* A CUDA stream: this build or this machine has no CUDA device. */
    MPIX_Stream s;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "type", "cudaStream_t");
    rc = MPIX_Stream_create(info, &s);
    CHECK_ERR_CLASS(rc, MPIX_ERR_STREAM);
    CHECK_ERR_STRING(rc, "without the key \"value\"");
    void *fake = &x;
    CHECK_SUCCESS(MPIX_Info_set_hex(info, "value", &fake, sizeof fake));
    rc = MPIX_Stream_create(info, &s);
    if (getenv("STMPI_TEST_HAVE_CUDA") == NULL) {
        CHECK_ERR_CLASS(rc, MPIX_ERR_STREAM);
        CHECK_ERR_STRING(rc, "cudaStream_t");
    } else if (rc == MPI_SUCCESS) {
        MPIX_Stream_free(&s);
    }
    MPI_Info_set(info, "type", "MPIX_Host_stream");
    MPI_Info_set(info, "value", "12G4");
    rc = MPIX_Stream_create(info, &s);
    CHECK_ERR_CLASS(rc, MPIX_ERR_STREAM);
    CHECK_ERR_STRING(rc, "12G4");
    MPI_Info_set(info, "type", "sycl::queue");
    rc = MPIX_Stream_create(info, &s);
    CHECK_ERR_CLASS(rc, MPIX_ERR_STREAM);
    CHECK_ERR_STRING(rc, "sycl::queue");
    MPI_Info_free(&info);

    /* Accepted hex forms: upper case, lower case, "[N]" zero runs. */
    MPIX_Host_stream host;
    CHECK_SUCCESS(MPIX_Host_stream_create(&host));
    MPIX_Stream forms[3];
    for (int f = 0; f < 3; f++) {
        info = host_info(host, f == 1, f == 2);
        CHECK_SUCCESS(MPIX_Stream_create(info, &forms[f]));
        MPI_Info_free(&info);
    }

    /* Multiplex: indices checked against each side's streams. */
    CHECK_SUCCESS(
        MPIX_Stream_comm_create_multiplex(MPI_COMM_WORLD, rank == 0 ? 3 : 1, forms, &comm));
    for (int i = 0; i < 4; i++) {
        CHECK_SUCCESS(MPIX_Comm_get_stream(comm, i, &got));
        CHECK(got == (i < (rank == 0 ? 3 : 1) ? forms[i] : MPIX_STREAM_NULL), "idx %d", i);
    }
    if (size >= 2 && rank < 2) {
        int peer = 1 - rank;
        /* rank 0 has 3 streams, rank 1 one */
        rc = MPIX_Stream_send(&x, 1, MPI_INT, peer, 0, comm, rank == 0 ? 3 : 1, 0);
        CHECK_ERR_CLASS(rc, MPIX_ERR_STREAM);
        CHECK_ERR_STRING(rc, "source_stream_index");
        rc = MPIX_Stream_isend(&x, 1, MPI_INT, peer, 0, comm, 0, rank == 0 ? 1 : 3, &req);
        CHECK_ERR_CLASS(rc, MPIX_ERR_STREAM);
        CHECK_ERR_STRING(rc, "dest_stream_index");
        rc = MPIX_Stream_recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, comm, 0, 0, MPI_STATUS_IGNORE);
        CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
        CHECK_ERR_STRING(rc, "MPIX_Stream_recv: source=MPI_ANY_SOURCE");
        /* a valid pair still works */
        int v = 40 + rank, w = -1;
        if (rank == 0) {
            CHECK_SUCCESS(MPIX_Stream_send(&v, 1, MPI_INT, 1, 9, comm, 2, 0));
            CHECK_SUCCESS(MPIX_Stream_recv(&w, 1, MPI_INT, 1, 9, comm, 0, 2, MPI_STATUS_IGNORE));
        } else {
            CHECK_SUCCESS(MPIX_Stream_recv(&w, 1, MPI_INT, 0, 9, comm, 2, 0, MPI_STATUS_IGNORE));
            CHECK_SUCCESS(MPIX_Stream_send(&v, 1, MPI_INT, 0, 9, comm, 0, 2));
        }
        CHECK_INT(w, 40 + peer);
    }
    rc = MPIX_Send_enqueue(&x, 1, MPI_INT, 0, 0, comm);
    CHECK_ERR_CLASS(rc, MPIX_ERR_STREAM);
    CHECK_ERR_STRING(rc, "multiplex");
    rc = MPIX_Stream_send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, 0, 0);
    CHECK_ERR_CLASS(rc, MPIX_ERR_STREAM);
    CHECK_ERR_STRING(rc, "MPIX_Stream_comm_create_multiplex");
    MPI_Comm_free(&comm);

    /* MPIX_Wait_enqueue takes only enqueue requests; truncation is reported
     * in the status the stream writes, and nothing hangs. */
    CHECK_SUCCESS(MPIX_Stream_comm_create(MPI_COMM_WORLD, forms[0], &comm));
    MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
    rc = MPIX_Wait_enqueue(&req, MPI_STATUS_IGNORE);
    CHECK_ERR_CLASS(rc, MPI_ERR_REQUEST);
    CHECK_ERR_STRING(rc, "not a request of MPIX_Isend_enqueue");
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (size >= 2 && rank < 2) {
        int big[4] = {1, 2, 3, 4}, small[2] = {0, 0};
        MPI_Status st;
        st.MPI_ERROR = MPI_SUCCESS;
        if (rank == 0)
            CHECK_SUCCESS(MPIX_Send_enqueue(big, 4, MPI_INT, 1, 3, comm));
        else
            CHECK_SUCCESS(MPIX_Recv_enqueue(small, 2, MPI_INT, 0, 3, comm, &st));
        CHECK_SUCCESS(MPIX_Host_stream_synchronize(host));
        if (rank == 1)
            CHECK_ERR_CLASS(st.MPI_ERROR, MPI_ERR_TRUNCATE);
    }
    MPI_Comm_free(&comm);
    for (int f = 0; f < 3; f++)
        CHECK_SUCCESS(MPIX_Stream_free(&forms[f]));
    CHECK_SUCCESS(MPIX_Host_stream_free(&host));
    return mtest_finish();
}
