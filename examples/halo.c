/* A 1-D heat-diffusion demo: each rank owns a slice of a rod, exchanges one
 * halo cell with each neighbour every step (Isend/Irecv), and the ranks agree
 * on the total heat with MPI_Allreduce. Heat is conserved (insulated ends),
 * so the program checks that the total stays what it was at the start. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CELLS 1000
#define STEPS 2000

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double *u = calloc(CELLS + 2, sizeof *u), *next = calloc(CELLS + 2, sizeof *next);
  for (int i = 1; i <= CELLS; ++i) u[i] = (rank == 0 && i <= 10) ? 100.0 : 0.0;
  const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

  double local = 0, start_total = 0;
  for (int i = 1; i <= CELLS; ++i) local += u[i];
  MPI_Allreduce(&local, &start_total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

  const double t0 = MPI_Wtime();
  for (int step = 0; step < STEPS; ++step) {
    MPI_Request req[4];
    MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&u[CELLS + 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&u[CELLS], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    if (left == MPI_PROC_NULL) u[0] = u[1]; /* insulated ends */
    if (right == MPI_PROC_NULL) u[CELLS + 1] = u[CELLS];
    for (int i = 1; i <= CELLS; ++i) next[i] = u[i] + 0.25 * (u[i - 1] - 2 * u[i] + u[i + 1]);
    double *t = u;
    u = next;
    next = t;
  }
  const double elapsed = MPI_Wtime() - t0;

  local = 0;
  for (int i = 1; i <= CELLS; ++i) local += u[i];
  double total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double mine = local, *all = rank == 0 ? malloc(size * sizeof *all) : NULL;
  MPI_Gather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int ok = fabs(total - start_total) < 1e-6 * start_total;
  if (rank == 0) {
    printf("halo demo: %d ranks x %d cells, %d steps in %.3f s\n", size, CELLS, STEPS, elapsed);
    for (int r = 0; r < size; ++r) printf("  rank %d holds %8.3f units of heat\n", r, all[r]);
    printf("total heat %.6f (start %.6f): %s\n", total, start_total,
           ok ? "conserved" : "NOT conserved");
    free(all);
  }
  free(u);
  free(next);
  MPI_Finalize();
  return ok ? 0 : 1;
}
