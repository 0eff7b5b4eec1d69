/* Shared file pointer and ordered mode: write_shared from every process lands each block
 * exactly once; write_ordered puts the blocks in rank order after them; get_position_shared,
 * seek_shared (SET, CUR, END) and read_ordered / read_shared read them back; the split
 * collectives keep one outstanding operation per file and check their end call. */
#include "iotest.h"

static int rank, nprocs;

/* Process r writes r + 3 ints, each int = r * 1000 + i. */
static int nmine(int r) { return r + 3; }

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    char path[512];
    io_path(MPI_COMM_WORLD, "collshared", path);
    MPI_File fh;
    int rc =
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    CHECK_SUCCESS(rc);
    if (rc != MPI_SUCCESS)
        return mtest_finish();
    CHECK_SUCCESS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    int total = 0;
    for (int r = 0; r < nprocs; r++)
        total += nmine(r);
    int mine[64], back[64 * 8];
    for (int i = 0; i < nmine(rank); i++)
        mine[i] = rank * 1000 + i;

    /* write_shared: each block once, anywhere. */
    MPI_Status st;
    int count = -1;
    CHECK_SUCCESS(MPI_File_write_shared(fh, mine, nmine(rank), MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_INT(count, nmine(rank));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset pos = -1;
    CHECK_SUCCESS(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == total, "shared pointer at %lld after write_shared, expected %d", (long long)pos,
          total);

    /* write_ordered: blocks in rank order starting at `total`. */
    CHECK_SUCCESS(MPI_File_write_ordered(fh, mine, nmine(rank), MPI_INT, &st));
    CHECK_SUCCESS(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == 2 * total, "shared pointer at %lld after write_ordered", (long long)pos);
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    long n = io_raw_read(path, 0, back, 2L * total * 4);
    CHECK(n == 2L * total * 4, "file has %ld bytes, expected %d", n, 2 * total * 4);
    /* First half: every block whole, each once. */
    int seen[8] = {0};
    for (int at = 0; at < total && n == 2L * total * 4;) {
        int r = back[at] / 1000;
        if (r < 0 || r >= nprocs || back[at] % 1000 != 0) {
            CHECK(0, "int %d of the write_shared part is %d, not the start of a block", at,
                  back[at]);
            break;
        }
        for (int i = 0; i < nmine(r); i++)
            CHECK_INT(back[at + i], r * 1000 + i);
        seen[r]++;
        at += nmine(r);
    }
    for (int r = 0; r < nprocs; r++)
        CHECK(seen[r] == 1, "block of rank %d appears %d times", r, seen[r]);
    /* Second half: rank order. */
    for (int r = 0, at = total; r < nprocs; at += nmine(r), r++)
        for (int i = 0; i < nmine(r) && n == 2L * total * 4; i++)
            CHECK_INT(back[at + i], r * 1000 + i);

    /* seek_shared back to the ordered part and read it in order. */
    CHECK_SUCCESS(MPI_File_seek_shared(fh, total, MPI_SEEK_SET));
    int got[64];
    CHECK_SUCCESS(MPI_File_read_ordered(fh, got, nmine(rank), MPI_INT, &st));
    for (int i = 0; i < nmine(rank); i++)
        CHECK_INT(got[i], mine[i]);
    CHECK_SUCCESS(MPI_File_seek_shared(fh, -total, MPI_SEEK_CUR));
    CHECK_SUCCESS(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == total, "seek_shared CUR: at %lld, expected %d", (long long)pos, total);
    CHECK_SUCCESS(MPI_File_seek_shared(fh, -1, MPI_SEEK_END));
    CHECK_SUCCESS(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == 2 * total - 1, "seek_shared END: at %lld, expected %d", (long long)pos,
          2 * total - 1);
    rc = MPI_File_seek_shared(fh, -10 * total, MPI_SEEK_CUR);
    CHECK_ERR_CLASS(rc, MPI_ERR_ARG);

    /* read_shared of one int each from the last: exactly one process gets it, the others a
     * short (zero) count at the end of the file. */
    CHECK_SUCCESS(MPI_File_seek_shared(fh, 2 * total - 1, MPI_SEEK_SET));
    int one = -1;
    CHECK_SUCCESS(MPI_File_read_shared(fh, &one, 1, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    int hits = 0, mine_hit = count == 1;
    if (mine_hit)
        CHECK_INT(one, (nprocs - 1) * 1000 + nmine(nprocs - 1) - 1);
    MPI_Allreduce(&mine_hit, &hits, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_INT(hits, 1);

    /* Split collectives. */
    CHECK_SUCCESS(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    CHECK_SUCCESS(MPI_File_write_ordered_begin(fh, mine, nmine(rank), MPI_INT));
    rc = MPI_File_read_all_begin(fh, got, 1, MPI_INT);
    CHECK(rc != MPI_SUCCESS, "a second split collective was accepted");
    rc = MPI_File_read_all_end(fh, got, &st);
    CHECK(rc != MPI_SUCCESS, "read_all_end ended a write_ordered split collective");
    CHECK_SUCCESS(MPI_File_write_ordered_end(fh, mine, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_INT(count, nmine(rank));
    rc = MPI_File_write_ordered_end(fh, mine, &st);
    CHECK(rc != MPI_SUCCESS, "an end without a begin was accepted");
    CHECK_SUCCESS(MPI_File_read_at_all_begin(fh, 0, got, nmine(0), MPI_INT));
    CHECK_SUCCESS(MPI_File_read_at_all_end(fh, got, &st));
    for (int i = 0; i < nmine(0); i++)
        CHECK_INT(got[i], i);

    CHECK_SUCCESS(MPI_File_close(&fh));
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    return mtest_finish();
}
