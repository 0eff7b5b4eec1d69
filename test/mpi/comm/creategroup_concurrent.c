/* Group constructors at the same time:
 * - without threads: the even and the odd processes each build a
 *   communicator of their own with MPI_Comm_create_group and the same tag
 *   at once, many times; then groups of the same members in different
 *   orders, one after the other, with the same tag;
 * - MPI_THREAD_MULTIPLE: several threads per process, each with its group
 *   order (world order, reversed, rotated), at once: MPI_Comm_create_group
 *   on distinct parents with the same tag, on one parent with distinct
 *   tags, and MPI_Comm_create_from_group with distinct string tags; their
 *   bootstrap contexts collide now and then (64 of them).
 * Every result must have the right members in the right order and be
 * isolated from the others (an allreduce and a ring exchange on each). */
#include <pthread.h>
#include <stdio.h>
#include "mtest.h"

enum { kThreads = 3, kRounds = 40 };
static MPI_Comm parents[kThreads];
static MPI_Group groups[kThreads];
static int rank, size;

/* Position of this process in thread t's group order. */
static int position(int t)
{
    if (t == 0)
        return rank;
    if (t == 1)
        return size - 1 - rank;
    return (rank + 1) % size;
}

static void check_comm(MPI_Comm c, int t, const char *what, int round)
{
    int r = -1, s = -1;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &s);
    CHECK(r == position(t) && s == size, "%s thread %d round %d: rank %d size %d, want %d %d", what,
          t, round, r, s, position(t), size);
    int v = 100 * t + r, sum = -1;
    CHECK_SUCCESS(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == 100 * t * size + size * (size - 1) / 2, "%s thread %d round %d: allreduce %d",
          what, t, round, sum);
    int next = (r + 1) % s, prev = (r + s - 1) % s, got = -1, mine = 1000 * t + r;
    CHECK_SUCCESS(MPI_Sendrecv(&mine, 1, MPI_INT, next, round, &got, 1, MPI_INT, prev, round, c,
                               MPI_STATUS_IGNORE));
    CHECK(got == 1000 * t + prev, "%s thread %d round %d: ring got %d want %d", what, t, round, got,
          1000 * t + prev);
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    for (int i = 0; i < kRounds; i++) {
        MPI_Comm c = MPI_COMM_NULL;
        /* Distinct parents, the same tag, groups in different orders. */
        CHECK_SUCCESS(MPI_Comm_create_group(parents[t], groups[t], i, &c));
        if (c != MPI_COMM_NULL) {
            check_comm(c, t, "create_group on its own parent", i);
            MPI_Comm_free(&c);
        }
        /* One parent, distinct tags. */
        CHECK_SUCCESS(MPI_Comm_create_group(MPI_COMM_WORLD, groups[t], kThreads * i + t, &c));
        if (c != MPI_COMM_NULL) {
            check_comm(c, t, "create_group on MPI_COMM_WORLD", i);
            MPI_Comm_free(&c);
        }
        char tag[64];
        snprintf(tag, sizeof tag, "org.stmpi.test.thread%d.round%d", t, i);
        CHECK_SUCCESS(
            MPI_Comm_create_from_group(groups[t], tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
        if (c != MPI_COMM_NULL) {
            check_comm(c, t, "create_from_group", i);
            MPI_Comm_free(&c);
        }
    }
    return NULL;
}

/* Evens and odds at once, same tag; then one group in several orders. */
static void without_threads(MPI_Group world_group)
{
    int half_size = (size - rank % 2 + 1) / 2, *members = malloc(sizeof(int) * size);
    for (int k = 0; k < half_size; k++)
        members[k] = rank % 2 + 2 * k;
    MPI_Group half;
    MPI_Group_incl(world_group, half_size, members, &half);
    for (int i = 0; i < kRounds; i++) {
        MPI_Comm c = MPI_COMM_NULL;
        CHECK_SUCCESS(MPI_Comm_create_group(MPI_COMM_WORLD, half, 5, &c));
        int r = -1, s = -1, sum = -1;
        MPI_Comm_rank(c, &r);
        MPI_Comm_size(c, &s);
        CHECK(r == rank / 2 && s == half_size, "disjoint create_group round %d: rank %d size %d", i,
              r, s);
        CHECK_SUCCESS(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
        int want = 0;
        for (int k = 0; k < half_size; k++)
            want += members[k];
        CHECK(sum == want, "disjoint create_group round %d: allreduce %d want %d", i, sum, want);
        MPI_Comm_free(&c);
    }
    MPI_Group_free(&half);
    free(members);
    for (int i = 0; i < kRounds; i++) {
        int t = i % kThreads;
        MPI_Comm c = MPI_COMM_NULL;
        CHECK_SUCCESS(MPI_Comm_create_group(MPI_COMM_WORLD, groups[t], 9, &c));
        check_comm(c, t, "create_group, orders in turn", i);
        MPI_Comm_free(&c);
    }
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Group world_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    int *order = malloc(sizeof(int) * size);
    for (int t = 0; t < kThreads; t++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]);
        for (int p = 0; p < size; p++) /* order[position] = world rank */
            order[t == 0 ? p : t == 1 ? size - 1 - p : (p + 1) % size] = p;
        MPI_Group_incl(world_group, size, order, &groups[t]);
    }
    free(order);
    without_threads(world_group);
    if (provided == MPI_THREAD_MULTIPLE) {
        pthread_t threads[kThreads];
        for (int i = 0; i < kThreads; i++) {
            int t = (i + rank) % kThreads;
            pthread_create(&threads[t], NULL, worker, (void *)(long)t);
        }
        for (int t = 0; t < kThreads; t++)
            pthread_join(threads[t], NULL);
    }
    for (int t = 0; t < kThreads; t++) {
        MPI_Comm_free(&parents[t]);
        MPI_Group_free(&groups[t]);
    }
    MPI_Group_free(&world_group);
    return mtest_finish();
}
