/* Helper for mpich_abi.sh (not run on its own): built with MPICH's compiler
 * wrapper against MPICH's mpi.h, run against STMPI's library. Exercises
 * sends, receives, status fields, Get_count, Allreduce, predefined handles,
 * and prints "No Errors" on rank 0 when everything matched. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int errs = 0;
#define EXPECT(cond, ...)                                                  \
    do {                                                                   \
        if (!(cond)) {                                                     \
            errs++;                                                        \
            fprintf(stderr, "%s:%d: rank %d: ", __FILE__, __LINE__, rank); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, "\n");                                         \
        }                                                                  \
    } while (0)

int main(int argc, char **argv)
{
    int rank = -1, size = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    if (rank == 0)
        printf("library: %.60s\n", lib);

    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    /* ring of doubles, then a large ring of ints */
    double d[16], dr[16];
    for (int i = 0; i < 16; i++)
        d[i] = rank * 100.0 + i + 0.5;
    MPI_Status st;
    int rc =
        MPI_Sendrecv(d, 16, MPI_DOUBLE, right, 3, dr, 16, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &st);
    EXPECT(rc == MPI_SUCCESS, "Sendrecv returned %d", rc);
    int c = -1;
    MPI_Get_count(&st, MPI_DOUBLE, &c);
    EXPECT(st.MPI_SOURCE == left && st.MPI_TAG == 3 && c == 16, "status source %d tag %d count %d",
           st.MPI_SOURCE, st.MPI_TAG, c);
    for (int i = 0; i < 16; i++)
        EXPECT(dr[i] == left * 100.0 + i + 0.5, "double %d is %g", i, dr[i]);

    enum { N = 30000 };
    static int big[N], bigr[N];
    for (int i = 0; i < N; i++)
        big[i] = rank * 1000003 + i;
    MPI_Request req[2];
    MPI_Irecv(bigr, N, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(big, N, MPI_INT, right, 4, MPI_COMM_WORLD, &req[1]);
    MPI_Status sts[2];
    rc = MPI_Waitall(2, req, sts);
    EXPECT(rc == MPI_SUCCESS, "Waitall returned %d", rc);
    MPI_Get_count(&sts[0], MPI_INT, &c);
    EXPECT(sts[0].MPI_SOURCE == left && sts[0].MPI_TAG == 4 && c == N,
           "big: source %d tag %d count %d", sts[0].MPI_SOURCE, sts[0].MPI_TAG, c);
    for (int i = 0; i < N; i++)
        if (bigr[i] != left * 1000003 + i) {
            EXPECT(0, "big element %d is %d", i, bigr[i]);
            break;
        }

    /* collectives with predefined ops and types */
    long lsum = 0, lmine = rank + 1;
    MPI_Allreduce(&lmine, &lsum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    EXPECT(lsum == (long)size * (size + 1) / 2, "Allreduce sum %ld", lsum);
    double dmax = 0, dmine = rank * 1.5;
    MPI_Allreduce(&dmine, &dmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    EXPECT(dmax == (size - 1) * 1.5, "Allreduce max %g", dmax);
    struct {
        double v;
        int r;
    } in = {(rank * 7) % size + 0.25, rank}, out = {0, -1};
    MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    int best = -1, best_rank = -1;
    for (int r = 0; r < size; r++)
        if ((r * 7) % size > best) {
            best = (r * 7) % size;
            best_rank = r;
        }
    EXPECT(out.v == best + 0.25 && out.r == best_rank, "MAXLOC (%g, %d), expected (%g, %d)", out.v,
           out.r, best + 0.25, best_rank);

    /* an error class through the ABI */
    rc = MPI_Send(d, 1, MPI_DOUBLE, size, 0, MPI_COMM_WORLD);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    EXPECT(cls == MPI_ERR_RANK, "bad rank gave class %d", cls);

    /* MPI_PROC_NULL and MPI_ANY_SOURCE keep their meaning */
    dr[0] = -1.0;
    rc = MPI_Recv(dr, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &c);
    EXPECT(rc == MPI_SUCCESS && c == 0 && dr[0] == -1.0, "PROC_NULL recv: rc %d count %d", rc, c);
    rc = MPI_Send(d, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    EXPECT(rc == MPI_SUCCESS, "PROC_NULL send: rc %d", rc);

    int total = 0;
    MPI_Reduce(&errs, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
    }
    MPI_Finalize();
    return total != 0;
}
