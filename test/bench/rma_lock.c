/* Contended passive-target locking: every rank hammers rank 0's lock for a
 * fixed time.
 *   exclusive  MPI_Win_lock(EXCLUSIVE, 0) + MPI_Get of a counter + MPI_Put
 *              of counter+1 + MPI_Win_unlock (a read-modify-write that only
 *              mutual exclusion makes exact: checked at the end)
 *   shared     MPI_Win_lock(SHARED, 0) + MPI_Get of 8 bytes + unlock
 *   mixed      every 4th acquisition of a rank exclusive as above, the
 *              others shared
 * Output (rank 0, medians over trials):
 *   lockc MODE NPROCS ACQ_PER_S JAIN MIN_OVER_MAX MAX_STREAK MEAN_STREAK TRIALS
 *     ACQ_PER_S     acquisitions per second, all ranks together;
 *     JAIN          Jain's fairness index of the per-rank acquisition counts
 *                   ((sum x)^2 / (n sum x^2): 1 = all equal, 1/n = one rank
 *                   got everything);
 *     MIN_OVER_MAX  fewest / most acquisitions of a rank;
 *     MAX_STREAK, MEAN_STREAK (exclusive mode) the longest and the mean run
 *                   of consecutive grants to the same rank, from the counter
 *                   values read under the lock (a FIFO queue with everyone
 *                   waiting gives runs of 1).
 * Usage: rma_lock [-q] [-t TRIALS] [-d SECONDS] [-M MODES] */
#include <stddef.h>

#include "bench_common.h"

#define MAX_TICKETS 2000000

static int in_list(const char *list, const char *name) {
  const size_t n = strlen(name);
  for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
    if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
  return 0;
}

struct trial {
  double rate, jain, min_over_max, max_streak, mean_streak;
};

static struct trial run_trial(MPI_Win win, long *mem, int rank, int size, int mode, double seconds,
                              long *tickets) {
  struct trial t = {0, 0, 0, 0, 0};
  if (rank == 0) mem[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  long count = 0, exclusive_count = 0, value = 0;
  const double t0 = MPI_Wtime();
  double now = t0;
  while ((now = MPI_Wtime()) - t0 < seconds) {
    const int exclusive = mode == 0 || (mode == 2 && count % 4 == 0);
    MPI_Win_lock(exclusive ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get(&value, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
    if (exclusive) {
      MPI_Win_flush(0, win);
      if (mode == 0 && exclusive_count < MAX_TICKETS) tickets[exclusive_count] = value;
      value += 1;
      MPI_Put(&value, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
      ++exclusive_count;
    }
    MPI_Win_unlock(0, win);
    ++count;
  }
  const double elapsed = now - t0;
  long total = 0, total_exclusive = 0, lo = 0, hi = 0;
  double sq = 0, mine_sq = (double)count * count;
  MPI_Reduce(&count, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&count, &lo, 1, MPI_LONG, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&count, &hi, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&mine_sq, &sq, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&exclusive_count, &total_exclusive, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  double slowest = 0;
  MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    const long final = mem[0];
    MPI_Win_unlock(0, win);
    if (mode != 1 && final != total_exclusive)
      bench_fail("mutual exclusion failed: counter %ld after %ld exclusive increments", final,
                 total_exclusive);
    t.rate = total / slowest;
    t.jain = sq > 0 ? (double)total * total / (size * sq) : 0;
    t.min_over_max = hi > 0 ? (double)lo / hi : 0;
  }
  /* Grant order: who drew which counter value (point-to-point: the
   * benchmark needs nothing beyond MPI_Gather/Reduce). */
  if (mode == 0) {
    const long n = exclusive_count < MAX_TICKETS ? exclusive_count : MAX_TICKETS;
    if (rank != 0) {
      MPI_Send(&n, 1, MPI_LONG, 0, 7, MPI_COMM_WORLD);
      MPI_Send(tickets, (int)n, MPI_LONG, 0, 8, MPI_COMM_WORLD);
    } else {
      long sum = 0;
      long *counts = malloc(sizeof(long) * size);
      long **lists = malloc(sizeof(long *) * size);
      counts[0] = n;
      lists[0] = tickets;
      for (int r = 1; r < size; ++r) {
        MPI_Recv(&counts[r], 1, MPI_LONG, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        lists[r] = malloc(sizeof(long) * (counts[r] + 1));
        MPI_Recv(lists[r], (int)counts[r], MPI_LONG, r, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      for (int r = 0; r < size; ++r) sum += counts[r];
      int *owner = malloc(sizeof(int) * (sum + 1));
      for (long i = 0; i < sum; ++i) owner[i] = -1;
      for (int r = 0; r < size; ++r)
        for (long i = 0; i < counts[r]; ++i)
          if (lists[r][i] >= 0 && lists[r][i] < sum) owner[lists[r][i]] = r;
      long runs = 0, longest = 0, current = 0;
      for (long i = 0; i < sum; ++i) {
        if (i > 0 && owner[i] == owner[i - 1]) ++current;
        else current = 1, ++runs;
        if (current > longest) longest = current;
      }
      t.max_streak = (double)longest;
      t.mean_streak = runs > 0 ? (double)sum / runs : 0;
      for (int r = 1; r < size; ++r) free(lists[r]);
      free(lists);
      free(counts);
      free(owner);
    }
  }
  return t;
}

static double median_of(struct trial *t, int n, size_t offset) {
  double v[BENCH_MAX_TRIALS];
  for (int i = 0; i < n; ++i) v[i] = *(double *)((char *)&t[i] + offset);
  return bench_median(v, n);
}

int main(int argc, char **argv) {
  struct bench_opts o;
  double seconds = 0.5;
  const char *modes = "exclusive,shared,mixed";
  MPI_Init(&argc, &argv);
  bench_default_opts(&o);
  o.trials = 5;
  for (int i = 1; i < argc; ++i) {
    if (bench_common_arg(&o, argc, argv, &i)) {
      if (!strcmp(argv[i], "-q")) seconds = 0.2;
      continue;
    }
    if (!strcmp(argv[i], "-d") && i + 1 < argc) seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "-M") && i + 1 < argc) modes = argv[++i];
    else bench_fail("unknown argument '%s'", argv[i]);
  }
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long *mem;
  MPI_Win win;
  bench_check(
      MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win),
      "MPI_Win_allocate");
  long *tickets = malloc(sizeof(long) * MAX_TICKETS);
  if (rank == 0) {
    bench_print_header("rma_lock", &o);
    printf("# rma_lock: %d ranks hammer rank 0's lock for %.2f s per trial\n", size, seconds);
  }
  const char *names[3] = {"exclusive", "shared", "mixed"};
  for (int m = 0; m < 3; ++m) {
    if (!in_list(modes, names[m])) continue;
    struct trial t[BENCH_MAX_TRIALS];
    (void)run_trial(win, mem, rank, size, m, seconds / 4, tickets); /* warm-up */
    for (int k = 0; k < o.trials; ++k) t[k] = run_trial(win, mem, rank, size, m, seconds, tickets);
    if (rank == 0) {
      printf("lockc %s %d %.0f %.3f %.3f %.1f %.2f %d\n", names[m], size,
             median_of(t, o.trials, offsetof(struct trial, rate)),
             median_of(t, o.trials, offsetof(struct trial, jain)),
             median_of(t, o.trials, offsetof(struct trial, min_over_max)),
             median_of(t, o.trials, offsetof(struct trial, max_streak)),
             median_of(t, o.trials, offsetof(struct trial, mean_streak)), o.trials);
      fflush(stdout);
    }
  }
  if (rank == 0) printf("# rma_lock: done\n");
  fflush(stdout); /* seen by drivers that stop a run hung in MPI_Finalize */
  free(tickets);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
