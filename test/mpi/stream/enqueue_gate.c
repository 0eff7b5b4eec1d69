/* The receive gate of every stream point-to-point API: a receive buffer is
 * written only after the receiving stream reached the operation, even when
 * the sender's data arrives long before (eager messages wait in the
 * library, rendezvous ones are not pulled). Ranks pair up (0-1, 2-3, ...);
 * the odd rank of a pair receives. For MPIX_Irecv_enqueue, HPE's
 * MPIX_Enqueue_recv and a persistent MPIS_ receive, at 8 bytes and 1 MiB:
 * the receiver's stream is held by a kernel spinning on a flag, the receive
 * is enqueued behind it, the sender sends; for 200 ms the receiver drives
 * MPI progress on the CPU and checks that its buffer still holds the
 * sentinel; then it lets the stream go and checks every value. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mtest.h"
#include "stream-triggering.h"
#include "stream_comm.h"

#define SENTINEL 0x5a

static volatile int g_open;

/* Holds the stream until the CPU opens the gate. */
static void hold(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&g_open, __ATOMIC_ACQUIRE))
        sched_yield();
}

static int untouched(const unsigned char *buf, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        if (buf[i] != SENTINEL)
            return 0;
    return 1;
}

static unsigned char pattern(int round, size_t i)
{
    return (unsigned char)(round * 31 + i * 7 + 1);
}

enum api { ENQUEUE, QUEUE, PERSISTENT, APIS };
static const char *api_name[APIS] = {"MPIX_Irecv_enqueue", "MPIX_Enqueue_recv", "MPIS_Recv_init"};

/* Receiver: CPU progress for 200 ms with the stream held; the buffer must
 * not change. Then the gate opens. */
static void watch_then_open(const unsigned char *buf, size_t bytes, int api)
{
    for (int i = 0; i < 40; i++) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        usleep(5000);
    }
    CHECK(untouched(buf, bytes),
          "%s, %zu bytes: the receive buffer was written before the "
          "receiving stream reached the receive",
          api_name[api], bytes);
    __atomic_store_n(&g_open, 1, __ATOMIC_RELEASE);
}

static void check_data(const unsigned char *buf, size_t bytes, int round, int api)
{
    size_t wrong = 0;
    for (size_t i = 0; i < bytes; i++)
        wrong += buf[i] != pattern(round, i);
    CHECK(wrong == 0, "%s, %zu bytes: %zu wrong bytes after the stream ran", api_name[api], bytes,
          wrong);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int receiver = rank % 2 == 1;
    const int peer = receiver ? rank - 1 : rank + 1;
    const int paired = peer < size;

    MPIX_Host_stream host;
    CHECK_SUCCESS(MPIX_Host_stream_create(&host));
    MPIX_Stream stream;
    MPI_Comm comm = host_stream_comm(host, &stream);
    MPIX_Queue queue;
    CHECK_SUCCESS(MPIX_Create_queue(MPI_COMM_WORLD, host, &queue));
    MPIS_Queue mpis_queue;
    CHECK_SUCCESS(MPIS_Queue_init(&mpis_queue, THREAD, &host));

    const size_t sizes[2] = {8, 1 << 20};
    unsigned char *buf = malloc(sizes[1]);
    int round = 0;
    for (int api = 0; api < APIS; api++)
        for (int s = 0; s < 2; s++, round++) {
            const size_t bytes = sizes[s];
            const int count = (int)bytes;
            if (receiver)
                memset(buf, SENTINEL, bytes);
            else
                for (size_t i = 0; i < bytes; i++)
                    buf[i] = pattern(round, i);
            MPIS_Request preq = MPIS_REQUEST_NULL;
            if (api == PERSISTENT && paired) {
                if (receiver)
                    CHECK_SUCCESS(MPIS_Recv_init(buf, count, MPI_BYTE, peer, round, MPI_COMM_WORLD,
                                                 MPI_INFO_NULL, &preq));
                else
                    CHECK_SUCCESS(MPIS_Send_init(buf, count, MPI_BYTE, peer, round, MPI_COMM_WORLD,
                                                 MPI_INFO_NULL, &preq));
                CHECK_SUCCESS(MPIS_Match(&preq, MPI_STATUS_IGNORE));
            }
            __atomic_store_n(&g_open, 0, __ATOMIC_RELEASE);
            if (receiver)
                CHECK_SUCCESS(MPIX_Host_stream_launch(host, hold, NULL));
            MPI_Request req = MPI_REQUEST_NULL;
            if (paired) {
                switch (api) {
                case ENQUEUE:
                    if (receiver)
                        CHECK_SUCCESS(
                            MPIX_Irecv_enqueue(buf, count, MPI_BYTE, peer, round, comm, &req));
                    else
                        CHECK_SUCCESS(
                            MPIX_Isend_enqueue(buf, count, MPI_BYTE, peer, round, comm, &req));
                    CHECK_SUCCESS(MPIX_Wait_enqueue(&req, MPI_STATUS_IGNORE));
                    break;
                case QUEUE:
                    if (receiver)
                        CHECK_SUCCESS(
                            MPIX_Enqueue_recv(buf, count, MPI_BYTE, peer, round, queue, &req));
                    else
                        CHECK_SUCCESS(
                            MPIX_Enqueue_send(buf, count, MPI_BYTE, peer, round, queue, &req));
                    CHECK_SUCCESS(MPIX_Enqueue_start(queue));
                    CHECK_SUCCESS(MPIX_Enqueue_wait(queue));
                    break;
                default:
                    CHECK_SUCCESS(MPIS_Enqueue_start(mpis_queue, &preq));
                    CHECK_SUCCESS(MPIS_Enqueue_waitall(mpis_queue));
                    break;
                }
            }
            /* The sender's stream has started its send by now (or is
             * about to): its data is on the way while the gate is shut. */
            MPI_Barrier(MPI_COMM_WORLD);
            if (receiver)
                watch_then_open(buf, bytes, api);
            CHECK_SUCCESS(MPIX_Host_stream_synchronize(host));
            if (api == QUEUE && req != MPI_REQUEST_NULL)
                CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
            if (receiver && paired)
                check_data(buf, bytes, round, api);
            if (preq != MPIS_REQUEST_NULL)
                CHECK_SUCCESS(MPIS_Request_free(&preq));
            MPI_Barrier(MPI_COMM_WORLD);
        }

    free(buf);
    CHECK_SUCCESS(MPIS_Queue_free(&mpis_queue));
    CHECK_SUCCESS(MPIX_Free_queue(queue));
    CHECK_SUCCESS(MPI_Comm_free(&comm));
    CHECK_SUCCESS(MPIX_Stream_free(&stream));
    CHECK_SUCCESS(MPIX_Host_stream_free(&host));
    return mtest_finish();
}
