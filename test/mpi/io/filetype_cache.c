/* Filetypes are flattened once per type and data representation and the runs are kept on the
 * datatype: the MPI_T counters io_filetype_flattens and io_filetype_cache_hits show that a
 * second view with the same filetype, a view on another file and accesses reuse the runs; a
 * new representation flattens again; a type freed and created again with another shape
 * (whatever handle it gets) is flattened anew and its view moves the bytes of its own shape,
 * checked against a reference. */
#include "iotest.h"

static MPI_T_pvar_session session;

static MPI_T_pvar_handle counter(const char *name)
{
    int index = -1, count = 0;
    CHECK_INT(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &index), MPI_SUCCESS);
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    CHECK_INT(MPI_T_pvar_handle_alloc(session, index, NULL, &h, &count), MPI_SUCCESS);
    CHECK_INT(MPI_T_pvar_start(session, h), MPI_SUCCESS);
    return h;
}

static unsigned long long value(MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    CHECK_INT(MPI_T_pvar_read(session, h, &v), MPI_SUCCESS);
    return v;
}

/* Writes 96 bytes collectively through the current view (blocks of `blk` bytes, one per rank,
 * tiled) and checks the file: byte i of rank r lies in block i / blk of rank r. */
static void check_shape(MPI_File fh, const char *path, int blk, int rank, int size, int seed)
{
    enum { N = 96 };
    unsigned char data[N], raw[N * 4];
    for (int i = 0; i < N; i++)
        data[i] = io_byte(seed + rank, i);
    MPI_Status st;
    CHECK_SUCCESS(MPI_File_write_at_all(fh, 0, data, N, MPI_BYTE, &st));
    CHECK_SUCCESS(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK_INT(io_raw_read(path, 0, raw, (long)N * size), (long)N * size);
        for (int r = 0; r < size; r++)
            for (int i = 0; i < N; i++) {
                long at = (long)(i / blk) * blk * size + (long)r * blk + i % blk;
                CHECK(raw[at] == io_byte(seed + r, i), "blk %d rank %d byte %d", blk, r, i);
            }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int provided;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    CHECK_INT(MPI_T_pvar_session_create(&session), MPI_SUCCESS);
    MPI_T_pvar_handle flattens = counter("io_filetype_flattens");
    MPI_T_pvar_handle hits = counter("io_filetype_cache_hits");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[512], path2[512];
    io_path(MPI_COMM_WORLD, "ftcache", path);
    io_path(MPI_COMM_WORLD, "ftcache2", path2);
    MPI_File fh, fh2;
    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_WORLD, path2, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh2));

    /* Blocks of 4 bytes, one per rank, tiled. */
    MPI_Datatype one, ft;
    MPI_Type_vector(1, 4, 4 * size, MPI_BYTE, &one);
    MPI_Type_create_resized(one, 0, 4 * size, &ft);
    MPI_Type_commit(&ft);
    unsigned long long f0 = value(flattens), h0 = value(hits);
    CHECK_SUCCESS(MPI_File_set_view(fh, 4 * rank, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    unsigned long long f1 = value(flattens);
    CHECK(f1 - f0 >= 1, "the first view of a new filetype flattened nothing (%llu)", f1 - f0);
    /* The same filetype again, on this file and on another: no new flattening. */
    CHECK_SUCCESS(MPI_File_set_view(fh, 4 * rank, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    CHECK_SUCCESS(MPI_File_set_view(fh2, 4 * rank, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    unsigned long long f2 = value(flattens), h2 = value(hits);
    CHECK_INT(f2, f1);
    CHECK(h2 - h0 >= 2, "the views after the first found no cached runs (%llu hits)", h2 - h0);
    check_shape(fh, path, 4, rank, size, 1);
    CHECK_INT(value(flattens), f2);
    /* Another representation of the same type is another form: flattened once more, then
     * shared (MPI_BYTE has the same size in external32, so the runs are the native ones). */
    CHECK_SUCCESS(MPI_File_set_view(fh2, 4 * rank, MPI_BYTE, ft, "external32", MPI_INFO_NULL));
    unsigned long long f3 = value(flattens);
    CHECK(f3 > f2, "external32 did not flatten the filetype");
    CHECK_SUCCESS(MPI_File_set_view(fh2, 4 * rank, MPI_BYTE, ft, "external32", MPI_INFO_NULL));
    CHECK_INT(value(flattens), f3);

    /* Freed and made again with another shape (blocks of 8): flattened anew, and the bytes
     * land where the new shape says, whether or not the handle is the old one. */
    CHECK_SUCCESS(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    CHECK_SUCCESS(MPI_File_set_view(fh2, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    MPI_Type_free(&one);
    MPI_Type_free(&ft);
    CHECK_SUCCESS(MPI_File_set_size(fh, 0));
    MPI_Type_vector(1, 8, 8 * size, MPI_BYTE, &one);
    MPI_Type_create_resized(one, 0, 8 * size, &ft);
    MPI_Type_commit(&ft);
    unsigned long long f4 = value(flattens);
    CHECK_SUCCESS(MPI_File_set_view(fh, 8 * rank, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    CHECK(value(flattens) > f4, "a recreated filetype was not flattened");
    check_shape(fh, path, 8, rank, size, 2);
    MPI_Type_free(&one);
    MPI_Type_free(&ft);

    CHECK_SUCCESS(MPI_File_close(&fh));
    CHECK_SUCCESS(MPI_File_close(&fh2));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_File_delete(path, MPI_INFO_NULL);
        MPI_File_delete(path2, MPI_INFO_NULL);
    }
    MPI_T_pvar_handle_free(session, &flattens);
    MPI_T_pvar_handle_free(session, &hits);
    MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
    return mtest_finish();
}
