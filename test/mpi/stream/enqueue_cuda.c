/* MPICH's enqueue API on a CUDA stream with buffers in device memory (the
 * way MPICH's own cuda/stream.cu test uses it): STMPI moves the data through
 * host staging buffers that the stream itself copies to and from, so every
 * copy happens in stream order.
 *
 *   ring       1000 steps, each: cuMemsetD32Async fills the device send
 *              buffer with the step's value, MPIX_Irecv_enqueue into a device
 *              buffer from the left, MPIX_Isend_enqueue to the right,
 *              MPIX_Waitall_enqueue, cuMemcpyAsync of what arrived into row
 *              `step` of a pinned table; one synchronize at the end, then
 *              every row is checked (a copy out of order would show an
 *              earlier or later step's value)
 *   blocking   MPIX_Send_enqueue / MPIX_Recv_enqueue between ranks 0 and 1,
 *              device buffers, with the status (source, tag, count)
 *   gaps       a receive into device memory with a vector type: the gaps
 *              keep the values they had
 *   host       a send from pageable host memory on the same CUDA stream
 *   colls      MPIX_Allreduce_enqueue (plain and MPI_IN_PLACE),
 *              MPIX_Bcast_enqueue and MPIX_Allgather_enqueue on device buffers
 *
 * Without a CUDA driver or device the program says why and passes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#include "cuda_driver.h" /* after mpi.h: CU_CHECK */

/* GCC 12 misreads MPI_STATUSES_IGNORE (a null pointer) as a zero-length array. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#define STEPS 1000 /* argv[1] sets another number */
#define N 1024     /* ints per message */

static struct cuda_driver cu;

static unsigned value(int rank, int step) { return (unsigned)(rank * 100003 + step * 7 + 1); }

static void *dptr(CUdptr p) { return (void *)(uintptr_t)p; }

static void check_ring(MPI_Comm comm, CUstream_t stream, int rank, int size, int steps)
{
    const int left = (rank + size - 1) % size, right = (rank + 1) % size;
    const size_t bytes = N * sizeof(unsigned);
    CUdptr dsend, drecv;
    unsigned *table;
    CU_CHECK(cu.mem_alloc(&dsend, bytes));
    CU_CHECK(cu.mem_alloc(&drecv, bytes));
    CU_CHECK(cu.mem_host_alloc((void **)&table, bytes * steps, 0));
    memset(table, 0, bytes * steps);
    for (int step = 0; step < steps; step++) {
        MPI_Request reqs[2];
        CU_CHECK(cu.memset_d32_async(dsend, value(rank, step), N, stream));
        CHECK_SUCCESS(
            MPIX_Irecv_enqueue(dptr(drecv), N, MPI_UNSIGNED, left, step % 7, comm, &reqs[0]));
        CHECK_SUCCESS(
            MPIX_Isend_enqueue(dptr(dsend), N, MPI_UNSIGNED, right, step % 7, comm, &reqs[1]));
        CHECK_SUCCESS(MPIX_Waitall_enqueue(2, reqs, MPI_STATUSES_IGNORE));
        CU_CHECK(
            cu.memcpy_async((CUdptr)(uintptr_t)(table + (size_t)step * N), drecv, bytes, stream));
    }
    CU_CHECK(cu.stream_synchronize(stream));
    int bad = 0;
    for (int step = 0; step < steps && bad < 5; step++)
        for (int i = 0; i < N; i++)
            if (table[(size_t)step * N + i] != value(left, step)) {
                CHECK(0, "ring step %d word %d: got %u, expected %u", step, i,
                      table[(size_t)step * N + i], value(left, step));
                bad++;
                break;
            }
    CU_CHECK(cu.mem_free_host(table));
    CU_CHECK(cu.mem_free(dsend));
    CU_CHECK(cu.mem_free(drecv));
}

static void check_blocking_and_gaps(MPI_Comm comm, CUstream_t stream, int rank)
{
    const size_t bytes = N * sizeof(unsigned);
    CUdptr dbuf;
    unsigned *host;
    CU_CHECK(cu.mem_alloc(&dbuf, bytes));
    CU_CHECK(cu.mem_host_alloc((void **)&host, bytes, 0));
    MPI_Datatype every_other;
    MPI_Type_vector(N / 2, 1, 2, MPI_UNSIGNED, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Status status;
    if (rank == 0) {
        CU_CHECK(cu.memset_d32_async(dbuf, 77, N, stream));
        CHECK_SUCCESS(MPIX_Send_enqueue(dptr(dbuf), N, MPI_UNSIGNED, 1, 5, comm));
        /* Half a buffer for rank 1's vector receive. */
        CU_CHECK(cu.memset_d32_async(dbuf, 99, N, stream));
        CHECK_SUCCESS(MPIX_Send_enqueue(dptr(dbuf), N / 2, MPI_UNSIGNED, 1, 6, comm));
        /* From pageable host memory on the same CUDA stream. */
        unsigned *plain = malloc(bytes);
        for (int i = 0; i < N; i++)
            plain[i] = 1000u + (unsigned)i;
        CHECK_SUCCESS(MPIX_Send_enqueue(plain, N, MPI_UNSIGNED, 1, 7, comm));
        CU_CHECK(cu.stream_synchronize(stream));
        free(plain);
    } else if (rank == 1) {
        CU_CHECK(cu.memset_d32_async(dbuf, 0, N, stream));
        CHECK_SUCCESS(
            MPIX_Recv_enqueue(dptr(dbuf), N, MPI_UNSIGNED, MPI_ANY_SOURCE, 5, comm, &status));
        CU_CHECK(cu.memcpy_async((CUdptr)(uintptr_t)host, dbuf, bytes, stream));
        CU_CHECK(cu.stream_synchronize(stream));
        int count = -1;
        MPI_Get_count(&status, MPI_UNSIGNED, &count);
        CHECK_INT(status.MPI_SOURCE, 0);
        CHECK_INT(status.MPI_TAG, 5);
        CHECK_INT(count, N);
        for (int i = 0; i < N; i++)
            if (host[i] != 77) {
                CHECK(0, "blocking word %d: got %u", i, host[i]);
                break;
            }
        /* The gaps keep 55. */
        CU_CHECK(cu.memset_d32_async(dbuf, 55, N, stream));
        CHECK_SUCCESS(MPIX_Recv_enqueue(dptr(dbuf), 1, every_other, 0, 6, comm, MPI_STATUS_IGNORE));
        CU_CHECK(cu.memcpy_async((CUdptr)(uintptr_t)host, dbuf, bytes, stream));
        CU_CHECK(cu.stream_synchronize(stream));
        for (int i = 0; i < N; i++)
            if (host[i] != (i % 2 == 0 ? 99u : 55u)) {
                CHECK(0, "vector word %d: got %u, expected %u", i, host[i], i % 2 == 0 ? 99u : 55u);
                break;
            }
        CHECK_SUCCESS(
            MPIX_Recv_enqueue(dptr(dbuf), N, MPI_UNSIGNED, 0, 7, comm, MPI_STATUS_IGNORE));
        CU_CHECK(cu.memcpy_async((CUdptr)(uintptr_t)host, dbuf, bytes, stream));
        CU_CHECK(cu.stream_synchronize(stream));
        for (int i = 0; i < N; i++)
            if (host[i] != 1000u + (unsigned)i) {
                CHECK(0, "host-buffer word %d: got %u", i, host[i]);
                break;
            }
    }
    MPI_Type_free(&every_other);
    CU_CHECK(cu.mem_free_host(host));
    CU_CHECK(cu.mem_free(dbuf));
}

static void check_collectives(MPI_Comm comm, CUstream_t stream, int rank, int size)
{
    const int rounds = 50;
    const size_t bytes = N * sizeof(unsigned);
    CUdptr din, dout, dall;
    unsigned *host;
    CU_CHECK(cu.mem_alloc(&din, bytes));
    CU_CHECK(cu.mem_alloc(&dout, bytes));
    CU_CHECK(cu.mem_alloc(&dall, (size_t)size * sizeof(unsigned)));
    CU_CHECK(cu.mem_host_alloc((void **)&host, (size_t)rounds * 4 * bytes, 0));
    unsigned *row = host;
    for (int r = 0; r < rounds; r++, row += 4 * N) {
        CU_CHECK(cu.memset_d32_async(din, value(rank, r), N, stream));
        CHECK_SUCCESS(
            MPIX_Allreduce_enqueue(dptr(din), dptr(dout), N, MPI_UNSIGNED, MPI_SUM, comm));
        CU_CHECK(cu.memcpy_async((CUdptr)(uintptr_t)row, dout, bytes, stream));
        CHECK_SUCCESS(
            MPIX_Allreduce_enqueue(MPI_IN_PLACE, dptr(din), N, MPI_UNSIGNED, MPI_MAX, comm));
        CU_CHECK(cu.memcpy_async((CUdptr)(uintptr_t)(row + N), din, bytes, stream));
        CU_CHECK(cu.memset_d32_async(dout, rank == r % size ? value(rank, r) + 5 : 0, N, stream));
        CHECK_SUCCESS(MPIX_Bcast_enqueue(dptr(dout), N, MPI_UNSIGNED, r % size, comm));
        CU_CHECK(cu.memcpy_async((CUdptr)(uintptr_t)(row + 2 * N), dout, bytes, stream));
        CU_CHECK(cu.memset_d32_async(din, value(rank, r), 1, stream));
        CHECK_SUCCESS(
            MPIX_Allgather_enqueue(dptr(din), 1, MPI_UNSIGNED, dptr(dall), 1, MPI_UNSIGNED, comm));
        CU_CHECK(cu.memcpy_async((CUdptr)(uintptr_t)(row + 3 * N), dall,
                                 (size_t)size * sizeof(unsigned), stream));
    }
    CU_CHECK(cu.stream_synchronize(stream));
    row = host;
    for (int r = 0; r < rounds; r++, row += 4 * N) {
        unsigned sum = 0, max = 0;
        for (int p = 0; p < size; p++) {
            sum += value(p, r);
            max = value(p, r) > max ? value(p, r) : max;
        }
        CHECK(row[0] == sum && row[N - 1] == sum, "allreduce round %d: got %u, expected %u", r,
              row[0], sum);
        CHECK(row[N] == max && row[2 * N - 1] == max, "in-place allreduce round %d: got %u", r,
              row[N]);
        CHECK(row[2 * N] == value(r % size, r) + 5 && row[3 * N - 1] == value(r % size, r) + 5,
              "bcast round %d: got %u", r, row[2 * N]);
        for (int p = 0; p < size; p++)
            CHECK(row[3 * N + p] == value(p, r), "allgather round %d from %d: got %u", r, p,
                  row[3 * N + p]);
    }
    CU_CHECK(cu.mem_free_host(host));
    CU_CHECK(cu.mem_free(din));
    CU_CHECK(cu.mem_free(dout));
    CU_CHECK(cu.mem_free(dall));
}

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (!cudrv_load_all(&cu, "enqueue_cuda"))
        return mtest_finish();
    if (size < 2) {
        if (rank == 0)
            printf("enqueue_cuda skipped: needs 2 or more ranks\n");
        return mtest_finish();
    }
    CUstream_t stream;
    CU_CHECK(cu.stream_create(&stream, 0));
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "type", "cudaStream_t");
    CHECK_SUCCESS(MPIX_Info_set_hex(info, "value", &stream, sizeof stream));
    MPIX_Stream mstream;
    CHECK_SUCCESS(MPIX_Stream_create(info, &mstream));
    MPI_Info_free(&info);
    MPI_Comm comm;
    CHECK_SUCCESS(MPIX_Stream_comm_create(MPI_COMM_WORLD, mstream, &comm));
    const int steps = argc > 1 ? atoi(argv[1]) : STEPS;
    if (rank == 0) {
        printf("enqueue_cuda: %d ranks on %s, %d steps\n", size, cu.name, steps);
        fflush(stdout);
    }
    check_ring(comm, stream, rank, size, steps);
    check_blocking_and_gaps(comm, stream, rank);
    check_collectives(comm, stream, rank, size);

    MPI_Comm_free(&comm);
    CHECK_SUCCESS(MPIX_Stream_free(&mstream));
    CU_CHECK(cu.stream_destroy(stream));
    return mtest_finish();
}
