/* MPI_THREAD_MULTIPLE: several threads of rank 0 take messages with the same
 * source and tag at the same time, with MPI_Mprobe/MPI_Mrecv, MPI_Improbe/
 * MPI_Imrecv and plain MPI_Recv. Every message (small and large, carrying its
 * id) must be received exactly once, by one thread, with its own contents and
 * with the size the matched probe reported. */
#include <pthread.h>
#include "mtest.h"

#define NTHREADS 4
#define PER_THREAD 60
#define NMSG (NTHREADS * PER_THREAD)

static int len_of(int id) { return id % 6 == 5 ? 6000 + id : 1 + id % 50; }

static int seen[3][NMSG];
static int mode_now;

struct arg {
    int id, errors;
    char msg[200];
};

static void take(struct arg *a, int *buf)
{
    MPI_Status st;
    int n = -1;
    if (mode_now == 0) {
        MPI_Message m;
        MPI_Mprobe(1, 7, MPI_COMM_WORLD, &m, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        MPI_Mrecv(buf, n, MPI_INT, &m, &st);
    } else if (mode_now == 1) {
        MPI_Message m;
        int flag = 0;
        while (!flag)
            MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        MPI_Request r;
        MPI_Imrecv(buf, n, MPI_INT, &m, &r);
        MPI_Wait(&r, &st);
    } else {
        MPI_Recv(buf, 7000, MPI_INT, 1, 7, MPI_COMM_WORLD, &st);
    }
    int c = -1;
    MPI_Get_count(&st, MPI_INT, &c);
    int id = buf[0];
    if (id < 0 || id >= NMSG) {
        a->errors++;
        snprintf(a->msg, sizeof a->msg, "thread %d: bad id %d", a->id, id);
        return;
    }
    if (c != len_of(id) || (n >= 0 && n != c)) {
        a->errors++;
        snprintf(a->msg, sizeof a->msg,
                 "thread %d: message %d has count %d (probed %d), expected %d", a->id, id, c, n,
                 len_of(id));
    }
    for (int i = 1; i < c && i < len_of(id); i++)
        if (buf[i] != mtest_pattern(1, id, i)) {
            a->errors++;
            snprintf(a->msg, sizeof a->msg, "thread %d: message %d element %d is %d", a->id, id, i,
                     buf[i]);
            break;
        }
    __atomic_fetch_add(&seen[mode_now][id], 1, __ATOMIC_RELAXED);
}

static void *worker(void *p)
{
    struct arg *a = p;
    int *buf = malloc(7000 * sizeof(int));
    for (int k = 0; k < PER_THREAD; k++)
        take(a, buf);
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_INT(provided, MPI_THREAD_MULTIPLE);
    if (provided != MPI_THREAD_MULTIPLE || size < 2)
        return mtest_finish();

    for (int mode = 0; mode < 3; mode++) {
        mode_now = mode;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            int *b = malloc(7000 * sizeof(int));
            for (int id = 0; id < NMSG; id++) {
                b[0] = id;
                for (int i = 1; i < len_of(id); i++)
                    b[i] = mtest_pattern(1, id, i);
                CHECK_SUCCESS(MPI_Send(b, len_of(id), MPI_INT, 0, 7, MPI_COMM_WORLD));
            }
            free(b);
        } else if (rank == 0) {
            pthread_t th[NTHREADS];
            struct arg args[NTHREADS];
            for (int t = 0; t < NTHREADS; t++) {
                args[t].id = t;
                args[t].errors = 0;
                args[t].msg[0] = 0;
                pthread_create(&th[t], NULL, worker, &args[t]);
            }
            for (int t = 0; t < NTHREADS; t++) {
                pthread_join(th[t], NULL);
                CHECK(args[t].errors == 0, "mode %d: %d errors, last: %s", mode, args[t].errors,
                      args[t].msg);
            }
            for (int id = 0; id < NMSG; id++)
                CHECK(seen[mode][id] == 1, "mode %d: message %d received %d times", mode, id,
                      seen[mode][id]);
        }
    }
    return mtest_finish();
}
