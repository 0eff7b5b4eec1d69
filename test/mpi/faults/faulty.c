/* Helper for the scripts in test/mpi/faults (not run on its own).
 * Usage: faulty MODE
 * One rank (the victim: rank 1, or rank 0 in a 1-rank job) fails in the way
 * MODE names while every other rank waits inside MPI for something that never
 * comes. Modes:
 *   abort         MPI_Abort(MPI_COMM_WORLD, 7)
 *   segv          a store through a null pointer
 *   fatal         MPI_Send to rank 99 under MPI_ERRORS_ARE_FATAL
 *   errors_abort  the same under MPI_ERRORS_ABORT
 *   exit3         exit(3) after MPI_Init
 *   nofinalize    return 0 from main without MPI_Finalize
 *   preinit       exit(0) before MPI_Init
 *   chatty        every rank prints lines until it is stopped (for a closed stdout)
 *   wait          nobody fails: every rank waits (for signals sent to mpiexec)
 *   kill_recv     rank 1 receives 64 MiB from rank 0 and SIGKILLs itself mid-transfer
 *   kill_send     rank 1 sends 64 MiB to rank 0 and SIGKILLs itself mid-transfer
 *   kill_lock     rank 1 holds an exclusive lock on rank 0's window and SIGKILLs
 *                 itself while the other ranks wait for the same lock
 *   win_nomem     not a fault: every rank checks that MPI_Win_allocate of 1 MiB
 *                 each fails with MPI_ERR_NO_MEM naming the /dev/shm segment and
 *                 the free space (run with a small /dev/shm), and that a small
 *                 window works afterwards; rank 0 prints "No Errors"
 * Prints "rank R: failing with MODE" (victim) before failing. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BIG (64 << 20)

static int win_nomem(int rank, int size)
{
    int *base, errors = 0, rc, cls, len;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Win win;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Win_allocate(1 << 20, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    if (cls != MPI_ERR_NO_MEM || !strstr(msg, "/dev/shm/stmpi-") || !strstr(msg, "MiB free of")) {
        fprintf(stderr, "rank %d: MPI_Win_allocate of 1 MiB: class %d (want %d): %s\n", rank, cls,
                MPI_ERR_NO_MEM, rc ? msg : "succeeded");
        ++errors;
    }
    if (rank == 0)
        printf("rank 0: MPI_Win_allocate of 1 MiB per rank: %s\n", msg);
    if (rc == MPI_SUCCESS)
        MPI_Win_free(&win);
    /* the job goes on: a small window works */
    rc = MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: small MPI_Win_allocate failed\n", rank);
        ++errors;
    } else {
        int one = rank + 1;
        *base = 0;
        MPI_Win_fence(0, win);
        MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_fence(0, win);
        if (rank == 0 && *base != size * (size + 1) / 2) {
            fprintf(stderr, "rank 0: accumulated %d, want %d\n", *base, size * (size + 1) / 2);
            ++errors;
        }
        MPI_Win_free(&win);
    }
    int total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return total != 0;
}

static void die_mid_transfer(MPI_Request *req, const char *mode, int rank)
{
    int done = 0;
    /* drive the transfer for a moment, then die while it is still going */
    for (int i = 0; i < 50 && !done; ++i)
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
    printf("rank %d: failing with %s (transfer %s)\n", rank, mode, done ? "done" : "in progress");
    fflush(stdout);
    raise(SIGKILL);
}

int main(int argc, char **argv)
{
    int rank, size, buf = 0;
    const char *mode = argc > 1 ? argv[1] : "abort";
    const char *env_rank = getenv("PMI_RANK");
    if (strcmp(mode, "preinit") == 0 && env_rank != NULL && atoi(env_rank) == 1) {
        printf("rank 1: failing with preinit\n");
        return 0;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int victim = size > 1 ? 1 : 0;
    if (strcmp(mode, "win_nomem") == 0)
        return win_nomem(rank, size);
    if (strcmp(mode, "chatty") == 0) {
        for (long i = 0;; ++i)
            printf("rank %d line %ld\n", rank, i);
    }
    if (strncmp(mode, "kill_", 5) == 0 && size > 1) {
        if (strcmp(mode, "kill_lock") == 0) {
            int *base;
            MPI_Win win;
            MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
            if (rank == victim)
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == victim) {
                usleep(300000); /* the others are queued behind the lock by now */
                printf("rank %d: failing with %s (holding the lock)\n", rank, mode);
                fflush(stdout);
                raise(SIGKILL);
            }
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
            fprintf(stderr, "rank %d: got the lock of a dead rank\n", rank);
            return 4;
        }
        char *big = malloc(BIG);
        memset(big, rank, BIG);
        MPI_Request req;
        int sender = strcmp(mode, "kill_send") == 0 ? victim : 0;
        int receiver = sender == victim ? 0 : victim;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == sender)
            MPI_Isend(big, BIG, MPI_BYTE, receiver, 0, MPI_COMM_WORLD, &req);
        if (rank == receiver)
            MPI_Irecv(big, BIG, MPI_BYTE, sender, 0, MPI_COMM_WORLD, &req);
        if (rank == victim)
            die_mid_transfer(&req, mode, rank);
        if (rank == sender || rank == receiver)
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        fprintf(stderr, "rank %d: MPI_Recv returned\n", rank);
        return 4;
    }
    /* everyone is inside MPI before the failure */
    MPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(mode, "abort_all") == 0) { /* every rank at once: none is left to be killed */
        printf("rank %d: failing with %s\n", rank, mode);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 5);
    }
    if (rank == victim && strcmp(mode, "wait") != 0) {
        usleep(200000); /* let the others block in MPI_Recv */
        printf("rank %d: failing with %s\n", rank, mode);
        fflush(stdout);
        if (strcmp(mode, "abort") == 0) {
            MPI_Abort(MPI_COMM_WORLD, 7);
        } else if (strcmp(mode, "segv") == 0) {
            volatile int *p = NULL;
            *p = 1;
        } else if (strcmp(mode, "fatal") == 0) {
            /* MPI_ERRORS_ARE_FATAL is the default handler on MPI_COMM_WORLD */
            MPI_Send(&buf, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
        } else if (strcmp(mode, "errors_abort") == 0) {
            /* the MPI 4.0 handler that aborts the processes of the communicator */
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ABORT);
            MPI_Send(&buf, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
        } else if (strcmp(mode, "exit3") == 0) {
            exit(3);
        } else if (strcmp(mode, "nofinalize") == 0) {
            return 0;
        }
        fprintf(stderr, "rank %d: still running after %s\n", rank, mode);
        return 3;
    }
    MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fprintf(stderr, "rank %d: MPI_Recv returned\n", rank);
    MPI_Finalize();
    return 4;
}
