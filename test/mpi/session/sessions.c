/* The Sessions Model without MPI_Init: MPI_Session_init with a thread
 * level, the process sets mpi://WORLD and mpi://SELF (names, lengths,
 * mpi_size), MPI_Group_from_session_pset, MPI_Comm_create_from_group and
 * traffic on it, session info and error handlers (a user handler is
 * called with the session and the code; MPI_ERRORS_RETURN returns it),
 * a second session at the same time, and MPI_Session_finalize. The result
 * is agreed over the session's world communicator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi.h"

static int errors = 0;
#define EXPECT(c, ...)                                      \
    do {                                                    \
        if (!(c)) {                                         \
            errors++;                                       \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                   \
            fprintf(stderr, "\n");                          \
        }                                                   \
    } while (0)

static int handler_calls = 0, handler_code = 0;
static MPI_Session handler_session = MPI_SESSION_NULL;
static void on_error(MPI_Session *s, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_session = *s;
}

static int err_class(int code)
{
    int c = -1;
    MPI_Error_class(code, &c);
    return c;
}

int main(void)
{
    MPI_Session session, second;
    MPI_Info info;
    int flag = -1;
    MPI_Initialized(&flag);
    EXPECT(flag == 0, "MPI_Initialized before anything: %d", flag);

    MPI_Info_create(&info);
    MPI_Info_set(info, "thread_level", "MPI_THREAD_MULTIPLE");
    EXPECT(MPI_Session_init(info, MPI_ERRORS_RETURN, &session) == MPI_SUCCESS, "Session_init");
    MPI_Info_free(&info);
    MPI_Initialized(&flag);
    EXPECT(flag == 0, "MPI_Initialized in a sessions-only program: %d", flag);

    int n = -1;
    EXPECT(MPI_Session_get_num_psets(session, MPI_INFO_NULL, &n) == MPI_SUCCESS && n >= 2,
           "num_psets %d", n);
    int found_world = 0, found_self = 0;
    for (int i = 0; i < n; i++) {
        int len = 0;
        MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, &len, NULL);
        char name[MPI_MAX_PSET_NAME_LEN];
        EXPECT(len > 0 && len < (int)sizeof name, "pset %d length %d", i, len);
        MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, &len, name);
        EXPECT((int)strlen(name) + 1 == len, "pset %d: %s, length %d", i, name, len);
        found_world |= strcmp(name, "mpi://WORLD") == 0;
        found_self |= strcmp(name, "mpi://SELF") == 0;
    }
    EXPECT(found_world && found_self, "WORLD and SELF not both listed");
    { /* a short buffer gets a truncated, terminated name and the full length */
        int len = 5;
        char name[5];
        MPI_Session_get_nth_pset(session, MPI_INFO_NULL, 0, &len, name);
        EXPECT(strlen(name) == 4 && len == 12, "truncated name %s, len %d", name, len);
    }

    MPI_Group wgroup, sgroup;
    EXPECT(MPI_Group_from_session_pset(session, "mpi://WORLD", &wgroup) == MPI_SUCCESS, "WORLD");
    EXPECT(MPI_Group_from_session_pset(session, "mpi://SELF", &sgroup) == MPI_SUCCESS, "SELF");
    int wsize, wrank, ssize;
    MPI_Group_size(wgroup, &wsize);
    MPI_Group_rank(wgroup, &wrank);
    MPI_Group_size(sgroup, &ssize);
    EXPECT(ssize == 1, "SELF size %d", ssize);
    MPI_Info pinfo;
    char value[64];
    MPI_Session_get_pset_info(session, "mpi://WORLD", &pinfo);
    MPI_Info_get(pinfo, "mpi_size", 63, value, &flag);
    EXPECT(flag && atoi(value) == wsize, "mpi_size %s, group size %d", value, wsize);
    MPI_Info_free(&pinfo);

    MPI_Comm comm, self;
    EXPECT(MPI_Comm_create_from_group(wgroup, "org.stmpi.test", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                      &comm) == MPI_SUCCESS,
           "create_from_group WORLD");
    EXPECT(MPI_Comm_create_from_group(sgroup, "org.stmpi.self", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                      &self) == MPI_SUCCESS,
           "create_from_group SELF");
    int csize, crank, sum = -1;
    MPI_Comm_size(comm, &csize);
    MPI_Comm_rank(comm, &crank);
    EXPECT(csize == wsize && crank == wrank, "comm %d/%d, group %d/%d", crank, csize, wrank, wsize);
    MPI_Allreduce(&crank, &sum, 1, MPI_INT, MPI_SUM, comm);
    EXPECT(sum == csize * (csize - 1) / 2, "allreduce %d", sum);
    int right = (crank + 1) % csize, left = (crank + csize - 1) % csize, got = -1;
    MPI_Sendrecv(&crank, 1, MPI_INT, right, 3, &got, 1, MPI_INT, left, 3, comm, MPI_STATUS_IGNORE);
    EXPECT(got == left, "ring got %d want %d", got, left);
    MPI_Comm_size(self, &ssize);
    EXPECT(ssize == 1, "self comm size %d", ssize);

    /* Session info reports the thread level */
    MPI_Info used;
    MPI_Session_get_info(session, &used);
    MPI_Info_get(used, "thread_level", 63, value, &flag);
    EXPECT(flag && strcmp(value, "MPI_THREAD_MULTIPLE") == 0, "thread_level %s", value);
    MPI_Info_free(&used);

    /* Errors go to the session's handler */
    int len = 0;
    int rc = MPI_Session_get_nth_pset(session, MPI_INFO_NULL, 99, &len, NULL);
    EXPECT(err_class(rc) == MPI_ERR_ARG, "bad index: class %d", err_class(rc));
    MPI_Group g;
    rc = MPI_Group_from_session_pset(session, "mpi://NOWHERE", &g);
    EXPECT(err_class(rc) == MPI_ERR_ARG, "bad pset: class %d", err_class(rc));
    MPI_Errhandler eh, cur;
    MPI_Session_create_errhandler(on_error, &eh);
    MPI_Session_set_errhandler(session, eh);
    MPI_Session_get_errhandler(session, &cur);
    EXPECT(cur == eh, "get_errhandler returned another handler");
    MPI_Errhandler_free(&cur);
    rc = MPI_Session_get_nth_pset(session, MPI_INFO_NULL, -1, &len, NULL);
    EXPECT(
        handler_calls == 1 && err_class(handler_code) == MPI_ERR_ARG && handler_session == session,
        "user handler calls %d", handler_calls);
    MPI_Session_call_errhandler(session, MPI_ERR_OTHER);
    EXPECT(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "call_errhandler");
    MPI_Session_set_errhandler(session, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);

    /* A second session at the same time */
    EXPECT(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &second) == MPI_SUCCESS,
           "second session");
    MPI_Group g2;
    MPI_Group_from_session_pset(second, "mpi://world", &g2); /* names ignore case */
    int cmp = -1;
    MPI_Group_compare(g2, wgroup, &cmp);
    EXPECT(cmp == MPI_IDENT, "WORLD groups differ");
    MPI_Group_free(&g2);
    EXPECT(MPI_Session_finalize(&second) == MPI_SUCCESS && second == MPI_SESSION_NULL,
           "finalize second");

    int total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, comm);
    if (crank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
        fflush(stdout);
    }
    MPI_Comm_free(&self);
    MPI_Comm_free(&comm);
    MPI_Group_free(&sgroup);
    MPI_Group_free(&wgroup);
    EXPECT(MPI_Session_finalize(&session) == MPI_SUCCESS, "finalize");
    return total == 0 && errors == 0 ? 0 : 1;
}
