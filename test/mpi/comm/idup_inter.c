/* MPI_Comm_idup(_with_info) of an intercommunicator is nonblocking:
 * - overlap with point-to-point on the parent: the low group starts an idup
 *   and then MPI_Ssends to the high group, which first receives and only
 *   then starts its idup (a blocking duplication deadlocks here; the
 *   testlist's time limit catches it);
 * - two idups in flight at once, completed in reverse order with MPI_Test
 *   alone: each duplicate is an intercommunicator over the same groups with
 *   contexts of its own (messages on the parent and on both duplicates,
 *   received in another order with MPI_ANY_TAG, each arrive on their own
 *   communicator), its collectives work (an intercommunicator allreduce,
 *   and MPI_Intercomm_merge, which runs on its local communicator);
 * - MPI_Comm_idup_with_info carries the hints;
 * - error path: a null request pointer.
 * Groups: even world ranks (low) and odd world ranks (high). */
#include <string.h>
#include "mtest.h"

static int wrank, wsize, low;
static MPI_Comm local, inter;

static void make_intercomm(void)
{
    low = wrank % 2 == 0;
    CHECK_SUCCESS(MPI_Comm_split(MPI_COMM_WORLD, low ? 0 : 1, wrank, &local));
    /* local leader: local rank 0; remote leader: world rank 1 or 0 */
    CHECK_SUCCESS(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? 1 : 0, 7, &inter));
}

/* Checks that `dup` is an intercommunicator like `inter` and that its
 * traffic stays apart from the parent's. */
static void check_dup(MPI_Comm dup, const char *what)
{
    int flag = 0, rsize = -1, want_rsize = -1, r = -1, want_r = -1;
    CHECK_SUCCESS(MPI_Comm_test_inter(dup, &flag));
    CHECK(flag, "%s: not an intercommunicator", what);
    CHECK_SUCCESS(MPI_Comm_remote_size(dup, &rsize));
    CHECK_SUCCESS(MPI_Comm_remote_size(inter, &want_rsize));
    CHECK(rsize == want_rsize, "%s: remote size %d, want %d", what, rsize, want_rsize);
    CHECK_SUCCESS(MPI_Comm_rank(dup, &r));
    CHECK_SUCCESS(MPI_Comm_rank(inter, &want_r));
    CHECK(r == want_r, "%s: rank %d, want %d", what, r, want_r);

    /* Local rank i of the low group talks to local rank i of the high group. */
    if (r < rsize) {
        if (low) {
            int a = 100 + r, b = 200 + r;
            CHECK_SUCCESS(MPI_Send(&a, 1, MPI_INT, r, 1, inter));
            CHECK_SUCCESS(MPI_Send(&b, 1, MPI_INT, r, 2, dup));
        } else {
            int v = -1;
            MPI_Status st;
            CHECK_SUCCESS(MPI_Recv(&v, 1, MPI_INT, r, MPI_ANY_TAG, dup, &st));
            CHECK(v == 200 + r && st.MPI_TAG == 2,
                  "%s: got %d tag %d on the duplicate, want %d tag 2", what, v, st.MPI_TAG,
                  200 + r);
            CHECK_SUCCESS(MPI_Recv(&v, 1, MPI_INT, r, MPI_ANY_TAG, inter, &st));
            CHECK(v == 100 + r && st.MPI_TAG == 1, "%s: got %d tag %d on the parent, want %d tag 1",
                  what, v, st.MPI_TAG, 100 + r);
        }
    }

    /* Intercommunicator allreduce: each side gets the sum of the other
     * side's world ranks. */
    int sum = -1, want = 0;
    for (int w = 0; w < wsize; w++)
        if ((w % 2 == 0) != low)
            want += w;
    CHECK_SUCCESS(MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, dup));
    CHECK(sum == want, "%s: allreduce gave %d, want %d", what, sum, want);

    /* Merge (runs on the duplicate's local communicator): low group first. */
    MPI_Comm merged;
    int mrank = -1, msize = -1, lrank = -1, lsize = -1;
    CHECK_SUCCESS(MPI_Intercomm_merge(dup, low ? 0 : 1, &merged));
    CHECK_SUCCESS(MPI_Comm_rank(merged, &mrank));
    CHECK_SUCCESS(MPI_Comm_size(merged, &msize));
    MPI_Comm_rank(local, &lrank);
    MPI_Comm_size(local, &lsize);
    CHECK(msize == wsize, "%s: merged size %d, want %d", what, msize, wsize);
    int want_mrank = low ? lrank : (wsize + 1) / 2 + lrank;
    CHECK(mrank == want_mrank, "%s: merged rank %d, want %d", what, mrank, want_mrank);
    int total = -1;
    CHECK_SUCCESS(MPI_Allreduce(&wrank, &total, 1, MPI_INT, MPI_SUM, merged));
    CHECK(total == wsize * (wsize - 1) / 2, "%s: merged allreduce %d", what, total);
    CHECK_SUCCESS(MPI_Comm_free(&merged));
}

static void test_overlap(void)
{
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Request req;
    int r = -1, rsize = -1, v = wrank;
    MPI_Comm_rank(inter, &r);
    MPI_Comm_remote_size(inter, &rsize);
    if (low) {
        CHECK_SUCCESS(MPI_Comm_idup(inter, &dup, &req));
        if (r < rsize)
            CHECK_SUCCESS(MPI_Ssend(&v, 1, MPI_INT, r, 5, inter));
    } else {
        int got = -1;
        if (r < rsize) {
            CHECK_SUCCESS(MPI_Recv(&got, 1, MPI_INT, r, 5, inter, MPI_STATUS_IGNORE));
            CHECK(got == wrank - 1, "overlap: received %d, want %d", got, wrank - 1);
        }
        CHECK_SUCCESS(MPI_Comm_idup(inter, &dup, &req));
    }
    CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(req == MPI_REQUEST_NULL, "overlap: request not freed");
    check_dup(dup, "overlap");
    CHECK_SUCCESS(MPI_Comm_free(&dup));
}

static void test_two_in_flight(void)
{
    MPI_Comm dups[2];
    MPI_Request reqs[2];
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "false");
    CHECK_SUCCESS(MPI_Comm_idup(inter, &dups[0], &reqs[0]));
    CHECK_SUCCESS(MPI_Comm_idup_with_info(inter, info, &dups[1], &reqs[1]));
    MPI_Info_free(&info);
    for (int i = 1; i >= 0; i--) {
        int done = 0;
        while (!done)
            CHECK_SUCCESS(MPI_Test(&reqs[i], &done, MPI_STATUS_IGNORE));
    }
    check_dup(dups[0], "first of two");
    check_dup(dups[1], "second of two");
    /* the two duplicates have contexts of their own, too */
    int r = -1, rsize = -1;
    MPI_Comm_rank(inter, &r);
    MPI_Comm_remote_size(inter, &rsize);
    if (r < rsize) {
        if (low) {
            int a = 1, b = 2;
            CHECK_SUCCESS(MPI_Send(&a, 1, MPI_INT, r, 0, dups[0]));
            CHECK_SUCCESS(MPI_Send(&b, 1, MPI_INT, r, 0, dups[1]));
        } else {
            int a = -1, b = -1;
            CHECK_SUCCESS(MPI_Recv(&b, 1, MPI_INT, r, 0, dups[1], MPI_STATUS_IGNORE));
            CHECK_SUCCESS(MPI_Recv(&a, 1, MPI_INT, r, 0, dups[0], MPI_STATUS_IGNORE));
            CHECK(a == 1 && b == 2, "two in flight: got %d and %d, want 1 and 2", a, b);
        }
    }
    MPI_Info got;
    char value[64] = "";
    int flag = 0;
    CHECK_SUCCESS(MPI_Comm_get_info(dups[1], &got));
    MPI_Info_get(got, "mpi_assert_no_any_tag", sizeof value - 1, value, &flag);
    CHECK(flag && strcmp(value, "false") == 0, "idup_with_info: hint missing (flag %d, '%s')", flag,
          value);
    MPI_Info_free(&got);
    CHECK_SUCCESS(MPI_Comm_free(&dups[0]));
    CHECK_SUCCESS(MPI_Comm_free(&dups[1]));
}

static void test_errors(void)
{
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    CHECK_ERR_CLASS(MPI_Comm_idup(inter, &dup, NULL), MPI_ERR_ARG);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2) {
        CHECK(0, "needs at least 2 processes");
    } else {
        make_intercomm();
        test_overlap();
        test_two_in_flight();
        test_errors();
        MPI_Comm_free(&inter);
        MPI_Comm_free(&local);
    }
    mtest_finish();
    return 0;
}
