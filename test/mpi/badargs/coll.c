/* Bad arguments to collectives and their _c forms: NULL buffers with data to
 * move, MPI_IN_PLACE where the standard does not allow it (or allows it only
 * at the root), counts, roots, datatypes, operations, communicators. Every
 * case fails on every process, so none waits for the others. Then the legal
 * edge cases: MPI_IN_PLACE where allowed, NULL or garbage where an argument
 * is not significant, NULL with count 0, MPI_BOTTOM with absolute addresses. */
#include "badargs.h"

/* The int form and the _c form of one call. */
#define EXPECT2(cls, text, fn, ...)             \
    do {                                        \
        EXPECT(cls, text, fn(__VA_ARGS__));     \
        EXPECT(cls, text, fn##_c(__VA_ARGS__)); \
    } while (0)
#define EXPECT2_OK(fn, ...) EXPECT2(MPI_SUCCESS, NULL, fn, __VA_ARGS__)

static void user_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in, (void)inout, (void)len, (void)type;
}

int main(int argc, char **argv)
{
    int rank, size, rank_copy;
    ba_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const MPI_Comm W = MPI_COMM_WORLD;
    const int root = 0, is_root = rank == root;
    int a[64], b[64];
    for (int i = 0; i < 64; ++i)
        a[i] = b[i] = i;
    void *const IP = MPI_IN_PLACE;
    /* On the root: a in-place error at the root; elsewhere one at non-roots. */
    const char *root_or_not = is_root ? "recvbuf" : "sendbuf";

    MPI_Datatype uncommitted, freed;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    MPI_Type_contiguous(2, MPI_INT, &freed);
    MPI_Type_commit(&freed);
    MPI_Type_free(&freed);
    MPI_Comm freed_comm;
    MPI_Comm_dup(W, &freed_comm);
    MPI_Comm_free(&freed_comm);
    MPI_Op freed_op;
    MPI_Op_create(user_op, 1, &freed_op);
    MPI_Op_free(&freed_op);

    /* MPI_Barrier */
    EXPECT(MPI_ERR_COMM, "comm", MPI_Barrier(MPI_COMM_NULL));
    EXPECT(MPI_ERR_COMM, "comm", MPI_Barrier(freed_comm));

    /* MPI_Bcast */
    EXPECT2(MPI_ERR_BUFFER, "buffer", MPI_Bcast, NULL, 4, MPI_INT, root, W);
    EXPECT2(MPI_ERR_BUFFER, "buffer", MPI_Bcast, IP, 4, MPI_INT, root, W);
    EXPECT2(MPI_ERR_COUNT, "count", MPI_Bcast, a, -1, MPI_INT, root, W);
    EXPECT2(MPI_ERR_ROOT, "root", MPI_Bcast, a, 4, MPI_INT, size, W);
    EXPECT2(MPI_ERR_ROOT, "root", MPI_Bcast, a, 4, MPI_INT, -1, W);
    EXPECT2(MPI_ERR_TYPE, "datatype", MPI_Bcast, a, 4, MPI_DATATYPE_NULL, root, W);
    EXPECT2(MPI_ERR_TYPE, "datatype", MPI_Bcast, a, 4, uncommitted, root, W);
    EXPECT2(MPI_ERR_TYPE, "datatype", MPI_Bcast, a, 4, freed, root, W);
    EXPECT2(MPI_ERR_COMM, "comm", MPI_Bcast, a, 4, MPI_INT, root, MPI_COMM_NULL);
    EXPECT2(MPI_ERR_COMM, "comm", MPI_Bcast, a, 4, MPI_INT, root, freed_comm);

    /* MPI_Reduce */
    EXPECT2(MPI_ERR_BUFFER, "sendbuf", MPI_Reduce, NULL, b, 4, MPI_INT, MPI_SUM, root, W);
    EXPECT2(MPI_ERR_BUFFER, root_or_not, MPI_Reduce, is_root ? a : IP, is_root ? IP : b, 4, MPI_INT,
            MPI_SUM, root, W);
    EXPECT2(MPI_ERR_BUFFER, root_or_not, MPI_Reduce, is_root ? a : NULL, is_root ? NULL : b, 4,
            MPI_INT, MPI_SUM, root, W);
    EXPECT2(MPI_ERR_COUNT, "count", MPI_Reduce, a, b, -2, MPI_INT, MPI_SUM, root, W);
    EXPECT2(MPI_ERR_OP, "op", MPI_Reduce, a, b, 4, MPI_INT, MPI_OP_NULL, root, W);
    EXPECT2(MPI_ERR_OP, "op", MPI_Reduce, a, b, 4, MPI_INT, freed_op, root, W);
    EXPECT2(MPI_ERR_ROOT, "root", MPI_Reduce, a, b, 4, MPI_INT, MPI_SUM, size + 1, W);

    /* MPI_Allreduce */
    EXPECT2(MPI_ERR_BUFFER, "sendbuf", MPI_Allreduce, NULL, b, 4, MPI_INT, MPI_SUM, W);
    EXPECT2(MPI_ERR_BUFFER, "recvbuf", MPI_Allreduce, a, NULL, 4, MPI_INT, MPI_SUM, W);
    EXPECT2(MPI_ERR_BUFFER, "recvbuf", MPI_Allreduce, a, IP, 4, MPI_INT, MPI_SUM, W);
    EXPECT2(MPI_ERR_BUFFER, "recvbuf", MPI_Allreduce, IP, IP, 4, MPI_INT, MPI_SUM, W);
    EXPECT2(MPI_ERR_BUFFER, "buffer", MPI_Allreduce, a, a, 4, MPI_INT, MPI_SUM, W);
    EXPECT2(MPI_ERR_TYPE, "datatype", MPI_Allreduce, a, b, 4, uncommitted, MPI_SUM, W);

    /* MPI_Gather: sendbuf everywhere, recvbuf at the root */
    EXPECT2(MPI_ERR_BUFFER, "sendbuf", MPI_Gather, NULL, 1, MPI_INT, b, 1, MPI_INT, root, W);
    EXPECT2(MPI_ERR_BUFFER, root_or_not, MPI_Gather, is_root ? a : NULL, 1, MPI_INT,
            is_root ? NULL : b, 1, MPI_INT, root, W);
    EXPECT2(MPI_ERR_BUFFER, root_or_not, MPI_Gather, is_root ? a : IP, 1, MPI_INT, is_root ? IP : b,
            1, MPI_INT, root, W);
    EXPECT2(MPI_ERR_COUNT, "sendcount", MPI_Gather, a, -1, MPI_INT, b, 1, MPI_INT, root, W);
    EXPECT2(MPI_ERR_TYPE, "sendtype", MPI_Gather, a, 1, MPI_DATATYPE_NULL, b, 1, MPI_INT, root, W);
    EXPECT2(MPI_ERR_ROOT, "root", MPI_Gather, a, 1, MPI_INT, b, 1, MPI_INT, -3, W);

    /* MPI_Scatter: sendbuf at the root, recvbuf everywhere */
    EXPECT2(MPI_ERR_BUFFER, "recvbuf", MPI_Scatter, a, 1, MPI_INT, NULL, 1, MPI_INT, root, W);
    EXPECT2(MPI_ERR_BUFFER, is_root ? "sendbuf" : "recvbuf", MPI_Scatter, is_root ? NULL : a, 1,
            MPI_INT, is_root ? b : NULL, 1, MPI_INT, root, W);
    EXPECT2(MPI_ERR_BUFFER, is_root ? "sendbuf" : "recvbuf", MPI_Scatter, is_root ? IP : a, 1,
            MPI_INT, is_root ? b : IP, 1, MPI_INT, root, W);
    EXPECT2(MPI_ERR_COUNT, "recvcount", MPI_Scatter, a, 1, MPI_INT, b, -1, MPI_INT, root, W);

    /* MPI_Allgather, MPI_Alltoall */
    EXPECT2(MPI_ERR_BUFFER, "sendbuf", MPI_Allgather, NULL, 1, MPI_INT, b, 1, MPI_INT, W);
    EXPECT2(MPI_ERR_BUFFER, "recvbuf", MPI_Allgather, a, 1, MPI_INT, NULL, 1, MPI_INT, W);
    EXPECT2(MPI_ERR_BUFFER, "recvbuf", MPI_Allgather, a, 1, MPI_INT, IP, 1, MPI_INT, W);
    EXPECT2(MPI_ERR_COUNT, "recvcount", MPI_Allgather, a, 1, MPI_INT, b, -1, MPI_INT, W);
    EXPECT2(MPI_ERR_TYPE, "recvtype", MPI_Allgather, a, 1, MPI_INT, b, 1, freed, W);
    EXPECT2(MPI_ERR_BUFFER, "sendbuf", MPI_Alltoall, NULL, 1, MPI_INT, b, 1, MPI_INT, W);
    EXPECT2(MPI_ERR_BUFFER, "recvbuf", MPI_Alltoall, a, 1, MPI_INT, NULL, 1, MPI_INT, W);
    EXPECT2(MPI_ERR_BUFFER, "recvbuf", MPI_Alltoall, IP, 1, MPI_INT, IP, 1, MPI_INT, W);
    EXPECT2(MPI_ERR_COUNT, "sendcount", MPI_Alltoall, a, -1, MPI_INT, b, 1, MPI_INT, W);

    /* MPI_Reduce_local */
    EXPECT2(MPI_ERR_BUFFER, "inbuf", MPI_Reduce_local, NULL, b, 4, MPI_INT, MPI_SUM);
    EXPECT2(MPI_ERR_BUFFER, "inoutbuf", MPI_Reduce_local, a, NULL, 4, MPI_INT, MPI_SUM);
    EXPECT2(MPI_ERR_BUFFER, "inbuf", MPI_Reduce_local, IP, b, 4, MPI_INT, MPI_SUM);
    EXPECT2(MPI_ERR_BUFFER, "inoutbuf", MPI_Reduce_local, a, IP, 4, MPI_INT, MPI_SUM);
    EXPECT2(MPI_ERR_OP, "op", MPI_Reduce_local, a, b, 4, MPI_INT, MPI_OP_NULL);

    /* Sizes that do not fit in MPI_Count: never a 0-byte collective. */
    const MPI_Count huge = (MPI_Count)1 << 62;
    EXPECT(MPI_ERR_COUNT, "buffer", MPI_Bcast_c(a, huge, MPI_DOUBLE, root, W));
    EXPECT(MPI_ERR_COUNT, "sendbuf", MPI_Allreduce_c(a, b, huge, MPI_DOUBLE, MPI_SUM, W));
    EXPECT(MPI_ERR_COUNT, "sendbuf",
           MPI_Gather_c(a, huge, MPI_DOUBLE, b, huge, MPI_DOUBLE, root, W));
    EXPECT(MPI_ERR_COUNT, "recvbuf", MPI_Alltoall_c(IP, 0, MPI_INT, b, huge, MPI_DOUBLE, W));
    EXPECT(MPI_ERR_COUNT, "inbuf", MPI_Reduce_local_c(a, b, huge, MPI_DOUBLE, MPI_SUM));
    /* One block fits (2^62 bytes), the blocks of all processes do not. */
    const MPI_Count block = (MPI_Count)1 << 59;
    if (size >= 2) {
        EXPECT(MPI_ERR_COUNT, "recvbuf", MPI_Allgather_c(a, 1, MPI_INT, b, block, MPI_DOUBLE, W));
        EXPECT(MPI_ERR_COUNT, "sendbuf", MPI_Alltoall_c(a, block, MPI_DOUBLE, b, 1, MPI_INT, W));
        EXPECT(MPI_ERR_COUNT, is_root ? "recvbuf" : "sendbuf",
               MPI_Gather_c(a, is_root ? 1 : huge, MPI_DOUBLE, b, block, MPI_DOUBLE, root, W));
        EXPECT(MPI_ERR_COUNT, is_root ? "sendbuf" : "recvbuf",
               MPI_Scatter_c(a, block, MPI_DOUBLE, b, is_root ? 1 : huge, MPI_DOUBLE, root, W));
    }

    /* Operations */
    MPI_Op op = MPI_SUM;
    EXPECT(MPI_ERR_OP, "op", MPI_Op_free(&op));
    op = MPI_OP_NULL;
    EXPECT(MPI_ERR_OP, "op", MPI_Op_free(&op));
    EXPECT(MPI_ERR_ARG, "op", MPI_Op_free(NULL));
    EXPECT(MPI_ERR_ARG, "user_fn", MPI_Op_create(NULL, 1, &op));
    EXPECT(MPI_ERR_ARG, "op", MPI_Op_create(user_op, 1, NULL));
    EXPECT(MPI_ERR_ARG, "commute", MPI_Op_commutative(MPI_SUM, NULL));
    EXPECT(MPI_ERR_OP, "op", MPI_Op_commutative(freed_op, &rank_copy));

    /* Legal edge cases. */
    EXPECT2_OK(MPI_Bcast, NULL, 0, MPI_INT, root, W);
    EXPECT2_OK(MPI_Allreduce, IP, b, 4, MPI_INT, MPI_SUM, W);
    EXPECT2_OK(MPI_Allreduce, NULL, NULL, 0, MPI_INT, MPI_SUM, W);
    EXPECT2_OK(MPI_Reduce, is_root ? IP : a, is_root ? b : NULL, 4, MPI_INT, MPI_SUM, root, W);
    /* Non-roots: recvbuf, recvcount and recvtype are not significant; at
     * the root, MPI_IN_PLACE makes sendcount and sendtype insignificant. */
    EXPECT2_OK(MPI_Gather, is_root ? IP : a, is_root ? -7 : 1,
               is_root ? MPI_DATATYPE_NULL : MPI_INT, is_root ? b : IP, is_root ? 1 : -1,
               is_root ? MPI_INT : MPI_DATATYPE_NULL, root, W);
    EXPECT2_OK(MPI_Scatter, is_root ? a : NULL, is_root ? 1 : -1, is_root ? MPI_INT : uncommitted,
               is_root ? IP : b, 1, MPI_INT, root, W);
    EXPECT2_OK(MPI_Allgather, IP, -5, MPI_DATATYPE_NULL, b, 1, MPI_INT, W);
    EXPECT2_OK(MPI_Alltoall, IP, -5, MPI_DATATYPE_NULL, b, 1, MPI_INT, W);
    EXPECT2_OK(MPI_Reduce_local, NULL, NULL, 0, MPI_INT, MPI_SUM);
    /* MPI_BOTTOM (NULL) with a datatype of absolute addresses. */
    MPI_Aint addr;
    MPI_Get_address(&a[3], &addr);
    int one = 1;
    MPI_Datatype absolute;
    MPI_Type_create_hindexed(1, &one, &addr, MPI_INT, &absolute);
    MPI_Type_commit(&absolute);
    a[3] = is_root ? 1234 : -1;
    EXPECT(MPI_SUCCESS, NULL, VALUE(MPI_Bcast(MPI_BOTTOM, 1, absolute, root, W), a[3], 1234));
    a[3] = is_root ? 4321 : -1;
    EXPECT(MPI_SUCCESS, NULL, VALUE(MPI_Bcast_c(MPI_BOTTOM, 1, absolute, root, W), a[3], 4321));
    MPI_Type_free(&absolute);

    MPI_Type_free(&uncommitted);
    /* Collectives still work. */
    int sum = 0;
    CHECK_SUCCESS(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, W));
    CHECK_INT(sum, size * (size - 1) / 2);
    return ba_finish();
}
