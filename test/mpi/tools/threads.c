/* MPI_T under MPI_THREAD_MULTIPLE: on every rank one thread exchanges
 * messages with the neighbours while another reads every performance and
 * control variable and writes a LOCAL one, over and over; the messages
 * arrive intact and each counter read never goes backwards. */
#include <mpi.h>
#include <pthread.h>
#include <string.h>
#include "mtest.h"

#define ROUNDS 100

static volatile int done = 0;
static int rank, size;

static void *exchange(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        int out[4] = {rank, i, rank * i, -i}, in[4] = {0};
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        MPI_Sendrecv(out, 4, MPI_INT, next, 3, in, 4, MPI_INT, prev, 3, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        CHECK(in[0] == prev && in[1] == i && in[2] == prev * i && in[3] == -i,
              "round %d: %d %d %d %d", i, in[0], in[1], in[2], in[3]);
    }
    done = 1;
    return NULL;
}

static void *inspect(void *arg)
{
    (void)arg;
    MPI_T_pvar_session session;
    int npvar = 0, ncvar = 0, count, print_stats;
    CHECK_INT(MPI_T_pvar_session_create(&session), MPI_SUCCESS);
    MPI_T_pvar_get_num(&npvar);
    MPI_T_cvar_get_num(&ncvar);
    MPI_T_pvar_handle handles[64];
    unsigned long long last[64];
    int is_counter[64];
    CHECK(npvar <= 64, "%d pvars", npvar);
    for (int i = 0; i < npvar && i < 64; i++) {
        int cls;
        MPI_T_pvar_get_info(i, NULL, NULL, NULL, &cls, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                            NULL);
        is_counter[i] = cls == MPI_T_PVAR_CLASS_COUNTER;
        CHECK_INT(MPI_T_pvar_handle_alloc(session, i, NULL, &handles[i], &count), MPI_SUCCESS);
        last[i] = 0;
    }
    CHECK_INT(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    MPI_T_cvar_handle stats;
    int stats_index;
    CHECK_INT(MPI_T_cvar_get_index("STMPI_RMA_PRINT_STATS", &stats_index), MPI_SUCCESS);
    CHECK_INT(MPI_T_cvar_handle_alloc(stats_index, NULL, &stats, &count), MPI_SUCCESS);
    CHECK_INT(MPI_T_cvar_read(stats, &print_stats), MPI_SUCCESS);
    int passes = 0;
    while (!done || passes < 3) {
        for (int i = 0; i < npvar && i < 64; i++) {
            unsigned long long v;
            CHECK_INT(MPI_T_pvar_read(session, handles[i], &v), MPI_SUCCESS);
            if (is_counter[i])
                CHECK(v >= last[i], "pvar %d went back: %llu < %llu", i, v, last[i]);
            last[i] = v;
        }
        for (int i = 0; i < ncvar; i++) {
            MPI_T_cvar_handle h;
            char buf[256];
            CHECK_INT(MPI_T_cvar_handle_alloc(i, NULL, &h, &count), MPI_SUCCESS);
            CHECK_INT(MPI_T_cvar_read(h, buf), MPI_SUCCESS);
            CHECK_INT(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
        }
        int flip = passes & 1;
        CHECK_INT(MPI_T_cvar_write(stats, &flip), MPI_SUCCESS);
        passes++;
    }
    CHECK_INT(MPI_T_cvar_write(stats, &print_stats), MPI_SUCCESS);
    CHECK_INT(MPI_T_cvar_handle_free(&stats), MPI_SUCCESS);
    CHECK_INT(MPI_T_pvar_session_free(&session), MPI_SUCCESS);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    CHECK_INT(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) {
        printf("MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pthread_t a, b;
    pthread_create(&a, NULL, exchange, NULL);
    pthread_create(&b, NULL, inspect, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    CHECK_INT(MPI_T_finalize(), MPI_SUCCESS);
    return mtest_finish();
}
