/* The argument checks of the MPIX_ window calls (generated from
 * maint/mpix.spec like every MPI call's): a bad window is MPI_ERR_WIN, a NULL
 * output MPI_ERR_ARG naming it, a bad group MPI_ERR_GROUP; errors go to the
 * window's error handler; MPIX_Win_get_stream_trigger_stats takes
 * MPI_WIN_NULL (the whole process) and checks its size. The values are
 * checked too: every rank locks every rank once, so each window counts
 * `size` acquisitions; a window without stream epochs counts none. */
#include "mtest.h"

static int win_errors = 0;
static int win_last_class = MPI_SUCCESS;

static void count_win_errors(MPI_Win *win, int *code, ...) {
  (void)win;
  win_errors++;
  MPI_Error_class(*code, &win_last_class);
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv);
  int rank, size, rc;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  long *mem;
  MPI_Win win;
  CHECK_SUCCESS(
      MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  MPI_Errhandler handler;
  CHECK_SUCCESS(MPI_Win_create_errhandler(count_win_errors, &handler));
  CHECK_SUCCESS(MPI_Win_set_errhandler(win, handler));

  /* Values: one exclusive lock of each rank. */
  for (int target = 0; target < size; target++) {
    long one = 1;
    CHECK_SUCCESS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
    CHECK_SUCCESS(MPI_Accumulate(&one, 1, MPI_LONG, target, 0, 1, MPI_LONG, MPI_SUM, win));
    CHECK_SUCCESS(MPI_Win_unlock(target, win));
  }
  long long acquisitions = -1, remote = -1, most = -1, waited = -1;
  CHECK_SUCCESS(MPIX_Win_get_lock_stats(win, &acquisitions, &remote));
  CHECK_SUCCESS(MPIX_Win_get_lock_stats_max(win, &most, &waited));
  CHECK_INT((int)acquisitions, size);
  CHECK(remote >= 0 && most >= 0 && most <= remote, "remote atomics: total %lld, most %lld", remote,
        most);
  CHECK(waited >= 0 && waited <= acquisitions, "waited %lld of %lld", waited, acquisitions);

  long long epochs = -1, signals = -1, copies = -1, waits = -1, pending = -1;
  CHECK_SUCCESS(MPIX_Win_get_stream_stats(win, &epochs, &signals, &copies, &waits));
  CHECK(epochs == 0 && signals == 0 && copies == 0 && waits == 0,
        "a window without stream epochs: %lld epochs, %lld/%lld/%lld launches", epochs, signals,
        copies, waits);
  CHECK_SUCCESS(MPIX_Win_get_stream_pending(win, &pending));
  CHECK_INT((int)pending, 0);
  MPIX_Stream_trigger_stats t;
  memset(&t, 0xff, sizeof t);
  CHECK_SUCCESS(MPIX_Win_get_stream_trigger_stats(win, &t, (int)sizeof t));
  CHECK(t.posted == 0 && t.fired == 0, "window triggers: %lld posted, %lld fired", t.posted,
        t.fired);
  /* MPI_WIN_NULL: the whole process (no stream epochs here either). */
  memset(&t, 0xff, sizeof t);
  CHECK_SUCCESS(MPIX_Win_get_stream_trigger_stats(MPI_WIN_NULL, &t, (int)sizeof t));
  CHECK(t.posted == 0 && t.software_fired == 0, "process triggers: %lld posted", t.posted);
  /* An older, shorter struct: only its bytes are written. */
  long long first_two[3] = {-1, -1, 42};
  CHECK_SUCCESS(MPIX_Win_get_stream_trigger_stats(win, (MPIX_Stream_trigger_stats *)first_two,
                                                  (int)(2 * sizeof(long long))));
  CHECK(first_two[0] == 0 && first_two[1] == 0 && first_two[2] == 42,
        "size 16 wrote %lld %lld %lld", first_two[0], first_two[1], first_two[2]);

  /* Errors on the window go to its handler. */
  rc = MPIX_Win_get_lock_stats(win, NULL, &remote);
  CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
  CHECK_ERR_STRING(rc, "acquisitions pointer is NULL");
  rc = MPIX_Win_get_lock_stats_max(win, &most, NULL);
  CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
  CHECK_ERR_STRING(rc, "waited pointer is NULL");
  rc = MPIX_Win_get_stream_stats(win, &epochs, &signals, NULL, &waits);
  CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
  CHECK_ERR_STRING(rc, "copy_launches pointer is NULL");
  rc = MPIX_Win_get_stream_trigger_stats(win, NULL, (int)sizeof t);
  CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
  CHECK_ERR_STRING(rc, "stats pointer is NULL");
  rc = MPIX_Win_get_stream_trigger_stats(win, &t, 0);
  CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
  CHECK_ERR_STRING(rc, "size=0");
  rc = MPIX_Win_get_stream_trigger_stats(win, &t, 12);
  CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
  CHECK_ERR_STRING(rc, "size=12");
  rc = MPIX_Win_post_stream(MPI_GROUP_NULL, win, NULL);
  CHECK_ERR_CLASS(rc, MPI_ERR_GROUP);
  CHECK_ERR_STRING(rc, "group is MPI_GROUP_NULL");
  CHECK_INT(win_errors, 7);
  CHECK_INT(win_last_class, MPI_ERR_GROUP);

  /* A bad window: MPI_COMM_SELF's handler (errors return, mtest_init). */
  rc = MPIX_Win_get_lock_stats(MPI_WIN_NULL, &acquisitions, &remote);
  CHECK_ERR_CLASS(rc, MPI_ERR_WIN);
  CHECK_ERR_STRING(rc, "win is MPI_WIN_NULL");
  rc = MPIX_Win_get_stream_pending(MPI_WIN_NULL, &pending);
  CHECK_ERR_CLASS(rc, MPI_ERR_WIN);
  /* The window is checked before the group and the outputs. */
  rc = MPIX_Win_post_stream(MPI_GROUP_NULL, MPI_WIN_NULL, NULL);
  CHECK_ERR_CLASS(rc, MPI_ERR_WIN);
  rc = MPIX_Win_complete_stream(MPI_WIN_NULL, NULL);
  CHECK_ERR_CLASS(rc, MPI_ERR_WIN);
  rc = MPIX_Win_wait_stream(MPI_WIN_NULL, NULL);
  CHECK_ERR_CLASS(rc, MPI_ERR_WIN);
  rc = MPIX_Win_get_stream_stats(MPI_WIN_NULL, NULL, NULL, NULL, NULL);
  CHECK_ERR_CLASS(rc, MPI_ERR_WIN);
  CHECK_INT(win_errors, 7);

  /* Host stream statistics: every output may be NULL; the stream may not. */
  MPIX_Host_stream stream;
  CHECK_SUCCESS(MPIX_Host_stream_create(&stream));
  CHECK_SUCCESS(MPIX_Host_stream_get_stats(stream, NULL, NULL, NULL, NULL, NULL, NULL));
  long long queued = -1;
  CHECK_SUCCESS(MPIX_Host_stream_get_stats(stream, &queued, NULL, NULL, NULL, NULL, NULL));
  CHECK_INT((int)queued, 0);
  rc = MPIX_Host_stream_get_stats(NULL, &queued, NULL, NULL, NULL, NULL, NULL);
  CHECK_ERR_CLASS(rc, MPI_ERR_ARG);
  CHECK_ERR_STRING(rc, "stream is NULL");
  CHECK_SUCCESS(MPIX_Host_stream_free(&stream));

  CHECK_SUCCESS(MPI_Win_free(&win));
  CHECK_SUCCESS(MPI_Errhandler_free(&handler));
  return mtest_finish();
}
