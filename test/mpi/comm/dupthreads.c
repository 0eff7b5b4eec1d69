/* Context id agreement under MPI_THREAD_MULTIPLE: several threads per
 * process duplicate their own parent communicators at the same time, in a
 * different order on every process. Every duplicate must work and be
 * isolated from the others. */
#include <pthread.h>
#include "mtest.h"

enum { kThreads = 3, kRounds = 40 };
static MPI_Comm parents[kThreads];
static int rank, size;

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    for (int i = 0; i < kRounds; i++) {
        MPI_Comm c;
        CHECK_SUCCESS(MPI_Comm_dup(parents[t], &c));
        int v = rank * kThreads + t, sum = -1;
        CHECK_SUCCESS(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
        CHECK_INT(sum, kThreads * size * (size - 1) / 2 + t * size);
        CHECK_SUCCESS(MPI_Comm_free(&c));
    }
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
    if (provided != MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf(" No Errors\n");
        MPI_Finalize();
        return 0;
    }
    for (int t = 0; t < kThreads; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]);
    pthread_t threads[kThreads];
    /* Start the threads in a rank-dependent order. */
    for (int i = 0; i < kThreads; i++) {
        int t = (i + rank) % kThreads;
        pthread_create(&threads[t], NULL, worker, (void *)(long)t);
    }
    for (int t = 0; t < kThreads; t++)
        pthread_join(threads[t], NULL);
    for (int t = 0; t < kThreads; t++)
        MPI_Comm_free(&parents[t]);
    return mtest_finish();
}
