/* A sieving write does not lose plain writes landing in its holes: rank 0 writes a strided
 * pattern (blocks of 8 bytes, one per stride of 8 * size bytes) through a vector view with
 * romio_ds_write=enable, so each of its writes reads the covering extent, places its blocks and
 * writes the whole extent back; at the same time every other rank writes its own 8-byte
 * blocks, which lie in rank 0's holes, with one plain MPI_File_write_at each. Repeated for many
 * rounds with a new pattern each round; after each round every rank checks every byte of the
 * file with POSIX reads. A plain write that fell between a sieve's read and its write-back would
 * show the previous round's bytes. */
#include "iotest.h"

#include <stdlib.h>

enum { kBlock = 8, kBlocks = 512, kRounds = 150, kRepeats = 6 };

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[512];
    io_path(MPI_COMM_WORLD, "sieve_race", path);
    const long stride = (long)kBlock * size;
    const long total = stride * kBlocks;

    MPI_Info info = io_info("romio_ds_write", "enable", "romio_ds_read", "enable", NULL);
    MPI_File fh;
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);

    MPI_Datatype vec, ftype;
    MPI_Type_vector(kBlocks, kBlock, (int)stride, MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, total, &ftype);
    MPI_Type_commit(&ftype);
    if (rank == 0)
        CHECK_SUCCESS(MPI_File_set_view(fh, 0, MPI_BYTE, ftype, "native", MPI_INFO_NULL));
    else
        CHECK_SUCCESS(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));

    unsigned char *mine = malloc((size_t)kBlocks * kBlock);
    unsigned char *want = malloc((size_t)total);
    unsigned char *got = malloc((size_t)total);
    int bad_rounds = 0;
    for (int round = 0; round < kRounds; round++) {
        const int seed = round + 1;
        for (long i = 0; i < total; i++)
            want[i] = io_byte(seed, i);
        for (long k = 0; k < kBlocks; k++)
            memcpy(mine + k * kBlock, want + k * stride + (long)rank * kBlock, kBlock);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            /* The same data several times, so the sieves overlap the other ranks' writes. */
            for (int r = 0; r < kRepeats; r++) {
                MPI_Status st;
                CHECK_SUCCESS(MPI_File_write_at(fh, 0, mine, kBlocks * kBlock, MPI_BYTE, &st));
                int n = -1;
                MPI_Get_count(&st, MPI_BYTE, &n);
                CHECK_INT(n, kBlocks * kBlock);
            }
        } else {
            /* Alternate directions, so writes meet sieves at both ends of the extent. */
            for (long j = 0; j < kBlocks; j++) {
                const long k = (round & 1) ? kBlocks - 1 - j : j;
                CHECK_SUCCESS(MPI_File_write_at(fh, k * stride + (long)rank * kBlock,
                                                mine + k * kBlock, kBlock, MPI_BYTE,
                                                MPI_STATUS_IGNORE));
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_INT(io_raw_read(path, 0, got, total), total);
        long diff = io_first_diff(got, want, total);
        if (diff >= 0 && bad_rounds++ < 3)
            CHECK(0, "round %d: byte %ld (rank %ld's block %ld) is 0x%02x, expected 0x%02x", round,
                  diff, (diff % stride) / kBlock, diff / stride, got[diff], want[diff]);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (bad_rounds > 0 && rank == 0)
        printf("%d of %d rounds lost plain writes\n", bad_rounds, kRounds);

    /* The same file read back through rank 0's sieving view. */
    if (rank == 0) {
        MPI_Status st;
        CHECK_SUCCESS(MPI_File_read_at(fh, 0, got, kBlocks * kBlock, MPI_BYTE, &st));
        CHECK_BYTES(got, mine, kBlocks * kBlock);
    }
    CHECK_SUCCESS(MPI_File_close(&fh));
    MPI_Type_free(&ftype);
    MPI_Type_free(&vec);
    free(mine);
    free(want);
    free(got);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK_SUCCESS(MPI_File_delete(path, MPI_INFO_NULL));
    return mtest_finish();
}
