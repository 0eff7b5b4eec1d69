/* MPI 4.1's MPI_Buffer_flush and MPI_Buffer_iflush, and MPI_Status_set_elements_c:
 * - with no buffer attached, both flushes complete at once;
 * - rank 0 buffers messages for rank 1, which receives them only after rank 0's
 *   MPI_Buffer_iflush has started and rank 0 has tested the request once: the flush completes
 *   once the messages are delivered, the values arrive, and the buffer then detaches at once;
 * - MPI_Status_set_elements_c takes a count above INT_MAX: MPI_Get_elements_c returns it,
 *   MPI_Get_count gives MPI_UNDEFINED; a negative count is MPI_ERR_COUNT. */
#include <stdlib.h>

#include "mtest.h"

enum { kMessages = 8, kInts = 2000 };

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank = 0, size = 1, flag = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Request req = MPI_REQUEST_NULL;
    CHECK_SUCCESS(MPI_Buffer_flush());
    CHECK_SUCCESS(MPI_Buffer_iflush(&req));
    CHECK_SUCCESS(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
    CHECK_INT(flag, 1);

    const int bytes = kMessages * (kInts * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *buffer = malloc(bytes);
    CHECK_SUCCESS(MPI_Buffer_attach(buffer, bytes));
    static int data[kMessages][kInts];
    if (rank == 0 && size > 1) {
        for (int m = 0; m < kMessages; m++) {
            for (int i = 0; i < kInts; i++)
                data[m][i] = m * 100000 + i;
            CHECK_SUCCESS(MPI_Bsend(data[m], kInts, MPI_INT, 1, m, MPI_COMM_WORLD));
        }
        CHECK_SUCCESS(MPI_Buffer_iflush(&req));
        CHECK_SUCCESS(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        CHECK_SUCCESS(MPI_Send(&flag, 1, MPI_INT, 1, 99, MPI_COMM_WORLD)); /* "go" */
        CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK(req == MPI_REQUEST_NULL, "flush request not freed");
        CHECK_SUCCESS(MPI_Buffer_flush());
    } else if (rank == 1) {
        int go = 0;
        CHECK_SUCCESS(MPI_Recv(&go, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int m = 0; m < kMessages; m++) {
            CHECK_SUCCESS(
                MPI_Recv(data[m], kInts, MPI_INT, 0, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int i = 0; i < kInts; i++)
                CHECK(data[m][i] == m * 100000 + i, "message %d element %d: %d", m, i, data[m][i]);
        }
    }
    void *detached = NULL;
    int detached_size = 0;
    CHECK_SUCCESS(MPI_Buffer_detach(&detached, &detached_size));
    CHECK(detached == buffer && detached_size == bytes, "detached %p %d", detached, detached_size);
    free(buffer);

    MPI_Status st;
    const MPI_Count big = (MPI_Count)3 << 30;
    MPI_Count got = 0;
    int count = 0;
    CHECK_SUCCESS(MPI_Status_set_elements_c(&st, MPI_BYTE, big));
    CHECK_SUCCESS(MPI_Get_elements_c(&st, MPI_BYTE, &got));
    CHECK(got == big, "elements %lld", (long long)got);
    CHECK_SUCCESS(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK_INT(count, MPI_UNDEFINED);
    CHECK_SUCCESS(MPI_Status_set_elements_c(&st, MPI_INT, 5));
    CHECK_SUCCESS(MPI_Get_count(&st, MPI_INT, &count));
    CHECK_INT(count, 5);
    CHECK_ERR_CLASS(MPI_Status_set_elements_c(&st, MPI_INT, -1), MPI_ERR_COUNT);

    return mtest_finish();
}
