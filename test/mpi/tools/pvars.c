/* MPI_T performance variables while the program communicates: every one is
 * read through a session; counters move (unexpected messages when rank 1
 * sends before rank 0 posts its receives, queue depths and their high
 * marks, backlogged sends when rank 0 does not poll, lock acquisitions);
 * handle semantics (start/stop, reset, write, readreset, sessions apart,
 * MPI_T_PVAR_ALL_HANDLES) and the error classes. */
#include <mpi.h>
#include <string.h>
#include <unistd.h>
#include "mpix.h"
#include "mtest.h"

#define NMSG 5
#define NFLOOD 200

static MPI_T_pvar_session session;

static int pvar_index(const char *name, int var_class)
{
    int index = -1;
    int rc = MPI_T_pvar_get_index(name, var_class, &index);
    CHECK(rc == MPI_SUCCESS, "%s: get_index %d", name, rc);
    return index;
}

static MPI_T_pvar_handle alloc(const char *name, int var_class)
{
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    int count = 0;
    CHECK_INT(MPI_T_pvar_handle_alloc(session, pvar_index(name, var_class), NULL, &h, &count),
              MPI_SUCCESS);
    CHECK_INT(count, 1);
    return h;
}

static unsigned long long read_pvar(MPI_T_pvar_handle h)
{
    unsigned long long v = 0xdeadbeefULL;
    CHECK_INT(MPI_T_pvar_read(session, h, &v), MPI_SUCCESS);
    return v;
}

/* Every performance variable: info flags by class, a handle, a read. */
static void read_all(void)
{
    int num = 0;
    CHECK_INT(MPI_T_pvar_get_num(&num), MPI_SUCCESS);
    CHECK(num >= 20, "only %d performance variables", num);
    for (int i = 0; i < num; i++) {
        char name[128];
        int len = sizeof name, verbosity, cls, bind, readonly, continuous, atomic, count, back;
        MPI_Datatype type;
        MPI_T_enum e;
        CHECK_INT(MPI_T_pvar_get_info(i, name, &len, &verbosity, &cls, &type, &e, NULL, NULL, &bind,
                                      &readonly, &continuous, &atomic),
                  MPI_SUCCESS);
        CHECK(type == MPI_UNSIGNED_LONG_LONG, "%s: type", name);
        CHECK(e == MPI_T_ENUM_NULL, "%s: enum", name);
        CHECK_INT(bind, MPI_T_BIND_NO_OBJECT);
        CHECK(cls == MPI_T_PVAR_CLASS_COUNTER || cls == MPI_T_PVAR_CLASS_LEVEL ||
                  cls == MPI_T_PVAR_CLASS_HIGHWATERMARK,
              "%s: class %d", name, cls);
        if (cls == MPI_T_PVAR_CLASS_COUNTER)
            CHECK(!readonly && !continuous && atomic, "%s: counter flags %d %d %d", name, readonly,
                  continuous, atomic);
        else
            CHECK(readonly && continuous, "%s: flags %d %d", name, readonly, continuous);
        CHECK_INT(MPI_T_pvar_get_index(name, cls, &back), MPI_SUCCESS);
        CHECK_INT(back, i);
        MPI_T_pvar_handle h;
        CHECK_INT(MPI_T_pvar_handle_alloc(session, i, NULL, &h, &count), MPI_SUCCESS);
        unsigned long long v = 0xdeadbeefULL;
        CHECK_INT(MPI_T_pvar_read(session, h, &v), MPI_SUCCESS);
        /* A counter starts stopped at 0; the others show the library's value. */
        if (cls == MPI_T_PVAR_CLASS_COUNTER)
            CHECK(v == 0, "%s: %llu before start", name, v);
        else
            CHECK(v < (1ULL << 40), "%s: %llu", name, v);
        CHECK_INT(MPI_T_pvar_handle_free(session, &h), MPI_SUCCESS);
        CHECK(h == MPI_T_PVAR_HANDLE_NULL, "%s: handle not reset", name);
    }
}

/* Rank 1 sends NMSG messages before rank 0 posts a receive. */
static void unexpected_messages(int rank)
{
    MPI_T_pvar_handle unexpected = alloc("match_unexpected_messages", MPI_T_PVAR_CLASS_COUNTER);
    MPI_T_pvar_handle depth = alloc("match_unexpected_depth", MPI_T_PVAR_CLASS_LEVEL);
    MPI_T_pvar_handle depth_max =
        alloc("match_unexpected_depth_max", MPI_T_PVAR_CLASS_HIGHWATERMARK);
    MPI_T_pvar_handle searches = alloc("match_unexpected_searches", MPI_T_PVAR_CLASS_COUNTER);
    MPI_T_pvar_handle posted = alloc("match_posted_depth", MPI_T_PVAR_CLASS_LEVEL);
    CHECK_INT(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        for (int i = 0; i < NMSG; i++)
            MPI_Send(&i, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    } else if (rank == 0) {
        /* Poll (a probe of another tag drives progress) until all have arrived. */
        int flag;
        double start = MPI_Wtime();
        while (read_pvar(depth) < NMSG && MPI_Wtime() - start < 30)
            MPI_Iprobe(1, 8, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK(read_pvar(depth) == NMSG, "unexpected depth %llu", read_pvar(depth));
        CHECK(read_pvar(unexpected) >= NMSG, "unexpected messages %llu", read_pvar(unexpected));
        CHECK(read_pvar(depth_max) >= NMSG, "depth max %llu", read_pvar(depth_max));
        unsigned long long searched = read_pvar(searches);
        CHECK(searched >= 1, "unexpected searches %llu", searched);
        for (int i = 0; i < NMSG; i++) {
            int got = -1;
            MPI_Recv(&got, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK_INT(got, i);
        }
        CHECK(read_pvar(depth) == 0, "unexpected depth %llu after the receives", read_pvar(depth));
        CHECK(read_pvar(searches) >= searched + NMSG, "searches %llu", read_pvar(searches));
        /* A posted receive shows in the posted queue until its message comes. */
        MPI_Request req;
        int got = -1;
        MPI_Irecv(&got, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &req);
        CHECK(read_pvar(posted) >= 1, "posted depth %llu", read_pvar(posted));
        MPI_Send(&got, 0, MPI_INT, 1, 10, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK_INT(got, 42);
        CHECK(read_pvar(posted) == 0, "posted depth %llu", read_pvar(posted));
    }
    if (rank == 1) {
        int answer = 42;
        MPI_Recv(NULL, 0, MPI_INT, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&answer, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
    }

    /* Handle semantics on the unexpected-message counter. */
    unsigned long long v = read_pvar(unexpected), w;
    CHECK_INT(MPI_T_pvar_stop(session, unexpected), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        MPI_Send(&rank, 1, MPI_INT, 0, 11, MPI_COMM_WORLD);
    if (rank == 0) {
        int flag = 0;
        while (!flag)
            MPI_Iprobe(1, 11, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        MPI_Recv(&flag, 1, MPI_INT, 1, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    w = read_pvar(unexpected);
    CHECK(w == v, "a stopped handle moved: %llu -> %llu", v, w);
    CHECK_INT(MPI_T_pvar_reset(session, unexpected), MPI_SUCCESS);
    CHECK(read_pvar(unexpected) == 0, "after reset %llu", read_pvar(unexpected));
    unsigned long long set = 1000;
    CHECK_INT(MPI_T_pvar_write(session, unexpected, &set), MPI_SUCCESS);
    CHECK(read_pvar(unexpected) == 1000, "after write %llu", read_pvar(unexpected));
    CHECK_INT(MPI_T_pvar_readreset(session, unexpected, &w), MPI_SUCCESS);
    CHECK(w == 1000 && read_pvar(unexpected) == 0, "readreset %llu then %llu", w,
          read_pvar(unexpected));
    CHECK_INT(MPI_T_pvar_start(session, unexpected), MPI_SUCCESS);

    /* Level and high-water mark: continuous and read-only. */
    CHECK_INT(MPI_T_pvar_start(session, depth), MPI_T_ERR_PVAR_NO_STARTSTOP);
    CHECK_INT(MPI_T_pvar_stop(session, depth_max), MPI_T_ERR_PVAR_NO_STARTSTOP);
    CHECK_INT(MPI_T_pvar_reset(session, depth), MPI_T_ERR_PVAR_NO_WRITE);
    CHECK_INT(MPI_T_pvar_write(session, depth, &set), MPI_T_ERR_PVAR_NO_WRITE);
    CHECK_INT(MPI_T_pvar_readreset(session, depth_max, &w), MPI_T_ERR_PVAR_NO_WRITE);
    CHECK_INT(MPI_T_pvar_reset(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    CHECK_INT(MPI_T_pvar_stop(session, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
}

/* Rank 1 posts NFLOOD sends while rank 0 sleeps outside MPI: they cannot
 * all fit in the ring (or the network credits), so some wait. */
static void backlogged_sends(int rank)
{
    MPI_T_pvar_handle backlogged = alloc("device_backlogged_sends", MPI_T_PVAR_CLASS_COUNTER);
    MPI_T_pvar_handle full = alloc("shm_ring_full", MPI_T_PVAR_CLASS_COUNTER);
    /* The network modules' credit counters (with STMPI_DEVICE_NOLOCAL=yes
     * the flood goes through whichever module runs). */
    const char *credit_names[2] = {"ofi_credit_waits", "ucx_credit_waits"};
    MPI_T_pvar_handle credits[2] = {MPI_T_PVAR_HANDLE_NULL, MPI_T_PVAR_HANDLE_NULL};
    for (int m = 0; m < 2; m++) {
        int credits_index, count;
        if (MPI_T_pvar_get_index(credit_names[m], MPI_T_PVAR_CLASS_COUNTER, &credits_index) ==
            MPI_SUCCESS)
            MPI_T_pvar_handle_alloc(session, credits_index, NULL, &credits[m], &count);
    }
    MPI_T_pvar_start(session, backlogged);
    MPI_T_pvar_start(session, full);
    for (int m = 0; m < 2; m++)
        if (credits[m] != MPI_T_PVAR_HANDLE_NULL)
            MPI_T_pvar_start(session, credits[m]);
    MPI_Barrier(MPI_COMM_WORLD);
    int data[NFLOOD];
    if (rank == 1) {
        MPI_Request reqs[NFLOOD];
        for (int i = 0; i < NFLOOD; i++) {
            data[i] = i;
            MPI_Isend(&data[i], 1, MPI_INT, 0, 12, MPI_COMM_WORLD, &reqs[i]);
        }
        CHECK(read_pvar(backlogged) > 0, "no backlogged send of %d", NFLOOD);
        unsigned long long waits = 0;
        for (int m = 0; m < 2; m++)
            if (credits[m] != MPI_T_PVAR_HANDLE_NULL)
                waits += read_pvar(credits[m]);
        CHECK(read_pvar(full) + waits > 0, "neither a full ring nor a credit wait");
        MPI_Waitall(NFLOOD, reqs, MPI_STATUSES_IGNORE);
    } else if (rank == 0) {
        usleep(300000);
        for (int i = 0; i < NFLOOD; i++) {
            int got = -1;
            MPI_Recv(&got, 1, MPI_INT, 1, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK_INT(got, i);
        }
    }
}

/* Passive-target lock acquisitions, counted per lock. */
static void lock_counts(int rank, int size)
{
    MPI_T_pvar_handle acquisitions = alloc("rma_lock_acquisitions", MPI_T_PVAR_CLASS_COUNTER);
    MPI_T_pvar_start(session, acquisitions);
    int *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 3; i++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, (rank + 1) % size, 0, win);
        MPI_Win_unlock((rank + 1) % size, win);
    }
    CHECK(read_pvar(acquisitions) == 3, "lock acquisitions %llu", read_pvar(acquisitions));
    MPI_Win_free(&win);
    CHECK(read_pvar(acquisitions) == 3, "after MPI_Win_free %llu", read_pvar(acquisitions));
}

static void bump(void *arg) { ++*(int *)arg; }

/* Host-stream statistics: operations run on a stream are counted, and stay
 * counted after the stream is freed. */
static void host_stream_counts(void)
{
    MPI_T_pvar_handle live = alloc("stream_host_streams", MPI_T_PVAR_CLASS_LEVEL);
    MPI_T_pvar_handle ran[3] = {alloc("stream_host_executor_ops", MPI_T_PVAR_CLASS_COUNTER),
                                alloc("stream_host_caller_ops", MPI_T_PVAR_CLASS_COUNTER),
                                alloc("stream_host_inline_ops", MPI_T_PVAR_CLASS_COUNTER)};
    for (int i = 0; i < 3; i++)
        MPI_T_pvar_start(session, ran[i]);
    unsigned long long before = read_pvar(live);
    MPIX_Host_stream stream;
    int counter = 0;
    CHECK_SUCCESS(MPIX_Host_stream_create(&stream));
    CHECK(read_pvar(live) == before + 1, "live host streams %llu, were %llu", read_pvar(live),
          before);
    for (int i = 0; i < 10; i++)
        CHECK_SUCCESS(MPIX_Host_stream_launch(stream, bump, &counter));
    CHECK_SUCCESS(MPIX_Host_stream_synchronize(stream));
    CHECK_INT(counter, 10);
    unsigned long long total = 0;
    for (int i = 0; i < 3; i++)
        total += read_pvar(ran[i]);
    CHECK(total == 10, "host-stream operations counted: %llu of 10", total);
    CHECK_SUCCESS(MPIX_Host_stream_free(&stream));
    CHECK(read_pvar(live) == before, "live host streams %llu after the free", read_pvar(live));
    unsigned long long after = 0;
    for (int i = 0; i < 3; i++)
        after += read_pvar(ran[i]);
    CHECK(after == total, "operations of a freed stream: %llu, were %llu", after, total);
}

static void check_errors(void)
{
    int num, index, count;
    unsigned long long v;
    MPI_T_pvar_session other, freed;
    MPI_T_pvar_handle h, h_other;
    MPI_T_pvar_get_num(&num);
    CHECK_INT(MPI_T_pvar_get_num(NULL), MPI_T_ERR_INVALID);
    CHECK_INT(MPI_T_pvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                  NULL, NULL),
              MPI_T_ERR_INVALID_INDEX);
    CHECK_INT(MPI_T_pvar_get_index("match_unexpected_messages", MPI_T_PVAR_CLASS_LEVEL, &index),
              MPI_T_ERR_INVALID_NAME);
    CHECK_INT(MPI_T_pvar_get_index("no_such_pvar", MPI_T_PVAR_CLASS_COUNTER, &index),
              MPI_T_ERR_INVALID_NAME);
    CHECK_INT(MPI_T_pvar_handle_alloc(session, -1, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    CHECK_INT(MPI_T_pvar_handle_alloc(MPI_T_PVAR_SESSION_NULL, 0, NULL, &h, &count),
              MPI_T_ERR_INVALID_SESSION);
    CHECK_INT(MPI_T_pvar_session_create(NULL), MPI_T_ERR_INVALID);
    CHECK_INT(MPI_T_pvar_session_create(&other), MPI_SUCCESS);
    h = alloc("match_unexpected_messages", MPI_T_PVAR_CLASS_COUNTER);
    CHECK_INT(MPI_T_pvar_handle_alloc(other, 0, NULL, &h_other, &count), MPI_SUCCESS);
    /* A handle belongs to its session. */
    CHECK_INT(MPI_T_pvar_read(other, h, &v), MPI_T_ERR_INVALID_HANDLE);
    CHECK_INT(MPI_T_pvar_start(other, h), MPI_T_ERR_INVALID_HANDLE);
    CHECK_INT(MPI_T_pvar_read(session, h, NULL), MPI_T_ERR_INVALID);
    CHECK_INT(MPI_T_pvar_read(session, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE);
    CHECK_INT(MPI_T_pvar_read(session, MPI_T_PVAR_HANDLE_NULL, &v), MPI_T_ERR_INVALID_HANDLE);
    CHECK_INT(MPI_T_pvar_handle_free(other, &h), MPI_T_ERR_INVALID_HANDLE);
    freed = other;
    CHECK_INT(MPI_T_pvar_session_free(&other), MPI_SUCCESS);
    CHECK(other == MPI_T_PVAR_SESSION_NULL, "session not reset");
    CHECK_INT(MPI_T_pvar_read(freed, h_other, &v), MPI_T_ERR_INVALID_SESSION);
    CHECK_INT(MPI_T_pvar_session_free(&freed), MPI_T_ERR_INVALID_SESSION);
    CHECK_INT(MPI_T_pvar_handle_free(session, &h), MPI_SUCCESS);
    CHECK_INT(MPI_T_pvar_read(session, h, &v), MPI_T_ERR_INVALID_HANDLE);
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    CHECK_INT(MPI_T_pvar_session_create(&session), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_INT(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    CHECK_INT(MPI_T_pvar_session_create(&session), MPI_SUCCESS);
    read_all(); /* before MPI_Init */
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    read_all();
    unexpected_messages(rank);
    backlogged_sends(rank);
    lock_counts(rank, size);
    host_stream_counts();
    check_errors();
    read_all();
    CHECK_INT(MPI_T_pvar_session_free(&session), MPI_SUCCESS);
    CHECK_INT(MPI_T_finalize(), MPI_SUCCESS);
    CHECK_INT(MPI_T_pvar_get_num(&size), MPI_T_ERR_NOT_INITIALIZED);
    return mtest_finish();
}
