/* badargs.h - the bad-argument sweep's harness (header-only, C99).
 *
 * Each EXPECT is one case: a call with one invalid argument, the error class
 * it must return under MPI_ERRORS_RETURN, and a word its message must contain
 * (the argument's name). EXPECT_OK is a legal call near the edge (MPI_IN_PLACE
 * where allowed, an argument that is not significant) that must succeed.
 *
 *   prog              runs every case, counts failures like any test (mtest.h)
 *   prog --count      prints "BADARGS cases=N" and runs none
 *   prog --case K     runs case K only and prints one line per rank:
 *                     "BADARGS case=K rank=R outcome=right|wrong-class|wrong-message|success"
 *                     (sweep.sh runs each case in its own job: a crash or a hang
 *                     then costs one case, and is counted as such)
 *
 * A collective case must fail on every process (or on none), else the
 * processes that passed the checks wait forever for the others. */
#ifndef BADARGS_H_INCLUDED
#define BADARGS_H_INCLUDED

#include "mtest.h"

static int ba_next = 0;  /* number of the next case */
static int ba_only = -1; /* run only this case */
static int ba_count_only = 0;

static inline void ba_init(int *argc, char ***argv)
{
    mtest_init(argc, argv);
    for (int i = 1; i < *argc; ++i) {
        if (strcmp((*argv)[i], "--count") == 0)
            ba_count_only = 1;
        else if (strcmp((*argv)[i], "--case") == 0 && i + 1 < *argc)
            ba_only = atoi((*argv)[++i]);
    }
}

static inline int ba_selected(void)
{
    int k = ba_next++;
    return !ba_count_only && (ba_only < 0 || ba_only == k);
}

static inline void ba_report(int line, const char *expr, int rc, int expected_class,
                             const char *text)
{
    const char *outcome = "right";
    if (expected_class == MPI_SUCCESS) {
        if (rc != MPI_SUCCESS)
            outcome = "wrong-class";
    } else if (rc == MPI_SUCCESS) {
        outcome = "success";
    } else if (mtest_err_class(rc) != expected_class) {
        outcome = "wrong-class";
    } else if (text != NULL && !mtest_contains(mtest_err_text(rc), text)) {
        outcome = "wrong-message";
    }
    if (ba_only >= 0) {
        printf("BADARGS case=%d rank=%d outcome=%s line=%d\n", ba_next - 1, mtest_rank(), outcome,
               line);
        fflush(stdout);
    }
    if (strcmp(outcome, "right") != 0)
        mtest_fail(__FILE__, line, expr, "%s: returned %d (%s), expected class %d mentioning '%s'",
                   outcome, rc, rc == MPI_SUCCESS ? "MPI_SUCCESS" : mtest_err_text(rc),
                   expected_class, text ? text : "");
}

#define EXPECT(expected_class, text, expr)                                \
    do {                                                                  \
        if (ba_selected()) {                                              \
            int ba_rc_ = (expr);                                          \
            ba_report(__LINE__, #expr, ba_rc_, (expected_class), (text)); \
        }                                                                 \
    } while (0)
#define EXPECT_OK(expr) EXPECT(MPI_SUCCESS, NULL, expr)

/* A case that must succeed and produce a value: VALUE(call, got, expected)
 * is MPI_SUCCESS when the call succeeds and then `got` equals `expected`,
 * else MPI_ERR_OTHER (reported as a wrong class) after printing both. */
static int ba_call_rc;
#define VALUE(call, got, expected) \
    (ba_call_rc = (call), ba_value(ba_call_rc, (long long)(got), (long long)(expected), #got))
static inline int ba_value(int rc, long long got, long long expected, const char *what)
{
    if (rc != MPI_SUCCESS)
        return rc;
    if (got == expected)
        return MPI_SUCCESS;
    fprintf(stderr, "[rank %d] %s is %lld, expected %lld\n", mtest_rank(), what, got, expected);
    return MPI_ERR_OTHER;
}

static inline int ba_finish(void)
{
    if (ba_count_only) {
        if (mtest_rank() == 0)
            printf("BADARGS cases=%d\n", ba_next);
        MPI_Finalize();
        return 0;
    }
    return mtest_finish();
}

#endif
