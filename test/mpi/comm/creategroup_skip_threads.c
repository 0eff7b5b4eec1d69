/* MPI_Comm_create_group from several threads where some processes skip a
 * construction: each thread t of every process loops over two
 * constructions with tag t, first over the processes 0..size/2 (the others
 * skip it and run ahead into the next), then over every process. The
 * processes that run ahead reach the second construction's agreement while
 * the others are still in the first; a round that held their context id
 * bitmap then waited for threads that a lower construction, needing that
 * bitmap, kept busy (a deadlock before agreements waited for every
 * member's arrival). Also MPI_Comm_dup of per-thread parents, with one
 * thread per process starting late. Each result is checked: size, members
 * and an allreduce over it. */
#include <pthread.h>
#include <unistd.h>
#include "mtest.h"

enum { kThreads = 4, kRounds = 25 };
static MPI_Group world_group;
static MPI_Comm parents[kThreads];
static int rank, size;

static void check_sum(MPI_Comm c, int members, const char *what)
{
    int n = -1, r = -1, sum = -1;
    CHECK_SUCCESS(MPI_Comm_size(c, &n));
    CHECK_SUCCESS(MPI_Comm_rank(c, &r));
    CHECK(n == members && r == rank, "%s: size %d rank %d, expected size %d rank %d", what, n, r,
          members, rank);
    CHECK_SUCCESS(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == members * (members - 1) / 2, "%s: allreduce gave %d, expected %d", what, sum,
          members * (members - 1) / 2);
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    int range[1][3] = {{0, size / 2, 1}};
    for (int i = 0; i < kRounds; i++) {
        MPI_Group half;
        MPI_Comm c;
        CHECK_SUCCESS(MPI_Group_range_incl(world_group, 1, range, &half));
        if (rank <= size / 2) {
            CHECK_SUCCESS(MPI_Comm_create_group(MPI_COMM_WORLD, half, t, &c));
            check_sum(c, size / 2 + 1, "half");
            CHECK_SUCCESS(MPI_Comm_free(&c));
        }
        CHECK_SUCCESS(MPI_Group_free(&half));
        CHECK_SUCCESS(MPI_Comm_create_group(MPI_COMM_WORLD, world_group, t, &c));
        check_sum(c, size, "all");
        CHECK_SUCCESS(MPI_Comm_free(&c));
        if (i % 5 == 0) {
            if (t == rank % kThreads && i == 0)
                usleep(100 * 1000);
            CHECK_SUCCESS(MPI_Comm_dup(parents[t], &c));
            check_sum(c, size, "dup");
            CHECK_SUCCESS(MPI_Comm_free(&c));
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_INT(provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    for (int t = 0; t < kThreads; t++)
        CHECK_SUCCESS(MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]));
    pthread_t threads[kThreads];
    for (int t = 0; t < kThreads; t++)
        pthread_create(&threads[t], NULL, worker, (void *)(long)t);
    for (int t = 0; t < kThreads; t++)
        pthread_join(threads[t], NULL);
    for (int t = 0; t < kThreads; t++)
        CHECK_SUCCESS(MPI_Comm_free(&parents[t]));
    MPI_Group_free(&world_group);
    return mtest_finish();
}
