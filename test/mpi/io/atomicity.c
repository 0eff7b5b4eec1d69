/* Atomic mode: set/get_atomicity; concurrent overlapping writes by every rank, contiguous and
 * through a view with holes (which a read-modify-write could tear), leave every byte range
 * of one write wholly from one rank (sequential consistency), and the holes unchanged; a
 * rank reading while others write sees old or new data per write, never a mix. Repeated
 * several times to give interleavings a chance. */
#include "iotest.h"

#define N 50000 /* ints per write */
#define REPS 6

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[512];
    io_path(MPI_COMM_WORLD, "atomic", path);
    MPI_File fh;
    MPI_Status st;
    int flag = -1;
    int *buf = malloc(sizeof(int) * N), *back = malloc(sizeof(int) * 2 * N);

    CHECK_SUCCESS(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_SUCCESS(MPI_File_get_atomicity(fh, &flag));
    CHECK_INT(flag, 0);
    CHECK_SUCCESS(MPI_File_set_atomicity(fh, 1));
    CHECK_SUCCESS(MPI_File_get_atomicity(fh, &flag));
    CHECK_INT(flag, 1);

    for (int rep = 0; rep < REPS; rep++) {
        /* Contiguous: all ranks write the same N ints at once. */
        for (int i = 0; i < N; i++)
            buf[i] = rank + 1 + 100 * rep;
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_SUCCESS(MPI_File_write_at(fh, 0, buf, N, MPI_INT, &st));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_SUCCESS(MPI_File_read_at(fh, 0, back, N, MPI_INT, &st));
        int v = back[0], bad = 0;
        CHECK(v >= 1 + 100 * rep && v <= size + 100 * rep, "rep %d: first int %d", rep, v);
        for (int i = 1; i < N; i++)
            if (back[i] != v && bad++ == 0)
                CHECK(0, "rep %d: contiguous overlapping writes mixed: int 0 is %d, int %d is %d",
                      rep, v, i, back[i]);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* With holes: every other int of 2N, the holes hold -1 and must keep it. */
    for (int i = 0; i < 2 * N; i++)
        back[i] = -1;
    if (rank == 0)
        CHECK_SUCCESS(MPI_File_write_at(fh, 0, back, 2 * N, MPI_INT, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Datatype every_other;
    MPI_Type_vector(N, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    CHECK_SUCCESS(MPI_File_set_view(fh, 0, MPI_INT, every_other, "native", MPI_INFO_NULL));
    CHECK_SUCCESS(MPI_File_get_atomicity(fh, &flag));
    CHECK_INT(flag, 1);
    for (int rep = 0; rep < REPS; rep++) {
        for (int i = 0; i < N; i++)
            buf[i] = rank + 1 + 1000 * rep;
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_SUCCESS(MPI_File_write_at(fh, 0, buf, N, MPI_INT, &st));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_SUCCESS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
        CHECK_SUCCESS(MPI_File_read_at(fh, 0, back, 2 * N, MPI_INT, &st));
        int v = back[0], bad = 0;
        for (int i = 0; i < 2 * N; i += 2)
            if (back[i] != v && bad++ == 0)
                CHECK(0, "rep %d: strided overlapping writes mixed: int 0 is %d, int %d is %d", rep,
                      v, i, back[i]);
        for (int i = 1; i < 2 * N; i += 2)
            if (back[i] != -1 && bad++ == 0)
                CHECK(0, "rep %d: hole int %d became %d", rep, i, back[i]);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_SUCCESS(MPI_File_set_view(fh, 0, MPI_INT, every_other, "native", MPI_INFO_NULL));
    }

    /* A reader against writers: rank 0 reads while the others write whole blocks. */
    CHECK_SUCCESS(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    for (int rep = 0; rep < REPS; rep++) {
        for (int i = 0; i < N; i++)
            buf[i] = 7000 + rank + 10 * rep;
        if (rank == 0)
            CHECK_SUCCESS(MPI_File_write_at(fh, 0, buf, N, MPI_INT, &st));
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            CHECK_SUCCESS(MPI_File_read_at(fh, 0, back, N, MPI_INT, &st));
            int v = back[0], bad = 0;
            for (int i = 1; i < N; i++)
                if (back[i] != v && bad++ == 0)
                    CHECK(0, "rep %d: read during writes saw a mix: %d then %d at int %d", rep, v,
                          back[i], i);
        } else {
            CHECK_SUCCESS(MPI_File_write_at(fh, 0, buf, N, MPI_INT, &st));
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* Back to nonatomic mode. */
    CHECK_SUCCESS(MPI_File_set_atomicity(fh, 0));
    CHECK_SUCCESS(MPI_File_get_atomicity(fh, &flag));
    CHECK_INT(flag, 0);
    CHECK_SUCCESS(MPI_File_close(&fh));
    MPI_Type_free(&every_other);
    free(buf);
    free(back);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);
    return mtest_finish();
}
