/* iotest.h - helpers shared by the MPI-IO test programs (header-only, C99, on top of mtest.h).
 *
 *   io_path(comm, tag, out)        a fresh file name, the same on every rank of comm (rank 0
 *                                  makes it and broadcasts it): $STMPI_IO_TESTDIR, else
 *                                  $TMPDIR, else /tmp, then stmpi-io-TAG-PID-N.
 *   io_byte(seed, i)               the reference byte at position i of a pattern.
 *   io_raw_read(path, off, buf, n) POSIX pread of the file, bypassing MPI: the number of bytes
 *                                  read (short at end of file), -1 when the file cannot be read.
 *   io_raw_write(path, off, buf, n) POSIX pwrite (creates the file); 0 on success.
 *   io_raw_size(path)              the file's size by stat, -1 when it does not exist.
 *   io_info(pairs...)              an info object from "key", "value", ..., NULL.
 *   io_info_value(info, key, out)  MPI_Info_get_string; 1 when the key is set.
 *   CHECK_BYTES(got, want, n)      compares two byte arrays, printing the first difference.
 */
#ifndef IOTEST_H_INCLUDED
#define IOTEST_H_INCLUDED

#include "mtest.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

static int io_path_counter = 0;

static inline void io_path(MPI_Comm comm, const char *tag, char out[512])
{
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        const char *dir = getenv("STMPI_IO_TESTDIR");
        if (dir == NULL || *dir == '\0')
            dir = getenv("TMPDIR");
        if (dir == NULL || *dir == '\0')
            dir = "/tmp";
        snprintf(out, 512, "%s/stmpi-io-%s-%ld-%d", dir, tag, (long)getpid(), io_path_counter);
    }
    io_path_counter++;
    MPI_Bcast(out, 512, MPI_CHAR, 0, comm);
}

static inline unsigned char io_byte(int seed, long i)
{
    return (unsigned char)(((unsigned)seed * 131u + (unsigned)i * 7u + ((unsigned)i >> 8) * 13u) %
                               251u +
                           1u);
}

static inline long io_raw_read(const char *path, long off, void *buf, long n)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    long done = 0;
    while (done < n) {
        ssize_t r = pread(fd, (char *)buf + done, (size_t)(n - done), off + done);
        if (r <= 0)
            break;
        done += r;
    }
    close(fd);
    return done;
}

static inline int io_raw_write(const char *path, long off, const void *buf, long n)
{
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    if (fd < 0)
        return -1;
    long done = 0;
    while (done < n) {
        ssize_t w = pwrite(fd, (const char *)buf + done, (size_t)(n - done), off + done);
        if (w <= 0)
            break;
        done += w;
    }
    close(fd);
    return done == n ? 0 : -1;
}

static inline long io_raw_size(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    return (long)st.st_size;
}

static inline MPI_Info io_info(const char *key, ...)
{
    MPI_Info info;
    MPI_Info_create(&info);
    va_list ap;
    va_start(ap, key);
    while (key != NULL) {
        const char *value = va_arg(ap, const char *);
        MPI_Info_set(info, key, value);
        key = va_arg(ap, const char *);
    }
    va_end(ap);
    return info;
}

static inline int io_info_value(MPI_Info info, const char *key, char out[MPI_MAX_INFO_VAL + 1])
{
    int len = MPI_MAX_INFO_VAL + 1, flag = 0;
    out[0] = '\0';
    if (MPI_Info_get_string(info, key, &len, out, &flag) != MPI_SUCCESS)
        return 0;
    return flag;
}

static inline long io_first_diff(const unsigned char *a, const unsigned char *b, long n)
{
    for (long i = 0; i < n; i++)
        if (a[i] != b[i])
            return i;
    return -1;
}

#define CHECK_BYTES(got, want, n)                                                                 \
    do {                                                                                          \
        const unsigned char *io_g_ = (const unsigned char *)(got);                                \
        const unsigned char *io_w_ = (const unsigned char *)(want);                               \
        long io_d_ = io_first_diff(io_g_, io_w_, (long)(n));                                      \
        if (io_d_ >= 0)                                                                           \
            mtest_fail(__FILE__, __LINE__, #got " == " #want,                                     \
                       "first difference at byte %ld of %ld: got 0x%02x, expected 0x%02x", io_d_, \
                       (long)(n), io_g_[io_d_], io_w_[io_d_]);                                    \
    } while (0)

#endif /* IOTEST_H_INCLUDED */
