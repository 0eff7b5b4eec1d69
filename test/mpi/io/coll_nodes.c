/* Collective buffering across nodes: every rank writes one interleaved share of a file (blocks
 * of 1000 bytes, rank r's k-th block at (k * size + r) * 1000) with MPI_File_write_all through
 * a vector view, under three sets of hints: aggregation forced with small buffers (several
 * rounds), the defaults, and one aggregator (cb_nodes=1). Each time every rank reads the
 * whole file with POSIX reads and compares it with the reference the test computes, and reads
 * its own share back with MPI_File_read_all. The default number of aggregators
 * (MPI_File_get_info's cb_nodes) must be the number of nodes (one per node, counted with
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)); an argument N also requires N nodes, so that
 * test/mpi/multinode/programs runs it with aggregators on two nodes, and the testlist entry
 * of the io chapter gives the same bytes on one. */
#include "iotest.h"

#include <stdlib.h>

enum { kBlock = 1000, kBlocks = 300 };

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int node_rank, leader, nodes = 0;
    MPI_Comm_rank(node, &node_rank);
    leader = node_rank == 0;
    MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    if (argc > 1)
        CHECK_INT(nodes, atoi(argv[1]));

    const long share = (long)kBlock * kBlocks, total = share * size;
    unsigned char *want = malloc(total), *got = malloc(total), *mine = malloc(share);
    for (long i = 0; i < total; i++)
        want[i] = io_byte(7, i);
    for (long k = 0; k < kBlocks; k++)
        memcpy(mine + k * kBlock, want + (k * size + rank) * kBlock, kBlock);

    MPI_Datatype vec, ftype;
    MPI_Type_vector(kBlocks, kBlock, kBlock * size, MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, total, &ftype);
    MPI_Type_commit(&ftype);

    const char *names[3] = {"forced", "defaults", "one aggregator"};
    for (int c = 0; c < 3; c++) {
        MPI_Info info = MPI_INFO_NULL;
        if (c == 0)
            info = io_info("romio_cb_write", "enable", "romio_cb_read", "enable", "cb_buffer_size",
                           "65536", NULL);
        else if (c == 2)
            info = io_info("romio_cb_write", "enable", "romio_cb_read", "enable", "cb_nodes", "1",
                           NULL);
        char path[512];
        io_path(MPI_COMM_WORLD, "coll_nodes", path);
        MPI_File fh;
        CHECK_SUCCESS(
            MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
        MPI_Info used;
        char value[64];
        CHECK_SUCCESS(MPI_File_get_info(fh, &used));
        CHECK(io_info_value(used, "cb_nodes", value), "%s: cb_nodes not reported", names[c]);
        CHECK_INT(atoi(value), c == 2 ? 1 : nodes);
        MPI_Info_free(&used);

        CHECK_SUCCESS(MPI_File_set_view(fh, (MPI_Offset)rank * kBlock, MPI_BYTE, ftype, "native",
                                        MPI_INFO_NULL));
        MPI_Status st;
        CHECK_SUCCESS(MPI_File_write_all(fh, mine, (int)share, MPI_BYTE, &st));
        int n = -1;
        MPI_Get_count(&st, MPI_BYTE, &n);
        CHECK_INT(n, (int)share);
        CHECK_SUCCESS(MPI_File_sync(fh));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_SUCCESS(MPI_File_sync(fh));
        memset(got, 0, total);
        CHECK_INT(io_raw_read(path, 0, got, total), total);
        long d = io_first_diff(got, want, total);
        CHECK(d < 0, "%s: byte %ld (block %ld, rank %ld's) is 0x%02x, expected 0x%02x", names[c], d,
              d / kBlock, (d / kBlock) % size, d >= 0 ? got[d] : 0, d >= 0 ? want[d] : 0);

        memset(got, 0, share);
        CHECK_SUCCESS(MPI_File_seek(fh, 0, MPI_SEEK_SET));
        CHECK_SUCCESS(MPI_File_read_all(fh, got, (int)share, MPI_BYTE, &st));
        MPI_Get_count(&st, MPI_BYTE, &n);
        CHECK_INT(n, (int)share);
        CHECK_BYTES(got, mine, share);
        CHECK_SUCCESS(MPI_File_close(&fh));
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            CHECK_SUCCESS(MPI_File_delete(path, MPI_INFO_NULL));
    }
    if (rank == 0)
        printf("%d node(s), %d ranks\n", nodes, size);
    MPI_Type_free(&ftype);
    MPI_Type_free(&vec);
    free(want);
    free(got);
    free(mine);
    return mtest_finish();
}
