/* MPI_Session_create_errhandler before MPI_Init and before any session (it
 * has to be: MPI_Session_init takes the handler as an argument); the handler
 * is then called by MPI_Session_call_errhandler with the session and the
 * code, exactly once. Without MPI_Init: sessions only. */
#include <mpi.h>
#include <stdio.h>

static int calls, errs;
static MPI_Session expected;

static void handler(MPI_Session *session, int *code, ...)
{
    if (*session != expected) {
        fprintf(stderr, "handler got another session\n");
        errs++;
    }
    if (*code != MPI_ERR_OTHER) {
        fprintf(stderr, "handler got code %d, want MPI_ERR_OTHER\n", *code);
        errs++;
    }
    calls++;
}

int main(void)
{
    MPI_Errhandler eh;
    MPI_Session session;
    if (MPI_Session_create_errhandler(handler, &eh) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Session_create_errhandler before any session failed\n");
        return 1;
    }
    if (MPI_Session_init(MPI_INFO_NULL, eh, &session) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Session_init with that handler failed\n");
        return 1;
    }
    expected = session;
    MPI_Session_call_errhandler(session, MPI_ERR_OTHER);
    if (calls != 1) {
        fprintf(stderr, "the handler ran %d times, want 1\n", calls);
        errs++;
    }
    MPI_Errhandler_free(&eh);
    if (eh != MPI_ERRHANDLER_NULL) {
        fprintf(stderr, "MPI_Errhandler_free left the handle set\n");
        errs++;
    }
    MPI_Session_finalize(&session);
    if (errs == 0)
        printf(" No Errors\n");
    else
        printf(" Found %d errors\n", errs);
    return errs != 0;
}
