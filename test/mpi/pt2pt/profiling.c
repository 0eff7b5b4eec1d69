/* The profiling interface: this program defines its own MPI_Send and
 * MPI_Recv, which count calls and forward to PMPI_Send / PMPI_Recv. Calls
 * through the MPI_ names reach the wrappers, direct PMPI_ calls do not, and
 * the messages arrive intact. */
#include "mtest.h"

static int send_calls = 0, recv_calls = 0, last_send_dest = -1, last_send_count = -1;

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    send_calls++;
    last_send_dest = dest;
    last_send_count = count;
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    recv_calls++;
    return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
}

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    const int rounds = 7;
    int out[100], in[100];

    for (int r = 0; r < rounds; r++) {
        int n = 1 + r * 10;
        for (int i = 0; i < n; i++)
            out[i] = mtest_pattern(rank, r, i);
        if (rank % 2 == 0) {
            MPI_Send(out, n, MPI_INT, right, r, MPI_COMM_WORLD);
            MPI_Recv(in, n, MPI_INT, left, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, n, MPI_INT, left, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(out, n, MPI_INT, right, r, MPI_COMM_WORLD);
        }
        for (int i = 0; i < n; i++)
            if (in[i] != mtest_pattern(left, r, i)) {
                CHECK(0, "round %d element %d is %d", r, i, in[i]);
                break;
            }
        CHECK_INT(last_send_dest, right);
        CHECK_INT(last_send_count, n);
    }
    CHECK_INT(send_calls, rounds);
    CHECK_INT(recv_calls, rounds);

    /* PMPI_ calls bypass the wrappers */
    int v = rank, w = -1;
    if (rank % 2 == 0) {
        PMPI_Send(&v, 1, MPI_INT, right, 99, MPI_COMM_WORLD);
        PMPI_Recv(&w, 1, MPI_INT, left, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        PMPI_Recv(&w, 1, MPI_INT, left, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        PMPI_Send(&v, 1, MPI_INT, right, 99, MPI_COMM_WORLD);
    }
    CHECK_INT(w, left);
    CHECK_INT(send_calls, rounds);
    CHECK_INT(recv_calls, rounds);

    /* error returns pass through the wrapper unchanged */
    int rc = MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    CHECK_ERR_CLASS(rc, MPI_ERR_RANK);
    CHECK_INT(send_calls, rounds + 1);

    /* the total over all ranks */
    int total = 0;
    MPI_Allreduce(&send_calls, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_INT(total, size * (rounds + 1));
    return mtest_finish();
}
