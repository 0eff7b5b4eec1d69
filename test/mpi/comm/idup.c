/* MPI_Comm_idup(_with_info) is nonblocking:
 * - overlap with point-to-point on the parent: half the processes start an
 *   idup and then MPI_Ssend to a partner that first receives and only then
 *   starts its idup (a blocking duplication deadlocks here; the testlist's
 *   time limit catches it);
 * - several idups in flight at once (of MPI_COMM_WORLD, of a split and of a
 *   dup freed right after the call), mixed with a blocking MPI_Comm_dup,
 *   completed in reverse order: every new communicator has a context of
 *   its own (messages sent on all of them, received in another order with
 *   MPI_ANY_TAG, each arrives on its own communicator; an allreduce on each);
 * - the request completes with MPI_Test alone;
 * - MPI_Comm_idup_with_info carries the hints; attributes are copied;
 * - error paths: invalid communicator, info and request pointer arguments. */
#include <string.h>
#include "mtest.h"

#define NDUP 6

static int rank, size;

/* Rank r and its partner r^1 (if any) exchange on `comm`: r sends `value`
 * with tag `tag`; checks what arrives. */
static void check_private(MPI_Comm *comms, int n, const char *what)
{
    int partner = rank ^ 1;
    if (partner >= size)
        return;
    /* Even ranks send on comms 0..n-1, odd ranks receive in reverse order
     * with MPI_ANY_TAG: a shared context would hand over the wrong value. */
    if (rank % 2 == 0) {
        for (int i = 0; i < n; i++) {
            int v = 1000 * rank + i;
            CHECK_SUCCESS(MPI_Send(&v, 1, MPI_INT, partner, i, comms[i]));
        }
    } else {
        for (int i = n - 1; i >= 0; i--) {
            int v = -1;
            MPI_Status st;
            CHECK_SUCCESS(MPI_Recv(&v, 1, MPI_INT, partner, MPI_ANY_TAG, comms[i], &st));
            CHECK(v == 1000 * partner + i && st.MPI_TAG == i,
                  "%s: communicator %d received value %d tag %d (want %d tag %d)", what, i, v,
                  st.MPI_TAG, 1000 * partner + i, i);
        }
    }
}

static void check_allreduce(MPI_Comm comm, const char *what)
{
    int s = 0, r = 0, sum = -1;
    MPI_Comm_size(comm, &s);
    MPI_Comm_rank(comm, &r);
    CHECK_SUCCESS(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == s * (s - 1) / 2, "%s: allreduce gave %d, want %d", what, sum, s * (s - 1) / 2);
}

static void test_overlap_with_pt2pt(void)
{
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Request req;
    int partner = rank ^ 1, v = rank;
    if (partner >= size) { /* odd size: the last process just duplicates */
        CHECK_SUCCESS(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req));
        CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else if (rank % 2 == 0) {
        CHECK_SUCCESS(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req));
        /* Completes only once the partner, not yet in its idup, receives. */
        CHECK_SUCCESS(MPI_Ssend(&v, 1, MPI_INT, partner, 7, MPI_COMM_WORLD));
        CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
        int got = -1;
        CHECK_SUCCESS(MPI_Recv(&got, 1, MPI_INT, partner, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_INT(got, partner);
        CHECK_SUCCESS(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req));
        /* Completion by MPI_Test alone. */
        int flag = 0;
        double t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < 60)
            CHECK_SUCCESS(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        CHECK(flag, "MPI_Comm_idup did not complete under MPI_Test within 60 s");
        if (!flag)
            MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    int result = -1;
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &result);
    CHECK_INT(result, MPI_CONGRUENT);
    check_allreduce(dup, "idup overlapping Ssend");
    MPI_Comm_free(&dup);
}

static void test_many_in_flight(void)
{
    MPI_Comm half, parent, comms[NDUP + 2];
    MPI_Request reqs[NDUP + 1];
    CHECK_SUCCESS(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    CHECK_SUCCESS(MPI_Comm_dup(MPI_COMM_WORLD, &parent));
    int n = 0;
    for (int i = 0; i < NDUP / 2; i++, n++)
        CHECK_SUCCESS(MPI_Comm_idup(MPI_COMM_WORLD, &comms[n], &reqs[n]));
    CHECK_SUCCESS(MPI_Comm_idup(half, &comms[n], &reqs[n]));
    n++;
    CHECK_SUCCESS(MPI_Comm_idup(parent, &comms[n], &reqs[n]));
    n++;
    /* The parent may go before the request completes. */
    CHECK_SUCCESS(MPI_Comm_free(&parent));
    /* A blocking construction while idups are in flight on the same parent. */
    MPI_Comm blocking;
    CHECK_SUCCESS(MPI_Comm_dup(MPI_COMM_WORLD, &blocking));
    while (n < NDUP + 1) {
        CHECK_SUCCESS(MPI_Comm_idup(MPI_COMM_WORLD, &comms[n], &reqs[n]));
        n++;
    }
    for (int i = n - 1; i >= 0; i--)
        CHECK_SUCCESS(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
    comms[n] = blocking;
    /* World-sized communicators only for the pairwise check (half is not). */
    MPI_Comm world_sized[NDUP + 2];
    int w = 0;
    for (int i = 0; i <= n; i++) {
        int s = 0;
        MPI_Comm_size(comms[i], &s);
        if (s == size)
            world_sized[w++] = comms[i];
        check_allreduce(comms[i], "idup in flight with others");
    }
    CHECK_INT(w, size == 1 ? n + 1 : n); /* all but half (unless size 1) */
    check_private(world_sized, w, "idups in flight");
    for (int i = 0; i <= n; i++)
        MPI_Comm_free(&comms[i]);
    MPI_Comm_free(&half);
}

static int copies;
static int copy_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c;
    (void)k;
    (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void test_info_attributes(void)
{
    MPI_Info info, got;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_allow_overtaking", "true");
    int key;
    static int attr_value = 42;
    CHECK_SUCCESS(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    MPI_Comm base, dup;
    CHECK_SUCCESS(MPI_Comm_dup(MPI_COMM_WORLD, &base));
    CHECK_SUCCESS(MPI_Comm_set_attr(base, key, &attr_value));
    MPI_Request req;
    CHECK_SUCCESS(MPI_Comm_idup_with_info(base, info, &dup, &req));
    MPI_Info_free(&info); /* the call keeps what it needs */
    CHECK_SUCCESS(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_SUCCESS(MPI_Comm_get_info(dup, &got));
    char value[32] = "";
    int flag = 0;
    MPI_Info_get(got, "mpi_assert_allow_overtaking", 31, value, &flag);
    CHECK(flag && strcmp(value, "true") == 0, "idup_with_info lost the hint (flag %d)", flag);
    MPI_Info_free(&got);
    int *v = NULL;
    flag = 0;
    MPI_Comm_get_attr(dup, key, &v, &flag);
    CHECK(flag && v == &attr_value && copies == 1, "idup: attribute not copied (flag %d copies %d)",
          flag, copies);
    check_allreduce(dup, "idup_with_info");
    MPI_Comm_free(&dup);
    MPI_Comm_free(&base);
    MPI_Comm_free_keyval(&key);
}

static void test_errors(void)
{
    MPI_Comm dup;
    MPI_Request req;
    CHECK_ERR_CLASS(MPI_Comm_idup(MPI_COMM_NULL, &dup, &req), MPI_ERR_COMM);
    CHECK_ERR_CLASS(MPI_Comm_idup(MPI_COMM_WORLD, &dup, NULL), MPI_ERR_ARG);
    CHECK_ERR_CLASS(MPI_Comm_idup_with_info(MPI_COMM_WORLD, (MPI_Info)0x1c000077, &dup, &req),
                    MPI_ERR_INFO);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int rep = 0; rep < 3; rep++)
        test_overlap_with_pt2pt();
    test_many_in_flight();
    test_info_attributes();
    test_errors();
    return mtest_finish();
}
