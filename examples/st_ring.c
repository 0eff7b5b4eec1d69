/* Stream-triggered halo exchange on a ring of ranks: a periodic 1-D rod,
 * each rank owning CELLS cells. Every step is one stream-triggered epoch:
 * the rank puts its two edge cells into its neighbours' ghost cells, and a
 * stencil "kernel" on the same host stream updates its cells. The CPU
 * enqueues all STEPS steps and synchronizes the stream once at the end.
 *
 * The same steps are also run with ordinary PSCW (the CPU waits every step)
 * for comparison, ROUNDS times each, alternating which goes first; the
 * times are medians. Rank 0 recomputes the whole rod serially: all three
 * must agree bit for bit, and the heat must be conserved.
 *
 * On host streams the synchronizing thread runs the queued steps itself
 * ("caller runs") while the stream's own thread runs them when the CPU is
 * busy elsewhere; the last line says who ran what. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CELLS 1000
#define STEPS 2000
#define ROUNDS 3

struct rod {
  double cells[2][CELLS]; /* step s reads cells[s % 2] and writes the other */
  double *ghost;          /* window memory: [0] from the left, [1] from the right */
  int step;
};

static void init(struct rod *r, int rank) {
  memset(r->cells, 0, sizeof r->cells);
  if (rank == 0)
    for (int i = 0; i < 10; i++) r->cells[0][i] = 100.0;
  r->step = 0;
}

static double median3(double v[ROUNDS]) {
  double a = v[0], b = v[1], c = v[2];
  return a > b ? (b > c ? b : a > c ? c : a) : (a > c ? a : b > c ? c : b);
}

static void stencil(double *next, const double *u, double left, double right) {
  for (int i = 0; i < CELLS; i++) {
    double l = i == 0 ? left : u[i - 1], r = i == CELLS - 1 ? right : u[i + 1];
    next[i] = u[i] + 0.25 * (l - 2 * u[i] + r);
  }
}

static void stencil_kernel(void *arg) /* runs on the stream, after the halo arrived */
{
  struct rod *r = arg;
  stencil(r->cells[(r->step + 1) % 2], r->cells[r->step % 2], r->ghost[0], r->ghost[1]);
  r->step++;
}

/* One step's puts: the edge cells of the current buffer into the
 * neighbours' ghosts. With MPIX_MODE_STREAM they are read when the stream
 * runs the epoch, i.e. after the previous step's kernel wrote them. */
static void put_edges(struct rod *r, int step, int left, int right, MPI_Win win) {
  double *u = r->cells[step % 2];
  MPI_Put(&u[0], 1, MPI_DOUBLE, left, 1, 1, MPI_DOUBLE, win);
  MPI_Put(&u[CELLS - 1], 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE, win);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  int nbrs[2] = {left, right};
  MPI_Group world, group;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, left == right ? 1 : 2, nbrs, &group);

  static struct rod st, ref;
  MPI_Win st_win, ref_win;
  MPI_Win_allocate(2 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &st.ghost,
                   &st_win);
  MPI_Win_allocate(2 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &ref.ghost,
                   &ref_win);
  init(&st, rank);
  init(&ref, rank);
  MPIX_Host_stream stream;
  MPIX_Host_stream_create(&stream);
  MPI_Barrier(MPI_COMM_WORLD);

  double st_times[ROUNDS], pscw_times[ROUNDS], enqueue_times[ROUNDS];
  long long ops0[6], ops1[6];
  MPIX_Host_stream_get_stats(stream, &ops0[0], &ops0[1], &ops0[2], &ops0[3], &ops0[4], &ops0[5]);
  for (int round = 0; round < ROUNDS; round++) {
    init(&st, rank);
    init(&ref, rank);
    for (int k = 0; k < 2; k++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      if ((k + round) % 2 == 0) {
        /* Stream-triggered: every call returns at once. */
        for (int s = 0; s < STEPS; s++) {
          MPIX_Win_post_stream(group, st_win, stream);
          MPI_Win_start(group, MPIX_MODE_STREAM, st_win);
          put_edges(&st, s, left, right, st_win);
          MPIX_Win_complete_stream(st_win, stream);
          MPIX_Win_wait_stream(st_win, stream);
          MPIX_Host_stream_launch(stream, stencil_kernel, &st);
        }
        enqueue_times[round] = MPI_Wtime() - t0;
        MPIX_Host_stream_synchronize(stream);
        st_times[round] = MPI_Wtime() - t0;
      } else {
        /* The same with ordinary PSCW: the CPU waits for every epoch. */
        for (int s = 0; s < STEPS; s++) {
          MPI_Win_post(group, 0, ref_win);
          MPI_Win_start(group, 0, ref_win);
          put_edges(&ref, s, left, right, ref_win);
          MPI_Win_complete(ref_win);
          MPI_Win_wait(ref_win);
          stencil_kernel(&ref);
        }
        pscw_times[round] = MPI_Wtime() - t0;
      }
    }
  }
  MPIX_Host_stream_get_stats(stream, &ops1[0], &ops1[1], &ops1[2], &ops1[3], &ops1[4], &ops1[5]);
  long long epochs, signals, copies, waits;
  MPIX_Win_get_stream_stats(st_win, &epochs, &signals, &copies, &waits);
  /* The slowest rank's times, medians over the rounds. */
  MPI_Allreduce(MPI_IN_PLACE, st_times, ROUNDS, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, pscw_times, ROUNDS, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, enqueue_times, ROUNDS, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const double st_time = median3(st_times), pscw_time = median3(pscw_times),
               enqueued = median3(enqueue_times);

  /* Rank 0 recomputes the whole rod serially and compares. */
  const double *mine = st.cells[STEPS % 2];
  double *all = rank == 0 ? malloc(sizeof(double) * CELLS * size) : NULL;
  MPI_Gather(mine, CELLS, MPI_DOUBLE, all, CELLS, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int same_as_pscw = memcmp(mine, ref.cells[STEPS % 2], sizeof(double) * CELLS) == 0, all_same;
  MPI_Allreduce(&same_as_pscw, &all_same, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  int ok = 1;
  if (rank == 0) {
    const int n = CELLS * size;
    double *u = calloc(n, sizeof *u), *next = calloc(n, sizeof *next), heat = 0, max_diff = 0;
    for (int i = 0; i < 10; i++) u[i] = 100.0;
    for (int s = 0; s < STEPS; s++) {
      for (int i = 0; i < n; i++)
        next[i] = u[i] + 0.25 * (u[(i + n - 1) % n] - 2 * u[i] + u[(i + 1) % n]);
      double *t = u;
      u = next;
      next = t;
    }
    for (int i = 0; i < n; i++) {
      heat += all[i];
      max_diff = fmax(max_diff, fabs(all[i] - u[i]));
    }
    ok = max_diff == 0 && all_same && fabs(heat - 1000.0) < 1e-9;
    printf(
        "st_ring: %d ranks x %d cells, %d steps; every step one stream-triggered epoch "
        "on a host stream (medians of %d rounds, ST and PSCW alternating)\n",
        size, CELLS, STEPS, ROUNDS);
    printf("  CPU enqueued all steps in %.3f s (%.1f us per step) and synchronized once\n",
           enqueued, 1e6 * enqueued / STEPS);
    printf("  time per step: stream-triggered %.1f us, ordinary PSCW %.1f us (ST/PSCW %.2f)\n",
           1e6 * st_time / STEPS, 1e6 * pscw_time / STEPS, st_time / pscw_time);
    printf("  launches per step at rank 0: %.0f signal, %.0f copy, %.0f wait (%lld epochs)\n",
           (double)signals / (STEPS * ROUNDS), (double)copies / (STEPS * ROUNDS),
           (double)waits / (STEPS * ROUNDS), epochs);
    const double per = (double)STEPS * ROUNDS;
    printf(
        "  stream operations per step at rank 0: %.2f queued; run by the stream's thread "
        "%.2f, by the synchronizing thread %.2f, at enqueue %.2f; %.3f hand-offs and %.3f "
        "wake-ups of the stream's thread\n",
        (ops1[0] - ops0[0]) / per, (ops1[1] - ops0[1]) / per, (ops1[2] - ops0[2]) / per,
        (ops1[3] - ops0[3]) / per, (ops1[4] - ops0[4]) / per, (ops1[5] - ops0[5]) / per);
    printf("  result: %s serial recomputation (max difference %g), %s PSCW; heat %.9f (%s)\n",
           max_diff == 0 ? "identical to the" : "DIFFERS from the", max_diff,
           all_same ? "identical to" : "DIFFERS from", heat,
           fabs(heat - 1000.0) < 1e-9 ? "conserved" : "NOT conserved");
    printf("%s\n", ok ? "OK" : "FAILED");
    free(u);
    free(next);
    free(all);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);

  MPIX_Host_stream_free(&stream);
  MPI_Win_free(&st_win);
  MPI_Win_free(&ref_win);
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  MPI_Finalize();
  return ok ? 0 : 1;
}
