/* MPIX_Host_stream from C: 1000 launched callbacks increment a counter and
 * the total is exact after one synchronize; callbacks run in launch order;
 * several streams run independently; free runs pending work and sets the
 * handle to NULL; a stream is usable again after synchronize. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>
#include "mtest.h"

enum { kLaunches = 1000, kStreams = 4 };

static void increment(void *arg) { ++*(long *)arg; /* only the stream's thread touches it */ }

struct order {
    int next;
    int out_of_order;
};

struct step {
    struct order *order;
    int index;
};

static void check_order(void *arg)
{
    struct step *step = arg;
    if (step->index != step->order->next)
        step->order->out_of_order++;
    step->order->next = step->index + 1;
}

static void slow_increment(void *arg)
{
    struct timespec interval = {0, 20000};
    nanosleep(&interval, NULL);
    ++*(long *)arg;
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);

    MPIX_Host_stream stream = NULL;
    CHECK_SUCCESS(MPIX_Host_stream_create(&stream));
    CHECK(stream != NULL, "create left the handle NULL");

    long counter = 0;
    for (int i = 0; i < kLaunches; i++)
        CHECK_SUCCESS(MPIX_Host_stream_launch(stream, increment, &counter));
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
    CHECK_INT(counter, kLaunches);

    /* In order, and usable again after a synchronize. */
    static struct step steps[kLaunches];
    struct order order = {0, 0};
    for (int i = 0; i < kLaunches; i++) {
        steps[i].order = &order;
        steps[i].index = i;
        CHECK_SUCCESS(MPIX_Host_stream_launch(stream, check_order, &steps[i]));
    }
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
    CHECK_INT(order.out_of_order, 0);
    CHECK_INT(order.next, kLaunches);
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream)); /* nothing pending */

    /* Several streams at once, each with its own counter. */
    MPIX_Host_stream streams[kStreams];
    long counters[kStreams] = {0};
    for (int s = 0; s < kStreams; s++)
        CHECK_SUCCESS(MPIX_Host_stream_create(&streams[s]));
    for (int i = 0; i < kLaunches; i++)
        for (int s = 0; s < kStreams; s++)
            CHECK_SUCCESS(MPIX_Host_stream_launch(streams[s], increment, &counters[s]));
    for (int s = 0; s < kStreams; s++) {
        CHECK_SUCCESS(MPIX_Host_stream_synchronize(streams[s]));
        CHECK_INT(counters[s], kLaunches);
    }

    /* Free waits for queued work and sets the handle to NULL. */
    long pending = 0;
    for (int i = 0; i < 200; i++)
        CHECK_SUCCESS(MPIX_Host_stream_launch(streams[0], slow_increment, &pending));
    CHECK_SUCCESS(MPIX_Host_stream_free(&streams[0]));
    CHECK(streams[0] == NULL, "free did not set the handle to NULL");
    CHECK_INT(pending, 200);
    for (int s = 1; s < kStreams; s++) {
        CHECK_SUCCESS(MPIX_Host_stream_free(&streams[s]));
        CHECK(streams[s] == NULL, "free did not set handle %d to NULL", s);
    }

    CHECK_SUCCESS(MPIX_Host_stream_free(&stream));
    CHECK(stream == NULL, "free did not set the handle to NULL");

    /* The ranks agree that everything worked. */
    long total = 0, mine = counter;
    CHECK_SUCCESS(MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_INT(total, (long)kLaunches * size);
    return mtest_finish();
}
