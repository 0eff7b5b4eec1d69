/* STMPI_IO_DIRECT_MIN_BYTES: under romio_cb_write = automatic, collective writes whose pieces
 * are on average at least that many bytes long on every process go directly to the file,
 * interleaved or not, those of shorter pieces through the aggregator. Which path ran is made
 * visible: every process but rank 0 (the only aggregator, cb_nodes = 1) lowers its RLIMIT_FSIZE
 * below the file range (SIGXFSZ ignored), so a direct write fails there with EFBIG
 * (MPI_ERR_NO_SPACE on every process, errors are agreed) while an aggregated one, all written by
 * rank 0, succeeds.
 *   - the control variable's value before any write is argv[1] (the testlist sets the
 *     environment variable) or the default 1024;
 *   - that value, then values written through MPI_T on every process: B + 1 (aggregated),
 *     B (direct: the bound is inclusive), 0 (direct), 1M (aggregated), each checked by the
 *     path's outcome; the aggregated writes' bytes are checked in the file;
 *   - interleaved pieces (a view of P-byte blocks, one per process in turn): direct at P,
 *     aggregated at P + 1, bytes checked after the aggregated write. */
#include "iotest.h"

#include <signal.h>
#include <sys/resource.h>

#define B (64L << 10)  /* bytes per process */
#define FAR (1L << 20) /* where the blocks start: above the lowered limit */
#define LIMIT (64L << 10)
#define P 4096L /* bytes per piece of the interleaved view */

static int cvar_index(const char *name)
{
    int index = -1;
    CHECK_INT(MPI_T_cvar_get_index(name, &index), MPI_SUCCESS);
    return index;
}

static unsigned long cvar_read(MPI_T_cvar_handle h)
{
    unsigned long v = 0;
    CHECK_INT(MPI_T_cvar_read(h, &v), MPI_SUCCESS);
    return v;
}

/* MPI_File_write_at_all of B bytes at `at` with every process but rank 0 under the lowered
 * file-size limit; a failure must be MPI_ERR_NO_SPACE. */
static int limited_write_all(MPI_File fh, MPI_Offset at, unsigned char *buf)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct rlimit saved, low;
    getrlimit(RLIMIT_FSIZE, &saved);
    low = saved;
    low.rlim_cur = LIMIT;
    if (rank != 0)
        CHECK(setrlimit(RLIMIT_FSIZE, &low) == 0, "setrlimit failed");
    int rc = MPI_File_write_at_all(fh, at, buf, (int)B, MPI_BYTE, MPI_STATUS_IGNORE);
    if (rank != 0)
        CHECK(setrlimit(RLIMIT_FSIZE, &saved) == 0, "restoring the limit failed");
    if (rc != MPI_SUCCESS)
        CHECK_ERR_CLASS(rc, MPI_ERR_NO_SPACE);
    return rc;
}

/* One collective write of B bytes per process with the parameter at `value`; returns whether
 * it went direct (failed on the processes with the lowered limit). */
static int write_went_direct(MPI_File fh, MPI_T_cvar_handle h, unsigned long value, int seed,
                             unsigned char *buf)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_INT(MPI_T_cvar_write(h, &value), MPI_SUCCESS);
    CHECK(cvar_read(h) == value, "the control variable did not take %lu", value);
    for (long i = 0; i < B; i++)
        buf[i] = io_byte(seed + rank, i);
    int rc = limited_write_all(fh, FAR + rank * B, buf);
    return rc != MPI_SUCCESS;
}

/* The same through a view of P-byte pieces, one per process in turn from FAR. */
static int interleaved_went_direct(MPI_File fh, MPI_T_cvar_handle h, unsigned long value, int seed,
                                   unsigned char *buf)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype piece, cycle;
    MPI_Type_contiguous((int)P, MPI_BYTE, &piece);
    MPI_Type_create_resized(piece, 0, P * size, &cycle);
    MPI_Type_commit(&cycle);
    CHECK_SUCCESS(MPI_File_set_view(fh, FAR + rank * P, MPI_BYTE, cycle, "native", MPI_INFO_NULL));
    CHECK_INT(MPI_T_cvar_write(h, &value), MPI_SUCCESS);
    for (long i = 0; i < B; i++)
        buf[i] = io_byte(seed + rank, i);
    int rc = limited_write_all(fh, 0, buf);
    CHECK_SUCCESS(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    MPI_Type_free(&cycle);
    MPI_Type_free(&piece);
    return rc != MPI_SUCCESS;
}

/* Piece i of process r holds bytes [i * P, (i + 1) * P) of its buffer. */
static void check_pieces(const char *path, int seed)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *got = malloc(P), *want = malloc(P);
    for (int r = 0; r < size; r++)
        for (long i = 0; i < B / P; i++) {
            for (long j = 0; j < P; j++)
                want[j] = io_byte(seed + r, i * P + j);
            CHECK_INT(io_raw_read(path, FAR + (i * size + r) * P, got, P), P);
            CHECK_BYTES(got, want, P);
        }
    free(got);
    free(want);
}

static void check_blocks(const char *path, int seed)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *got = malloc(B), *want = malloc(B);
    for (int r = 0; r < size; r++) {
        for (long i = 0; i < B; i++)
            want[i] = io_byte(seed + r, i);
        CHECK_INT(io_raw_read(path, FAR + r * B, got, B), B);
        CHECK_BYTES(got, want, B);
    }
    free(got);
    free(want);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv);
    int provided, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    signal(SIGXFSZ, SIG_IGN);
    CHECK_INT(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    MPI_T_cvar_handle h;
    int count = 0;
    CHECK_INT(MPI_T_cvar_handle_alloc(cvar_index("STMPI_IO_DIRECT_MIN_BYTES"), NULL, &h, &count),
              MPI_SUCCESS);
    CHECK_INT(count, 1);
    const unsigned long initial = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
    CHECK(cvar_read(h) == initial, "STMPI_IO_DIRECT_MIN_BYTES is %lu, expected %lu", cvar_read(h),
          initial);

    char path[512];
    io_path(MPI_COMM_WORLD, "direct", path);
    MPI_Info info = io_info("cb_nodes", "1", "romio_cb_write", "automatic", NULL);
    MPI_File fh;
    CHECK_SUCCESS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    unsigned char *buf = malloc(B);
    /* One process: never aggregated, never limited; the value still reads back. */
    const int several = size > 1;
    int direct = write_went_direct(fh, h, initial, 10, buf);
    CHECK_INT(direct, several && initial <= (unsigned long)B);
    direct = write_went_direct(fh, h, B + 1, 20, buf);
    CHECK_INT(direct, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    check_blocks(path, 20);
    MPI_Barrier(MPI_COMM_WORLD);
    direct = write_went_direct(fh, h, B, 30, buf);
    CHECK_INT(direct, several);
    direct = write_went_direct(fh, h, 0, 40, buf);
    CHECK_INT(direct, several);
    direct = write_went_direct(fh, h, 1UL << 20, 50, buf);
    CHECK_INT(direct, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    check_blocks(path, 50);
    MPI_Barrier(MPI_COMM_WORLD);
    direct = interleaved_went_direct(fh, h, P, 60, buf);
    CHECK_INT(direct, several);
    direct = interleaved_went_direct(fh, h, P + 1, 70, buf);
    CHECK_INT(direct, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    check_pieces(path, 70);
    CHECK_SUCCESS(MPI_File_close(&fh));
    unsigned long back = initial;
    CHECK_INT(MPI_T_cvar_write(h, &back), MPI_SUCCESS);
    CHECK_INT(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    CHECK_INT(MPI_T_finalize(), MPI_SUCCESS);
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK_SUCCESS(MPI_File_delete(path, MPI_INFO_NULL));
    return mtest_finish();
}
