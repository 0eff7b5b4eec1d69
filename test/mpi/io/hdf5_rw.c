/* Parallel HDF5 on top of MPI-IO: built with Debian's h5pcc.mpich (HDF5 1.10 compiled against
 * MPICH's ABI) and run on STMPI by test/clients/hdf5.sh. Writes four 2-D datasets, each rank
 * a block of rows or columns, in the four combinations of layout (contiguous, chunked) and
 * transfer (collective, independent); reopens the file and reads every dataset back in the
 * other transfer mode, each rank a block another rank wrote; rank 0 also writes the expected
 * contents of each dataset as raw little-endian files (PATH.DATASET.ref) that the script
 * compares with h5dump's binary output.
 * Usage: hdf5_rw PATH   (prints " No Errors" on success). */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 6  /* rows per rank */
#define COLS 10 /* columns per rank in the column-split datasets */

static int errors = 0;
#define CHECK(cond, ...)                                                             \
    do {                                                                             \
        if (!(cond)) {                                                               \
            errors++;                                                                \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
        }                                                                            \
    } while (0)

struct dset {
    const char *name;
    int chunked, collective, by_columns, is_double;
};

static const struct dset sets[] = {
    {"contig_coll", 0, 1, 0, 0},
    {"contig_ind", 0, 0, 1, 1},
    {"chunked_coll", 1, 1, 1, 0},
    {"chunked_ind", 1, 0, 0, 1},
};

static double value(int d, long r, long c) { return d * 1000000.0 + r * 1000.0 + c; }

/* The global shape and this rank's block of dataset d. */
static void shape(const struct dset *s, int rank, int nprocs, hsize_t dims[2], hsize_t start[2],
                  hsize_t count[2])
{
    if (s->by_columns) {
        dims[0] = ROWS;
        dims[1] = (hsize_t)COLS * nprocs;
        start[0] = 0;
        start[1] = (hsize_t)COLS * rank;
        count[0] = ROWS;
        count[1] = COLS;
    } else {
        dims[0] = (hsize_t)ROWS * nprocs;
        dims[1] = COLS;
        start[0] = (hsize_t)ROWS * rank;
        start[1] = 0;
        count[0] = ROWS;
        count[1] = COLS;
    }
}

static hid_t transfer(int collective)
{
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    return dxpl;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: hdf5_rw PATH\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *path = argv[1];
    const int nsets = (int)(sizeof sets / sizeof sets[0]);
    double *buf = malloc(sizeof(double) * ROWS * COLS);
    double *back = malloc(sizeof(double) * ROWS * COLS);

    /* Write. */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(file >= 0, "H5Fcreate(%s) failed", path);
    if (file < 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int d = 0; d < nsets; d++) {
        const struct dset *s = &sets[d];
        hsize_t dims[2], start[2], count[2];
        shape(s, rank, nprocs, dims, start, count);
        hid_t space = H5Screate_simple(2, dims, NULL);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        if (s->chunked) {
            hsize_t chunk[2] = {ROWS / 2, COLS / 2 + 1}; /* chunks straddle the rank blocks */
            H5Pset_chunk(dcpl, 2, chunk);
        }
        hid_t type = s->is_double ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT;
        hid_t ds = H5Dcreate2(file, s->name, s->is_double ? H5T_IEEE_F64LE : H5T_STD_I32LE, space,
                              H5P_DEFAULT, dcpl, H5P_DEFAULT);
        CHECK(ds >= 0, "H5Dcreate2(%s) failed", s->name);
        hid_t fspace = H5Dget_space(ds);
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
        hid_t mspace = H5Screate_simple(2, count, NULL);
        int *ibuf = (int *)buf;
        for (hsize_t i = 0; i < count[0]; i++)
            for (hsize_t j = 0; j < count[1]; j++) {
                double v = value(d, (long)(start[0] + i), (long)(start[1] + j));
                if (s->is_double)
                    buf[i * count[1] + j] = v + 0.25;
                else
                    ibuf[i * count[1] + j] = (int)v;
            }
        hid_t dxpl = transfer(s->collective);
        herr_t rc = H5Dwrite(ds, type, mspace, fspace, dxpl, buf);
        CHECK(rc >= 0, "H5Dwrite(%s) failed", s->name);
        H5Pclose(dxpl);
        H5Sclose(mspace);
        H5Sclose(fspace);
        H5Dclose(ds);
        H5Pclose(dcpl);
        H5Sclose(space);
        /* The reference for h5dump: the whole dataset, little-endian, row-major. */
        if (rank == 0) {
            char ref[1024];
            snprintf(ref, sizeof ref, "%s.%s.ref", path, s->name);
            FILE *f = fopen(ref, "wb");
            CHECK(f != NULL, "cannot write %s", ref);
            for (hsize_t i = 0; f && i < dims[0]; i++)
                for (hsize_t j = 0; j < dims[1]; j++) {
                    double v = value(d, (long)i, (long)j);
                    if (s->is_double) {
                        v += 0.25;
                        fwrite(&v, 8, 1, f);
                    } else {
                        int iv = (int)v;
                        fwrite(&iv, 4, 1, f);
                    }
                }
            if (f)
                fclose(f);
        }
    }
    CHECK(H5Fclose(file) >= 0, "H5Fclose after writing failed");

    /* Read back, the other transfer mode, the next rank's block. */
    file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    CHECK(file >= 0, "H5Fopen(%s) failed", path);
    int peer = (rank + 1) % nprocs;
    for (int d = 0; file >= 0 && d < nsets; d++) {
        const struct dset *s = &sets[d];
        hsize_t dims[2], start[2], count[2], got[2];
        shape(s, peer, nprocs, dims, start, count);
        hid_t ds = H5Dopen2(file, s->name, H5P_DEFAULT);
        CHECK(ds >= 0, "H5Dopen2(%s) failed", s->name);
        hid_t fspace = H5Dget_space(ds);
        H5Sget_simple_extent_dims(fspace, got, NULL);
        CHECK(got[0] == dims[0] && got[1] == dims[1], "%s has dims %llu x %llu", s->name,
              (unsigned long long)got[0], (unsigned long long)got[1]);
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
        hid_t mspace = H5Screate_simple(2, count, NULL);
        hid_t dxpl = transfer(!s->collective);
        memset(back, 0, sizeof(double) * ROWS * COLS);
        herr_t rc = H5Dread(ds, s->is_double ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT, mspace, fspace,
                            dxpl, back);
        CHECK(rc >= 0, "H5Dread(%s) failed", s->name);
        int bad = 0;
        for (hsize_t i = 0; i < count[0]; i++)
            for (hsize_t j = 0; j < count[1]; j++) {
                double v = value(d, (long)(start[0] + i), (long)(start[1] + j));
                double g =
                    s->is_double ? back[i * count[1] + j] : (double)((int *)back)[i * count[1] + j];
                if (s->is_double)
                    v += 0.25;
                if (g != v && bad++ < 3)
                    CHECK(0, "%s[%llu][%llu] read %g, expected %g", s->name,
                          (unsigned long long)(start[0] + i), (unsigned long long)(start[1] + j), g,
                          v);
            }
        H5Pclose(dxpl);
        H5Sclose(mspace);
        H5Sclose(fspace);
        H5Dclose(ds);
    }
    if (file >= 0)
        CHECK(H5Fclose(file) >= 0, "H5Fclose after reading failed");
    H5Pclose(fapl);
    free(buf);
    free(back);
    int total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total ? " Found %d errors\n" : " No Errors\n", total);
    MPI_Finalize();
    return total ? 1 : 0;
}
