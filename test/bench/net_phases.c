/* Where one synchronization epoch spends its time, phase by phase, between
 * ranks 0 (origin) and 1 (target); meant for 1 rank per node across nodes
 * (test/bench/net_run.sh, or mpiexec.hydra by hand), runs on one node too.
 *
 * Modes (-y, comma list):
 *   pscw   origin: MPI_Win_start, MPI_Put (8 B), MPI_Win_complete;
 *          target: MPI_Win_post, MPI_Win_wait
 *   lock   origin: MPI_Win_lock (exclusive), MPI_Put (8 B), MPI_Win_flush,
 *          MPI_Win_unlock (the flush is separate, so unlock is the release
 *          alone); the target waits in a barrier after the epochs
 *   lockp  the same without the flush: lock, put, unlock (what users write)
 * Each epoch's phases are timed with MPI_Wtime around each call; epochs run
 * back to back (-n EPOCHS, default 200), after -w warm-up epochs. Every
 * epoch's put is checked at the target at the end (the last value stays).
 *
 * Output, one line per phase (times in microseconds, over the epochs):
 *   phase MODE RANK NAME median_us p90_us max_us total_ms epochs
 * and per mode: epoch MODE median_us mean_us epochs (rank 0, whole epoch).
 *
 * Usage: net_phases [-y pscw,lock,lockp] [-n EPOCHS] [-w WARMUP] */
#include "bench_common.h"

#define MAX_PHASES 4

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void report(const char *mode, int rank, const char *name, double *t, int n) {
  double total = 0;
  for (int i = 0; i < n; ++i) total += t[i];
  qsort(t, (size_t)n, sizeof *t, cmp_double);
  printf("phase %s %d %s %.1f %.1f %.1f %.2f %d\n", mode, rank, name, t[n / 2] * 1e6,
         t[(n * 9) / 10] * 1e6, t[n - 1] * 1e6, total * 1e3, n);
}

static void run_mode(const char *mode, int rank, MPI_Win win, int64_t *winbuf, MPI_Group peer,
                     int epochs, int warmup) {
  const int pscw = strcmp(mode, "pscw") == 0;
  const int flush = strcmp(mode, "lock") == 0;
  const char *names[MAX_PHASES];
  int nphases = 0;
  if (pscw) {
    names[0] = rank == 0 ? "start" : "post";
    names[1] = rank == 0 ? "put" : "wait";
    names[2] = "complete";
    nphases = rank == 0 ? 3 : 2;
  } else if (rank == 0) {
    names[0] = "lock";
    names[1] = "put";
    names[2] = flush ? "flush" : "unlock";
    names[3] = "unlock";
    nphases = flush ? 4 : 3;
  }
  double *t = calloc((size_t)(MAX_PHASES + 1) * (size_t)epochs, sizeof(double));
  if (t == NULL) bench_fail("out of memory");
  int64_t value = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = -warmup; i < epochs; ++i) {
    double stamp[MAX_PHASES + 1];
    value = (int64_t)(i + warmup + 1) * 7;
    stamp[0] = MPI_Wtime();
    if (pscw && rank == 1) {
      bench_check(MPI_Win_post(peer, 0, win), "MPI_Win_post");
      stamp[1] = MPI_Wtime();
      bench_check(MPI_Win_wait(win), "MPI_Win_wait");
      stamp[2] = MPI_Wtime();
    } else if (pscw) {
      bench_check(MPI_Win_start(peer, 0, win), "MPI_Win_start");
      stamp[1] = MPI_Wtime();
      bench_check(MPI_Put(&value, 1, MPI_INT64_T, 1, 0, 1, MPI_INT64_T, win), "MPI_Put");
      stamp[2] = MPI_Wtime();
      bench_check(MPI_Win_complete(win), "MPI_Win_complete");
      stamp[3] = MPI_Wtime();
    } else if (rank == 0) {
      bench_check(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win), "MPI_Win_lock");
      stamp[1] = MPI_Wtime();
      bench_check(MPI_Put(&value, 1, MPI_INT64_T, 1, 0, 1, MPI_INT64_T, win), "MPI_Put");
      stamp[2] = MPI_Wtime();
      int k = 3;
      if (flush) {
        bench_check(MPI_Win_flush(1, win), "MPI_Win_flush");
        stamp[k++] = MPI_Wtime();
      }
      bench_check(MPI_Win_unlock(1, win), "MPI_Win_unlock");
      stamp[k] = MPI_Wtime();
    }
    if (i >= 0) {
      for (int p = 0; p < nphases; ++p) t[(size_t)p * epochs + i] = stamp[p + 1] - stamp[p];
      t[(size_t)MAX_PHASES * epochs + i] = nphases > 0 ? stamp[nphases] - stamp[0] : 0;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  /* The last put's value is in the target's window. */
  int64_t last = (int64_t)(epochs + warmup) * 7, seen = 0;
  if (rank == 1) {
    if (!pscw) MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    seen = winbuf[0];
    if (!pscw) MPI_Win_unlock(1, win);
    if (seen != last)
      bench_fail("%s: the target holds %lld, expected %lld", mode, (long long)seen,
                 (long long)last);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int r = 0; r < 2; ++r) {
    if (r == rank) {
      for (int p = 0; p < nphases; ++p)
        report(mode, rank, names[p], t + (size_t)p * epochs, epochs);
      if (rank == 0) {
        double *whole = t + (size_t)MAX_PHASES * epochs, sum = 0;
        for (int i = 0; i < epochs; ++i) sum += whole[i];
        qsort(whole, (size_t)epochs, sizeof *whole, cmp_double);
        printf("epoch %s %.1f %.1f %d\n", mode, whole[epochs / 2] * 1e6, sum / epochs * 1e6,
               epochs);
      }
      fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  free(t);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *modes = "pscw,lock,lockp";
  int epochs = 200, warmup = 10;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "-y") == 0 && i + 1 < argc) modes = argv[++i];
    else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) epochs = atoi(argv[++i]);
    else if (strcmp(argv[i], "-w") == 0 && i + 1 < argc) warmup = atoi(argv[++i]);
    else
      bench_fail("unknown argument '%s' (usage: net_phases [-y pscw,lock,lockp] [-n N] [-w N])",
                 argv[i]);
  }
  if (size != 2) bench_fail("net_phases needs exactly 2 ranks, got %d", size);
  if (epochs < 1 || warmup < 0) bench_fail("-n wants at least 1 epoch and -w at least 0");
  int64_t *winbuf = NULL;
  MPI_Win win;
  bench_check(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &winbuf, &win),
              "MPI_Win_allocate");
  memset(winbuf, 0, 64);
  MPI_Group world, peer;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const int other = 1 - rank;
  MPI_Group_incl(world, 1, &other, &peer);
  MPI_Barrier(MPI_COMM_WORLD);
  char list[256];
  snprintf(list, sizeof list, "%s", modes);
  for (char *save = NULL, *m = strtok_r(list, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
    if (strcmp(m, "pscw") && strcmp(m, "lock") && strcmp(m, "lockp"))
      bench_fail("unknown mode '%s' (pscw, lock, lockp)", m);
    memset(winbuf, 0, 64);
    MPI_Barrier(MPI_COMM_WORLD);
    run_mode(m, rank, win, winbuf, peer, epochs, warmup);
  }
  MPI_Group_free(&peer);
  MPI_Group_free(&world);
  MPI_Win_free(&win);
  if (rank == 0) printf("No Errors\n");
  MPI_Finalize();
  return 0;
}
