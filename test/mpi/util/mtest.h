/* mtest.h - helpers shared by the MPI test programs (header-only, C99).
 *
 *   CHECK(cond, fmt, ...)        counts an error and prints file:line, rank, the
 *                                condition and the formatted values when cond is false.
 *   CHECK_INT(got, expected)     compares two integer expressions, printing both.
 *   CHECK_SUCCESS(rc)            rc must be MPI_SUCCESS (prints the error string).
 *   CHECK_ERR_CLASS(rc, class)   rc must be an error code of the given class.
 *   CHECK_ERR_STRING(rc, text)   MPI_Error_string(rc) must contain text (case-insensitive).
 *   CHECK_ERR_STRING_INT(rc, v)  MPI_Error_string(rc) must contain the decimal value v.
 *   mtest_init(&argc, &argv)     MPI_Init plus MPI_ERRORS_RETURN on MPI_COMM_WORLD and on
 *                                MPI_COMM_SELF (which handles errors not tied to a
 *                                valid communicator, e.g. comm == MPI_COMM_NULL).
 *   mtest_finish()               sums the error counts on rank 0, prints "No Errors" or
 *                                "Found N errors", finalizes MPI and returns the exit code.
 */
#ifndef MTEST_H_INCLUDED
#define MTEST_H_INCLUDED

#include <ctype.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mtest_errors = 0;
static int mtest_verbose_limit = 40; /* failure messages printed per process */

static inline int mtest_rank(void)
{
    int init = 0, fin = 0, rank = -1;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

static inline void mtest_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    mtest_errors++;
    if (mtest_errors > mtest_verbose_limit) {
        if (mtest_errors == mtest_verbose_limit + 1)
            fprintf(stderr, "[rank %d] further failure messages suppressed\n", mtest_rank());
        return;
    }
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s:%d: [rank %d] check failed: %s: %s\n", file, line, mtest_rank(), cond, msg);
    fflush(stderr);
}

#define CHECK(cond, ...)                                        \
    do {                                                        \
        if (!(cond))                                            \
            mtest_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
    } while (0)

#define CHECK_INT(got, expected)                                                             \
    do {                                                                                     \
        long long mtest_g_ = (long long)(got), mtest_e_ = (long long)(expected);             \
        if (mtest_g_ != mtest_e_)                                                            \
            mtest_fail(__FILE__, __LINE__, #got " == " #expected, "got %lld, expected %lld", \
                       mtest_g_, mtest_e_);                                                  \
    } while (0)

static inline const char *mtest_err_text(int code)
{
    static char buf[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    buf[0] = '\0';
    if (MPI_Error_string(code, buf, &len) != MPI_SUCCESS)
        snprintf(buf, sizeof buf, "(MPI_Error_string failed for code %d)", code);
    return buf;
}

static inline int mtest_err_class(int code)
{
    int cls = -1;
    if (MPI_Error_class(code, &cls) != MPI_SUCCESS)
        return -1;
    return cls;
}

#define CHECK_SUCCESS(rc)                                                                        \
    do {                                                                                         \
        int mtest_rc_ = (rc);                                                                    \
        if (mtest_rc_ != MPI_SUCCESS)                                                            \
            mtest_fail(__FILE__, __LINE__, #rc " == MPI_SUCCESS", "returned %d (%s)", mtest_rc_, \
                       mtest_err_text(mtest_rc_));                                               \
    } while (0)

#define CHECK_ERR_CLASS(rc, expected_class)                                                    \
    do {                                                                                       \
        int mtest_rc_ = (rc), mtest_cls_ = mtest_err_class(mtest_rc_);                         \
        if (mtest_rc_ == MPI_SUCCESS || mtest_cls_ != (expected_class))                        \
            mtest_fail(__FILE__, __LINE__, "class of " #rc " == " #expected_class,             \
                       "returned %d, class %d, expected class %d (%s)", mtest_rc_, mtest_cls_, \
                       (int)(expected_class),                                                  \
                       mtest_rc_ == MPI_SUCCESS ? "MPI_SUCCESS" : mtest_err_text(mtest_rc_));  \
    } while (0)

/* case-insensitive substring search */
static inline int mtest_contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return n == 0;
}

/* the decimal form of v appears in s, not as part of a longer number */
static inline int mtest_contains_int(const char *s, long long v)
{
    char num[32];
    size_t n = (size_t)snprintf(num, sizeof num, "%lld", v);
    for (const char *p = s; (p = strstr(p, num)) != NULL; p++) {
        int before_ok = (p == s) || !isdigit((unsigned char)p[-1]);
        if (v >= 0 && p != s && p[-1] == '-')
            before_ok = 0;
        int after_ok = !isdigit((unsigned char)p[n]);
        if (before_ok && after_ok)
            return 1;
    }
    return 0;
}

#define CHECK_ERR_STRING(rc, text)                                                    \
    do {                                                                              \
        const char *mtest_s_ = mtest_err_text(rc);                                    \
        if (!mtest_contains(mtest_s_, (text)))                                        \
            mtest_fail(__FILE__, __LINE__, "error string of " #rc " mentions " #text, \
                       "string is \"%s\"", mtest_s_);                                 \
    } while (0)

#define CHECK_ERR_STRING_INT(rc, value)                                                \
    do {                                                                               \
        const char *mtest_s_ = mtest_err_text(rc);                                     \
        if (!mtest_contains_int(mtest_s_, (long long)(value)))                         \
            mtest_fail(__FILE__, __LINE__, "error string of " #rc " mentions " #value, \
                       "expected %lld in \"%s\"", (long long)(value), mtest_s_);       \
    } while (0)

static inline void mtest_init(int *argc, char ***argv)
{
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Init failed\n");
        exit(1);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
}

/* Collective over MPI_COMM_WORLD. Returns the process exit code. */
static inline int mtest_finish(void)
{
    int total = 0, rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&mtest_errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
        fflush(stdout);
    }
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}

/* Deterministic pattern value for element i of a message from src with tag. */
static inline int mtest_pattern(int src, int tag, long i)
{
    return (int)((unsigned)src * 1000003u + (unsigned)tag * 7919u + (unsigned)i * 2654435761u);
}

#endif /* MTEST_H_INCLUDED */
