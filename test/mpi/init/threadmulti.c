/* MPI_Init_thread(MPI_THREAD_MULTIPLE): two threads per rank exchange messages
 * with the neighbouring ranks at the same time, each thread on its own tag. */
#include <pthread.h>
#include "mtest.h"

#define NTHREADS 2
#define ITERS 200
#define LEN 1000    /* ints per small message */
#define BIGLEN 9000 /* ints per large message (above the eager limit) */

static int rank, size;

struct thread_arg {
    int id;
    int errors;
    char msg[256];
};

static void *worker(void *p)
{
    struct thread_arg *a = p;
    int tag = 100 + a->id;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *sbuf = malloc(BIGLEN * sizeof(int)), *rbuf = malloc(BIGLEN * sizeof(int));
    int is_main = -1;
    if (MPI_Is_thread_main(&is_main) != MPI_SUCCESS || is_main != 0) {
        a->errors++;
        snprintf(a->msg, sizeof a->msg, "thread %d: MPI_Is_thread_main gave %d", a->id, is_main);
    }
    for (int it = 0; it < ITERS && a->errors == 0; it++) {
        int len = (it % 10 == 9) ? BIGLEN : LEN;
        for (int i = 0; i < len; i++)
            sbuf[i] = mtest_pattern(rank, tag * 1000 + it, i);
        memset(rbuf, 0xff, len * sizeof(int));
        MPI_Request req;
        MPI_Status st;
        /* only the left neighbour sends this tag here: odd iterations use MPI_ANY_SOURCE */
        int rc = MPI_Irecv(rbuf, len, MPI_INT, (it % 2) ? MPI_ANY_SOURCE : left, tag,
                           MPI_COMM_WORLD, &req);
        if (rc == MPI_SUCCESS)
            rc = MPI_Send(sbuf, len, MPI_INT, right, tag, MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req, &st);
        if (rc != MPI_SUCCESS) {
            a->errors++;
            snprintf(a->msg, sizeof a->msg, "thread %d iter %d: rc=%d", a->id, it, rc);
            break;
        }
        int count = -1;
        MPI_Get_count(&st, MPI_INT, &count);
        if (st.MPI_SOURCE != left || st.MPI_TAG != tag || count != len) {
            a->errors++;
            snprintf(a->msg, sizeof a->msg, "thread %d iter %d: source %d tag %d count %d", a->id,
                     it, st.MPI_SOURCE, st.MPI_TAG, count);
        }
        for (int i = 0; i < len; i++) {
            int want = mtest_pattern(left, tag * 1000 + it, i);
            if (rbuf[i] != want) {
                a->errors++;
                snprintf(a->msg, sizeof a->msg, "thread %d iter %d: rbuf[%d]=%d expected %d", a->id,
                         it, i, rbuf[i], want);
                break;
            }
        }
        /* A blocking synchronous exchange in the other direction. */
        int token = rank * 100000 + a->id * 1000 + it, got = -1;
        rc = MPI_Sendrecv(&token, 1, MPI_INT, left, tag + 50, &got, 1, MPI_INT, right, tag + 50,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || got != right * 100000 + a->id * 1000 + it) {
            a->errors++;
            snprintf(a->msg, sizeof a->msg, "thread %d iter %d: sendrecv rc=%d got %d", a->id, it,
                     rc, got);
        }
    }
    free(sbuf);
    free(rbuf);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Init_thread failed\n");
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_INT(provided, MPI_THREAD_MULTIPLE);
    int q = -1;
    CHECK_SUCCESS(MPI_Query_thread(&q));
    CHECK_INT(q, provided);

    if (provided == MPI_THREAD_MULTIPLE) {
        pthread_t th[NTHREADS];
        struct thread_arg args[NTHREADS];
        for (int t = 0; t < NTHREADS; t++) {
            args[t].id = t;
            args[t].errors = 0;
            args[t].msg[0] = '\0';
            pthread_create(&th[t], NULL, worker, &args[t]);
        }
        /* The main thread is also the thread main; other threads are not. */
        int is_main = -1;
        CHECK_SUCCESS(MPI_Is_thread_main(&is_main));
        CHECK_INT(is_main, 1);
        for (int t = 0; t < NTHREADS; t++) {
            pthread_join(th[t], NULL);
            CHECK(args[t].errors == 0, "%d errors, last: %s", args[t].errors, args[t].msg);
        }
    }
    return mtest_finish();
}
