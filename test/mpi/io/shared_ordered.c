/* Shared file pointer and ordered mode: concurrent write_shared from every rank leaves every
 * record exactly once and whole; get_position_shared and seek_shared; read_shared hands out
 * every record exactly once; write_ordered / read_ordered (and their split forms) follow
 * rank order with a different count per rank; the _c forms; iwrite_shared / iread_shared. */
#include "iotest.h"

#define REC 32    /* bytes per record */
#define ROUNDS 20 /* records per rank */

/* A record: rank, round, then a pattern of both. */
static void make_record(unsigned char *r, int rank, int round)
{
    r[0] = (unsigned char)rank;
    r[1] = (unsigned char)round;
    for (int i = 2; i < REC; i++)
        r[i] = io_byte(rank * 100 + round, i);
}

/* Returns the (rank, round) of a whole record, or -1 when it is torn or garbage. */
static int parse_record(const unsigned char *r, int size)
{
    unsigned char ref[REC];
    if (r[0] >= size || r[1] >= ROUNDS)
        return -1;
    make_record(ref, r[0], r[1]);
    if (memcmp(ref, r, REC) != 0)
        return -1;
    return r[0] * ROUNDS + r[1];
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[512];
    io_path(MPI_COMM_WORLD, "shared", path);
    MPI_File fh;
    MPI_Status st;
    int cnt;
    unsigned char rec[REC];
    const int total = size * ROUNDS;
    int *seen = calloc(total, sizeof(int));

    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_Offset pos = -1;
    CHECK_SUCCESS(MPI_File_get_position_shared(fh, &pos));
    CHECK_INT(pos, 0);
    /* Records of REC bytes as the etype: positions count records. */
    MPI_Datatype rtype;
    MPI_Type_contiguous(REC, MPI_BYTE, &rtype);
    MPI_Type_commit(&rtype);
    CHECK_SUCCESS(MPI_File_set_view(fh, 0, rtype, rtype, "native", MPI_INFO_NULL));
    for (int round = 0; round < ROUNDS; round++) {
        make_record(rec, rank, round);
        if (round % 4 == 3)
            CHECK_SUCCESS(MPI_File_write_shared_c(fh, rec, 1, rtype, &st));
        else
            CHECK_SUCCESS(MPI_File_write_shared(fh, rec, REC, MPI_BYTE, &st));
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK_INT(cnt, REC);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_get_position_shared(fh, &pos));
    CHECK_INT(pos, total);
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unsigned char *all = malloc((size_t)total * REC);
        CHECK_INT(io_raw_read(path, 0, all, (long)total * REC), (long)total * REC);
        for (int i = 0; i < total; i++) {
            int id = parse_record(all + (long)i * REC, size);
            CHECK(id >= 0, "record %d in the file is torn or foreign", i);
            if (id >= 0)
                seen[id]++;
        }
        for (int i = 0; i < total; i++)
            CHECK(seen[i] == 1, "record of rank %d round %d found %d times", i / ROUNDS, i % ROUNDS,
                  seen[i]);
        free(all);
    }

    /* seek_shared (collective) back to 0; read_shared: each record to exactly one rank. */
    CHECK_SUCCESS(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    CHECK_SUCCESS(MPI_File_get_position_shared(fh, &pos));
    CHECK_INT(pos, 0);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank has looked before the pointer moves */
    memset(seen, 0, sizeof(int) * total);
    int mine = 0;
    for (;;) {
        CHECK_SUCCESS(MPI_File_read_shared(fh, rec, 1, rtype, &st));
        MPI_Get_count(&st, rtype, &cnt);
        if (cnt != 1)
            break;
        int id = parse_record(rec, size);
        CHECK(id >= 0, "read_shared gave a torn record");
        if (id >= 0)
            seen[id]++;
        mine++;
    }
    CHECK_INT(cnt, 0);
    MPI_Allreduce(MPI_IN_PLACE, seen, total, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < total; i++)
        CHECK(seen[i] == 1, "read_shared: record %d read %d times", i, seen[i]);
    MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_INT(mine, total);
    CHECK_SUCCESS(MPI_File_seek_shared(fh, -2, MPI_SEEK_END));
    CHECK_SUCCESS(MPI_File_get_position_shared(fh, &pos));
    CHECK_INT(pos, total - 2);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_close(&fh));

    /* Ordered: rank r writes r + 1 records after all lower ranks' records. */
    char path2[512];
    io_path(MPI_COMM_WORLD, "ordered", path2);
    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_WORLD, path2, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    unsigned char recs[8 * REC];
    for (int k = 0; k <= rank; k++)
        make_record(recs + k * REC, rank, k);
    CHECK_SUCCESS(MPI_File_write_ordered(fh, recs, (rank + 1) * REC, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, (rank + 1) * REC);
    const long first = (long)size * (size + 1) / 2; /* records after the first call */
    CHECK_SUCCESS(MPI_File_get_position_shared(fh, &pos));
    CHECK_INT(pos, first * REC);
    MPI_Barrier(MPI_COMM_WORLD);
    /* The split form, in reverse amounts: rank r writes size - r records. */
    for (int k = 0; k < size - rank; k++)
        make_record(recs + k * REC, rank, 10 + k);
    CHECK_SUCCESS(MPI_File_write_ordered_begin(fh, recs, (size - rank) * REC, MPI_BYTE));
    CHECK_SUCCESS(MPI_File_write_ordered_end(fh, recs, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, (size - rank) * REC);
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        long n = 2 * first;
        unsigned char *all = malloc(n * REC), ref[REC];
        CHECK_INT(io_raw_read(path2, 0, all, n * REC), n * REC);
        long i = 0;
        for (int r = 0; r < size; r++)
            for (int k = 0; k <= r; k++, i++) {
                make_record(ref, r, k);
                CHECK(memcmp(all + i * REC, ref, REC) == 0,
                      "ordered record %ld is not rank %d's %d", i, r, k);
            }
        for (int r = 0; r < size; r++)
            for (int k = 0; k < size - r; k++, i++) {
                make_record(ref, r, 10 + k);
                CHECK(memcmp(all + i * REC, ref, REC) == 0,
                      "split ordered record %ld is not rank %d's %d", i, r, 10 + k);
            }
        free(all);
    }
    /* read_ordered from the start gives each rank its own records back. */
    CHECK_SUCCESS(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    unsigned char back[8 * REC];
    CHECK_SUCCESS(MPI_File_read_ordered(fh, back, (rank + 1) * REC, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, (rank + 1) * REC);
    for (int k = 0; k <= rank; k++) {
        make_record(rec, rank, k);
        CHECK(memcmp(back + k * REC, rec, REC) == 0, "read_ordered record %d", k);
    }
    CHECK_SUCCESS(MPI_File_read_ordered_begin(fh, back, (size - rank) * REC, MPI_BYTE));
    CHECK_SUCCESS(MPI_File_read_ordered_end(fh, back, &st));
    for (int k = 0; k < size - rank; k++) {
        make_record(rec, rank, 10 + k);
        CHECK(memcmp(back + k * REC, rec, REC) == 0, "read_ordered_end record %d", k);
    }
    /* Nonblocking shared-pointer access appends after everything. */
    make_record(rec, rank, 19);
    MPI_Request req;
    CHECK_SUCCESS(MPI_File_iwrite_shared(fh, rec, REC, MPI_BYTE, &req));
    CHECK_SUCCESS(MPI_Wait(&req, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, REC);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_get_position_shared(fh, &pos));
    CHECK_INT(pos, (2 * first + size) * REC);
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_SUCCESS(MPI_File_seek_shared(fh, 2 * first * REC, MPI_SEEK_SET));
    CHECK_SUCCESS(MPI_File_iread_shared(fh, back, REC, MPI_BYTE, &req));
    CHECK_SUCCESS(MPI_Wait(&req, &st));
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_INT(cnt, REC);
    int id = parse_record(back, size);
    CHECK(id >= 0 && id % ROUNDS == 19, "iread_shared got record id %d", id);
    CHECK_SUCCESS(MPI_File_close(&fh));
    MPI_Type_free(&rtype);
    free(seen);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_File_delete(path, MPI_INFO_NULL);
        MPI_File_delete(path2, MPI_INFO_NULL);
    }
    return mtest_finish();
}
