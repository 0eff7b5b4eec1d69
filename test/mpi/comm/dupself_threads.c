/* MPI_COMM_SELF duplicated under MPI_THREAD_MULTIPLE while other threads
 * agree on context ids of larger communicators. Each of two threads per
 * process duplicates MPI_COMM_SELF inside an application lock, then its own
 * copy of MPI_COMM_WORLD; on rank t, thread t starts late. A one-process
 * construction must not wait for the mask another thread's round holds:
 * that round may wait for a process whose own MPI_COMM_SELF duplication
 * waits for its round (a deadlock before the local pool of context ids).
 * Also: many MPI_COMM_SELF duplicates at once (more than the local pool's
 * 64 ids), each usable and isolated. */
#include <pthread.h>
#include <unistd.h>
#include "mtest.h"

enum { kThreads = 2, kRounds = 5, kSelfDups = 150 };
static MPI_Comm parents[kThreads];
static pthread_mutex_t app_lock = PTHREAD_MUTEX_INITIALIZER;
static int rank, size;

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    for (int i = 0; i < kRounds; i++) {
        if (t == rank && i == 0)
            usleep(300 * 1000);
        MPI_Comm self, c;
        pthread_mutex_lock(&app_lock);
        CHECK_SUCCESS(MPI_Comm_dup(MPI_COMM_SELF, &self));
        pthread_mutex_unlock(&app_lock);
        int one = 1, got = 0;
        CHECK_SUCCESS(MPI_Allreduce(&one, &got, 1, MPI_INT, MPI_SUM, self));
        CHECK_INT(got, 1);
        CHECK_SUCCESS(MPI_Comm_free(&self));
        CHECK_SUCCESS(MPI_Comm_dup(parents[t], &c));
        int v = rank + t, sum = -1;
        CHECK_SUCCESS(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
        CHECK_INT(sum, size * (size - 1) / 2 + t * size);
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
    for (int t = 0; t < kThreads; t++)
        pthread_create(&threads[t], NULL, worker, (void *)(long)t);
    for (int t = 0; t < kThreads; t++)
        pthread_join(threads[t], NULL);
    for (int t = 0; t < kThreads; t++)
        MPI_Comm_free(&parents[t]);

    /* More duplicates of MPI_COMM_SELF than the local pool holds: the rest
     * agree like any construction. Each carries its own messages. */
    static MPI_Comm dups[kSelfDups];
    for (int i = 0; i < kSelfDups; i++)
        CHECK_SUCCESS(MPI_Comm_dup(MPI_COMM_SELF, &dups[i]));
    for (int i = kSelfDups - 1; i >= 0; i -= 7) {
        int out = i, in = -1;
        MPI_Request r;
        CHECK_SUCCESS(MPI_Irecv(&in, 1, MPI_INT, 0, 5, dups[i], &r));
        if (i > 0) /* a message on another duplicate with the same tag is not matched */
            CHECK_SUCCESS(MPI_Send(&out, 1, MPI_INT, 0, 5, dups[i - 1]));
        CHECK_SUCCESS(MPI_Send(&out, 1, MPI_INT, 0, 5, dups[i]));
        CHECK_SUCCESS(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK_INT(in, i);
        if (i > 0) {
            int other = -1;
            CHECK_SUCCESS(MPI_Recv(&other, 1, MPI_INT, 0, 5, dups[i - 1], MPI_STATUS_IGNORE));
            CHECK_INT(other, i);
        }
    }
    for (int i = 0; i < kSelfDups; i++)
        CHECK_SUCCESS(MPI_Comm_free(&dups[i]));
    return mtest_finish();
}
