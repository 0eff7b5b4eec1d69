/* Stream-triggered RMA on a CUDA stream (the CUDA backend of src/stream):
 * each rank fills its origin data on the GPU (cuMemsetD32Async into device
 * memory), then on the same stream exposes its window to its neighbours
 * (MPIX_Win_post_stream), puts the data to the right and left neighbours'
 * windows, adds to a counter in the right neighbour's window
 * (MPI_Accumulate, from pinned host memory: accumulates run on the CPU),
 * closes the epochs (MPIX_Win_complete_stream, MPIX_Win_wait_stream) and
 * copies what arrived to a pinned result row (cuMemcpyAsync). ITERS epochs
 * are enqueued without any CPU wait; the stream is synchronized once and
 * every row is checked against what the neighbours must have sent in that
 * epoch. Then the launch statistics: a bounded number of launches per epoch.
 *
 * Without a CUDA driver or device the program says why and passes (the
 * CUDA backend's error paths without a device are st_errors' job).
 *
 * args: "bench STEPS BYTES" times the same exchange (fill, two puts, no
 * accumulate) four ways, each per step, the slowest rank's median over 5
 * runs: ST on the CUDA stream (one synchronize after STEPS), ordinary PSCW
 * with the fill on the CUDA stream and a synchronize before each epoch (the
 * way a GPU code uses MPI without ST), ST on a host stream and ordinary PSCW
 * with the fill on the CPU; then ST/PSCW for each kind of stream. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#include "cuda_driver.h" /* after mpi.h: CU_CHECK */

#define ITERS 200
#define M 1024 /* uint32 per face */
#define FROM_LEFT 0
#define FROM_RIGHT (M * sizeof(uint32_t))
#define COUNTER (2 * M * sizeof(uint32_t))
#define ROW_BYTES (COUNTER + sizeof(long))

static struct cuda_driver cu;

static uint32_t fill_value(int rank, int iter, int side)
{
    return (uint32_t)(rank * 100003 + iter * 2 + side + 1);
}
static long add_value(int rank, int iter) { return rank * 1000L + iter + 1; }

static void check_exchange(int rank, int left, int right, MPI_Group group)
{
    MPI_Win win;
    char *win_mem;
    CHECK_SUCCESS(MPI_Win_allocate(ROW_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win_mem, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    memset(win_mem, 0, ROW_BYTES);

    CUstream_t s;
    CUdptr origin;
    long *adds;
    char *rows;
    CU_CHECK(cu.stream_create(&s, 0));
    CU_CHECK(cu.mem_alloc(&origin, 2 * M * sizeof(uint32_t)));
    CU_CHECK(cu.mem_host_alloc((void **)&adds, ITERS * sizeof(long), 0x01 | 0x02));
    CU_CHECK(cu.mem_host_alloc((void **)&rows, (size_t)ITERS * ROW_BYTES, 0x01 | 0x02));
    for (int i = 0; i < ITERS; i++)
        adds[i] = add_value(rank, i);
    MPI_Barrier(MPI_COMM_WORLD);

    const uint32_t *to_right = (const uint32_t *)(uintptr_t)origin;
    const uint32_t *to_left = to_right + M;
    for (int i = 0; i < ITERS; i++) {
        CU_CHECK(cu.memset_d32_async(origin, fill_value(rank, i, 0), M, s));
        CU_CHECK(cu.memset_d32_async(origin + M * sizeof(uint32_t), fill_value(rank, i, 1), M, s));
        CHECK_SUCCESS(MPIX_Win_post_stream(group, win, s));
        CHECK_SUCCESS(MPI_Win_start(group, MPIX_MODE_STREAM, win));
        CHECK_SUCCESS(MPI_Put(to_right, M, MPI_UINT32_T, right, FROM_LEFT, M, MPI_UINT32_T, win));
        CHECK_SUCCESS(MPI_Put(to_left, M, MPI_UINT32_T, left, FROM_RIGHT, M, MPI_UINT32_T, win));
        CHECK_SUCCESS(
            MPI_Accumulate(&adds[i], 1, MPI_LONG, right, COUNTER, 1, MPI_LONG, MPI_SUM, win));
        CHECK_SUCCESS(MPIX_Win_complete_stream(win, s));
        CHECK_SUCCESS(MPIX_Win_wait_stream(win, s));
        CU_CHECK(cu.memcpy_async((CUdptr)(uintptr_t)(rows + (size_t)i * ROW_BYTES),
                                 (CUdptr)(uintptr_t)win_mem, ROW_BYTES, s));
    }
    CU_CHECK(cu.stream_synchronize(s));

    long counter = 0;
    int bad_rows = 0;
    for (int i = 0; i < ITERS; i++) {
        const char *row = rows + (size_t)i * ROW_BYTES;
        const uint32_t *from_left = (const uint32_t *)(row + FROM_LEFT);
        const uint32_t *from_right = (const uint32_t *)(row + FROM_RIGHT);
        counter += add_value(left, i);
        int bad = 0;
        for (int j = 0; j < M; j++)
            bad +=
                from_left[j] != fill_value(left, i, 0) || from_right[j] != fill_value(right, i, 1);
        long got;
        memcpy(&got, row + COUNTER, sizeof got);
        if ((bad || got != counter) && bad_rows++ < 5)
            CHECK(0,
                  "epoch %d: %d wrong elements (first from left %u, want %u; from right %u, want "
                  "%u), "
                  "counter %ld, want %ld",
                  i, bad, from_left[0], fill_value(left, i, 0), from_right[0],
                  fill_value(right, i, 1), got, counter);
    }
    CHECK(bad_rows == 0, "%d of %d epochs wrong", bad_rows, ITERS);

    long long epochs, signals, copies, waits;
    CHECK_SUCCESS(MPIX_Win_get_stream_stats(win, &epochs, &signals, &copies, &waits));
    CHECK(epochs >= ITERS, "stream epochs %lld, want at least %d", epochs, ITERS);
    /* Per iteration at most: post's signal, complete's wait + copy + host
     * function (the accumulate) + signal, wait's wait. */
    CHECK(signals + copies + waits <= 8LL * ITERS, "%lld launches for %d iterations",
          signals + copies + waits, ITERS);

    CHECK_SUCCESS(MPI_Win_free(&win));
    CU_CHECK(cu.mem_free_host(rows));
    CU_CHECK(cu.mem_free_host(adds));
    CU_CHECK(cu.mem_free(origin));
    CU_CHECK(cu.stream_destroy(s));
}

/* ---- bench ---------------------------------------------------------------- */

enum { ST_CUDA, PSCW_CUDA, ST_HOST, PSCW_HOST, NKINDS };
static const char *kind_name[NKINDS] = {"st(cuda)", "pscw(cuda)", "st(host)", "pscw(host)"};

struct fill_arg {
    uint32_t *dst;
    size_t count;
    uint32_t value;
};
static void fill_fn(void *arg)
{
    struct fill_arg *f = arg;
    for (size_t i = 0; i < f->count; i++)
        f->dst[i] = f->value;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One timed run of `steps` exchanges of `count` uint32 each way; returns the
 * slowest rank's time per step in microseconds. */
static double run_kind(int kind, long steps, size_t count, int left, int right, MPI_Group group,
                       MPI_Win win, uint32_t *pinned, CUdptr dev, CUstream_t s, MPIX_Host_stream hs,
                       struct fill_arg *args)
{
    const size_t bytes = count * sizeof(uint32_t);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (long i = 0; i < steps; i++) {
        const uint32_t v = (uint32_t)i + 1;
        switch (kind) {
        case ST_CUDA:
            CU_CHECK(cu.memset_d32_async(dev, v, 2 * count, s));
            CHECK_SUCCESS(MPIX_Win_post_stream(group, win, s));
            CHECK_SUCCESS(MPI_Win_start(group, MPIX_MODE_STREAM, win));
            CHECK_SUCCESS(MPI_Put((void *)(uintptr_t)dev, (int)count, MPI_UINT32_T, right, 0,
                                  (int)count, MPI_UINT32_T, win));
            CHECK_SUCCESS(MPI_Put((void *)(uintptr_t)(dev + bytes), (int)count, MPI_UINT32_T, left,
                                  (MPI_Aint)bytes, (int)count, MPI_UINT32_T, win));
            CHECK_SUCCESS(MPIX_Win_complete_stream(win, s));
            CHECK_SUCCESS(MPIX_Win_wait_stream(win, s));
            break;
        case ST_HOST:
            /* The fill of step i reads its own argument slot: the stream runs it later. */
            args[i % ITERS] = (struct fill_arg){pinned, 2 * count, v};
            CHECK_SUCCESS(MPIX_Host_stream_launch(hs, fill_fn, &args[i % ITERS]));
            CHECK_SUCCESS(MPIX_Win_post_stream(group, win, hs));
            CHECK_SUCCESS(MPI_Win_start(group, MPIX_MODE_STREAM, win));
            CHECK_SUCCESS(
                MPI_Put(pinned, (int)count, MPI_UINT32_T, right, 0, (int)count, MPI_UINT32_T, win));
            CHECK_SUCCESS(MPI_Put(pinned + count, (int)count, MPI_UINT32_T, left, (MPI_Aint)bytes,
                                  (int)count, MPI_UINT32_T, win));
            CHECK_SUCCESS(MPIX_Win_complete_stream(win, hs));
            CHECK_SUCCESS(MPIX_Win_wait_stream(win, hs));
            break;
        default: /* PSCW_CUDA, PSCW_HOST */
            if (kind == PSCW_CUDA) {
                CU_CHECK(cu.memset_d32_async((CUdptr)(uintptr_t)pinned, v, 2 * count, s));
                CU_CHECK(cu.stream_synchronize(s));
            } else {
                struct fill_arg f = {pinned, 2 * count, v};
                fill_fn(&f);
            }
            CHECK_SUCCESS(MPI_Win_post(group, 0, win));
            CHECK_SUCCESS(MPI_Win_start(group, 0, win));
            CHECK_SUCCESS(
                MPI_Put(pinned, (int)count, MPI_UINT32_T, right, 0, (int)count, MPI_UINT32_T, win));
            CHECK_SUCCESS(MPI_Put(pinned + count, (int)count, MPI_UINT32_T, left, (MPI_Aint)bytes,
                                  (int)count, MPI_UINT32_T, win));
            CHECK_SUCCESS(MPI_Win_complete(win));
            CHECK_SUCCESS(MPI_Win_wait(win));
            break;
        }
        /* The host stream's fill arguments are reused every ITERS steps. */
        if (kind == ST_HOST && i % ITERS == ITERS - 1)
            CHECK_SUCCESS(MPIX_Host_stream_synchronize(hs));
    }
    if (kind == ST_CUDA)
        CU_CHECK(cu.stream_synchronize(s));
    if (kind == ST_HOST)
        CHECK_SUCCESS(MPIX_Host_stream_synchronize(hs));
    double t = (MPI_Wtime() - t0) / (double)steps * 1e6, slowest;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

static void bench(long steps, long face_bytes, int rank, int size, int left, int right,
                  MPI_Group group)
{
    const size_t count = (size_t)(face_bytes < 4 ? 1 : face_bytes / 4);
    const size_t bytes = count * sizeof(uint32_t);
    /* A window per kind, so that no window mixes stream kinds or ST with ordinary epochs. */
    MPI_Win win[NKINDS];
    uint32_t *win_mem[NKINDS], *pinned;
    for (int k = 0; k < NKINDS; k++)
        CHECK_SUCCESS(MPI_Win_allocate((MPI_Aint)(2 * bytes), 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                                       &win_mem[k], &win[k]));
    CUstream_t s;
    CUdptr dev;
    MPIX_Host_stream hs;
    struct fill_arg *args = calloc(ITERS, sizeof *args);
    CU_CHECK(cu.stream_create(&s, 0));
    CU_CHECK(cu.mem_alloc(&dev, 2 * bytes));
    CU_CHECK(cu.mem_host_alloc((void **)&pinned, 2 * bytes, 0x01 | 0x02));
    CHECK_SUCCESS(MPIX_Host_stream_create(&hs));

    enum { RUNS = 5 };
    double t[NKINDS][RUNS], med[NKINDS];
    for (int k = 0; k < NKINDS; k++) /* warm-up: registration, first launches */
        (void)run_kind(k, steps / 10 + 1, count, left, right, group, win[k], pinned, dev, s, hs,
                       args);
    for (int r = 0; r < RUNS; r++)
        for (int k = 0; k < NKINDS; k++) {
            const int kind = (k + r) % NKINDS; /* rotate the order */
            t[kind][r] = run_kind(kind, steps, count, left, right, group, win[kind], pinned, dev, s,
                                  hs, args);
            /* The last step's data arrived whatever the kind. */
            const uint32_t *w = win_mem[kind];
            CHECK(w[0] == (uint32_t)steps && w[count] == (uint32_t)steps,
                  "%s: window holds %u/%u after %ld steps", kind_name[kind], w[0], w[count], steps);
        }
    for (int k = 0; k < NKINDS; k++) {
        qsort(t[k], RUNS, sizeof(double), cmp_double);
        med[k] = t[k][RUNS / 2];
    }
    if (rank == 0) {
        printf(
            "st_gpu bench: %d ranks, %ld bytes per put, %ld steps (%s); us per step, median of %d "
            "runs:\n",
            size, (long)bytes, steps, cu.name, RUNS);
        for (int k = 0; k < NKINDS; k++)
            printf("  %-10s %9.2f  (min %.2f, max %.2f)\n", kind_name[k], med[k], t[k][0],
                   t[k][RUNS - 1]);
        printf("  ST/PSCW cuda %.2f, host %.2f; st(cuda)/st(host) %.2f\n",
               med[ST_CUDA] / med[PSCW_CUDA], med[ST_HOST] / med[PSCW_HOST],
               med[ST_CUDA] / med[ST_HOST]);
        fflush(stdout);
    }
    CHECK_SUCCESS(MPIX_Host_stream_free(&hs));
    for (int k = 0; k < NKINDS; k++)
        CHECK_SUCCESS(MPI_Win_free(&win[k]));
    CU_CHECK(cu.mem_free_host(pinned));
    CU_CHECK(cu.mem_free(dev));
    CU_CHECK(cu.stream_destroy(s));
    free(args);
}

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (!cudrv_load_all(&cu, "st_gpu"))
        return mtest_finish();
    if (size < 2) {
        if (rank == 0)
            printf("st_gpu needs 2 or more ranks\n");
        return mtest_finish();
    }
    const int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int nbrs[2] = {left, right};
    MPI_Group world, group;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, left == right ? 1 : 2, nbrs, &group);
    if (rank == 0)
        printf("st_gpu: %d ranks on %s\n", size, cu.name);

    if (argc > 1 && strcmp(argv[1], "bench") == 0) {
        const long steps = argc > 2 ? atol(argv[2]) : 2000;
        const long bytes = argc > 3 ? atol(argv[3]) : 4096;
        bench(steps, bytes, rank, size, left, right, group);
    } else {
        check_exchange(rank, left, right, group);
    }
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    return mtest_finish();
}
