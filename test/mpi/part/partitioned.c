/* Partitioned communication between pairs (rank r and r^1; the odd rank
 * out at odd sizes sends to itself): MPI_Psend_init / MPI_Precv_init with
 * different partition counts on the two sides, several epochs (MPI_Start,
 * MPI_Pready in reverse order, MPI_Pready_range, MPI_Pready_list,
 * MPI_Parrived polling, MPI_Wait / MPI_Test), partitions marked ready by
 * several threads at once, a derived datatype, ordinary traffic with the
 * same tag kept apart, and the error paths. */
#include <pthread.h>
#include <stdlib.h>
#include "mtest.h"

#define SEND_PARTS 8
#define RECV_PARTS 4
#define PER_SEND 16 /* ints per send partition */

static int rank, size;
static MPI_Request sreq;

struct worker {
    int first, step;
};
static void *ready_some(void *arg)
{
    struct worker *w = arg;
    for (int p = w->first; p < SEND_PARTS; p += w->step)
        CHECK_SUCCESS(MPI_Pready(p, sreq));
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_INT(provided, MPI_THREAD_MULTIPLE);
    int peer = (rank ^ 1) < size ? rank ^ 1 : rank;
    int total = SEND_PARTS * PER_SEND;
    int *sbuf = malloc(sizeof(int) * total), *rbuf = malloc(sizeof(int) * total);
    MPI_Request rreq;
    CHECK_SUCCESS(MPI_Psend_init(sbuf, SEND_PARTS, PER_SEND, MPI_INT, peer, 7, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &sreq));
    CHECK_SUCCESS(MPI_Precv_init(rbuf, RECV_PARTS, total / RECV_PARTS, MPI_INT, peer, 7,
                                 MPI_COMM_WORLD, MPI_INFO_NULL, &rreq));
    /* Pready before MPI_Start is an error */
    CHECK_ERR_CLASS(MPI_Pready(0, sreq), MPI_ERR_REQUEST);
    for (int epoch = 0; epoch < 6; epoch++) {
        for (int i = 0; i < total; i++) {
            sbuf[i] = rank * 100000 + epoch * 1000 + i;
            rbuf[i] = -1;
        }
        CHECK_SUCCESS(MPI_Start(&rreq));
        CHECK_SUCCESS(MPI_Start(&sreq));
        /* An ordinary message with the same tag must not match the partitioned receive. */
        int plain = -5, plain_in = -1;
        MPI_Request preq;
        MPI_Irecv(&plain_in, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &preq);
        MPI_Send(&plain, 1, MPI_INT, peer, 7, MPI_COMM_WORLD);
        switch (epoch % 4) {
        case 0:
            for (int p = SEND_PARTS - 1; p >= 0; p--)
                CHECK_SUCCESS(MPI_Pready(p, sreq));
            break;
        case 1:
            CHECK_SUCCESS(MPI_Pready_range(0, 2, sreq));
            CHECK_SUCCESS(MPI_Pready_range(3, SEND_PARTS - 1, sreq));
            break;
        case 2: {
            int list1[3] = {5, 1, 3}, list2[5] = {0, 2, 4, 6, 7};
            CHECK_SUCCESS(MPI_Pready_list(3, list1, sreq));
            CHECK_ERR_CLASS(MPI_Pready_list(1, list1, sreq), MPI_ERR_ARG); /* already ready */
            CHECK_SUCCESS(MPI_Pready_list(5, list2, sreq));
            break;
        }
        default: {
            pthread_t t[4];
            struct worker w[4];
            for (int k = 0; k < 4; k++) {
                w[k].first = k;
                w[k].step = 4;
                pthread_create(&t[k], NULL, ready_some, &w[k]);
            }
            for (int k = 0; k < 4; k++)
                pthread_join(t[k], NULL);
        }
        }
        /* Poll Parrived until every receive partition is in */
        for (int p = 0; p < RECV_PARTS; p++) {
            int flag = 0;
            while (!flag)
                CHECK_SUCCESS(MPI_Parrived(rreq, p, &flag));
            for (int i = p * (total / RECV_PARTS); i < (p + 1) * (total / RECV_PARTS); i++)
                if (rbuf[i] != peer * 100000 + epoch * 1000 + i) {
                    CHECK_INT(rbuf[i], peer * 100000 + epoch * 1000 + i);
                    break;
                }
        }
        MPI_Status st;
        CHECK_SUCCESS(MPI_Wait(&rreq, &st));
        CHECK_INT(st.MPI_SOURCE, peer);
        CHECK_INT(st.MPI_TAG, 7);
        int count = -1;
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK_INT(count, total);
        if (epoch % 2) {
            int flag = 0;
            while (!flag)
                CHECK_SUCCESS(MPI_Test(&sreq, &flag, MPI_STATUS_IGNORE));
        } else {
            CHECK_SUCCESS(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        }
        MPI_Wait(&preq, MPI_STATUS_IGNORE);
        CHECK_INT(plain_in, -5);
    }
    /* Errors */
    CHECK_SUCCESS(MPI_Start(&sreq));
    CHECK_ERR_CLASS(MPI_Pready(SEND_PARTS, sreq), MPI_ERR_ARG);
    CHECK_ERR_CLASS(MPI_Pready(-1, sreq), MPI_ERR_ARG);
    CHECK_ERR_CLASS(MPI_Pready_range(3, 1, sreq), MPI_ERR_ARG);
    CHECK_ERR_CLASS(MPI_Pready(0, rreq), MPI_ERR_REQUEST);
    int flag;
    CHECK_ERR_CLASS(MPI_Parrived(rreq, RECV_PARTS, &flag), MPI_ERR_ARG);
    CHECK_ERR_CLASS(MPI_Parrived(sreq, 0, &flag), MPI_ERR_REQUEST);
    CHECK_SUCCESS(MPI_Start(&rreq));
    CHECK_SUCCESS(MPI_Pready_range(0, SEND_PARTS - 1, sreq));
    CHECK_SUCCESS(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    CHECK_SUCCESS(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
    MPI_Request bad;
    CHECK_ERR_CLASS(
        MPI_Psend_init(sbuf, 0, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &bad),
        MPI_ERR_ARG);
    CHECK_ERR_CLASS(
        MPI_Precv_init(rbuf, 1, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &bad),
        MPI_ERR_RANK);
    CHECK_ERR_CLASS(
        MPI_Psend_init(sbuf, 1, 1, MPI_INT, size, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &bad),
        MPI_ERR_RANK);
    CHECK_ERR_CLASS(
        MPI_Psend_init(sbuf, 1, -1, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &bad),
        MPI_ERR_COUNT);

    /* A derived datatype: every other int */
    MPI_Datatype strided;
    MPI_Type_vector(PER_SEND, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    int *wide = malloc(sizeof(int) * total * 2), *narrow = malloc(sizeof(int) * total);
    for (int i = 0; i < 2 * total; i++)
        wide[i] = rank * 7 + i;
    MPI_Request s2, r2;
    MPI_Aint lb, extent;
    MPI_Type_get_extent(strided, &lb, &extent);
    MPI_Datatype resized;
    MPI_Type_create_resized(strided, 0, 2 * PER_SEND * sizeof(int), &resized);
    MPI_Type_commit(&resized);
    CHECK_SUCCESS(
        MPI_Psend_init(wide, SEND_PARTS, 1, resized, peer, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &s2));
    CHECK_SUCCESS(
        MPI_Precv_init(narrow, 2, total / 2, MPI_INT, peer, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &r2));
    MPI_Start(&r2);
    MPI_Start(&s2);
    MPI_Pready_range(0, SEND_PARTS - 1, s2);
    MPI_Wait(&s2, MPI_STATUS_IGNORE);
    MPI_Wait(&r2, MPI_STATUS_IGNORE);
    for (int i = 0; i < total; i++)
        if (narrow[i] != peer * 7 + 2 * i) {
            CHECK_INT(narrow[i], peer * 7 + 2 * i);
            break;
        }
    MPI_Request_free(&s2);
    MPI_Request_free(&r2);
    MPI_Type_free(&strided);
    MPI_Type_free(&resized);
    CHECK_SUCCESS(MPI_Request_free(&sreq));
    CHECK_SUCCESS(MPI_Request_free(&rreq));
    free(sbuf);
    free(rbuf);
    free(wide);
    free(narrow);
    return mtest_finish();
}
