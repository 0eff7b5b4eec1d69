/* MPI_Comm_split: colors partition the processes, keys order them (here in
 * reverse), MPI_UNDEFINED yields MPI_COMM_NULL, and traffic on the new
 * communicators reaches the right processes. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size;
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Two colors by parity; key = -rank reverses the order. */
    int color = rank % 2;
    MPI_Comm half = MPI_COMM_NULL;
    CHECK_SUCCESS(MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &half));
    CHECK(half != MPI_COMM_NULL, "split returned MPI_COMM_NULL");
    int members = 0;
    for (int r = 0; r < size; r++)
        if (r % 2 == color)
            members++;
    int hrank = -1, hsize = -1;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    CHECK_INT(hsize, members);
    /* My position among same-color ranks counted from the top. */
    int expected = 0;
    for (int r = rank + 1; r < size; r++)
        if (r % 2 == color)
            expected++;
    CHECK_INT(hrank, expected);

    /* Translate every rank of the new communicator back to MPI_COMM_WORLD. */
    MPI_Group wgroup, hgroup;
    MPI_Comm_group(MPI_COMM_WORLD, &wgroup);
    MPI_Comm_group(half, &hgroup);
    for (int i = 0; i < hsize; i++) {
        int w = -5;
        CHECK_SUCCESS(MPI_Group_translate_ranks(hgroup, 1, &i, wgroup, &w));
        /* rank i of `half` is the (hsize-1-i)-th same-color world rank */
        int want = color + 2 * (hsize - 1 - i);
        CHECK_INT(w, want);
    }
    MPI_Group_free(&hgroup);
    MPI_Group_free(&wgroup);

    /* A collective on the new communicator sums world ranks of its members. */
    int sum = 0, want_sum = 0;
    for (int r = color; r < size; r += 2)
        want_sum += r;
    CHECK_SUCCESS(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half));
    CHECK_INT(sum, want_sum);

    /* Point-to-point on the new communicator: ring among same-color ranks. */
    if (hsize > 1) {
        int right = (hrank + 1) % hsize, left = (hrank - 1 + hsize) % hsize, got = -1;
        CHECK_SUCCESS(MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, half,
                                   MPI_STATUS_IGNORE));
        int left_world = color + 2 * (hsize - 1 - left);
        CHECK_INT(got, left_world);
    }

    /* MPI_UNDEFINED: rank 0 stays out. */
    MPI_Comm some = MPI_COMM_NULL;
    CHECK_SUCCESS(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 5, rank, &some));
    if (rank == 0) {
        CHECK(some == MPI_COMM_NULL, "rank 0 got a communicator for MPI_UNDEFINED");
    } else {
        int s = -1, r = -1;
        MPI_Comm_size(some, &s);
        MPI_Comm_rank(some, &r);
        CHECK_INT(s, size - 1);
        CHECK_INT(r, rank - 1);
        CHECK_SUCCESS(MPI_Comm_free(&some));
        CHECK(some == MPI_COMM_NULL, "MPI_Comm_free did not reset the handle");
    }

    /* Equal keys keep the parent order; a split of a split. */
    MPI_Comm same;
    CHECK_SUCCESS(MPI_Comm_split(half, 0, 0, &same));
    int srank = -1;
    MPI_Comm_rank(same, &srank);
    CHECK_INT(srank, hrank);
    int result = -1;
    CHECK_SUCCESS(MPI_Comm_compare(same, half, &result));
    CHECK_INT(result, MPI_CONGRUENT);
    MPI_Comm_free(&same);

    /* Many splits and frees: context ids are recycled. */
    for (int i = 0; i < 300; i++) {
        MPI_Comm c;
        CHECK_SUCCESS(MPI_Comm_split(MPI_COMM_WORLD, (rank + i) % 3, rank, &c));
        int v = 1, n = 0;
        CHECK_SUCCESS(MPI_Allreduce(&v, &n, 1, MPI_INT, MPI_SUM, c));
        int csize = -1;
        MPI_Comm_size(c, &csize);
        CHECK_INT(n, csize);
        CHECK_SUCCESS(MPI_Comm_free(&c));
    }

    /* A negative color other than MPI_UNDEFINED is an error everywhere. */
    MPI_Comm bad = MPI_COMM_NULL;
    int rc = MPI_Comm_split(MPI_COMM_WORLD, -7, 0, &bad);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);

    MPI_Comm_free(&half);
    return mtest_finish();
}
