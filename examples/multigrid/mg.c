/* multigrid: HPGMG-FV's communication (an F-cycle over a hierarchy of box
 * levels, boundary exchanges, restriction and interpolation between levels)
 * in several communication variants, each timed per level and per cycle and
 * verified against a serial solve of the same problem. See README.md. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg.h"

#define MAX_REPS 101

static int world_rank;

void mg_fail(const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  fprintf(stderr, "multigrid: error (rank %d): %s\n", world_rank, what);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

static const struct comm_ops *const all_variants[] = {
    &mg_comm_mpi,        &mg_comm_cpu,   &mg_comm_enqueue,
    &mg_comm_persistent, &mg_comm_strma, &mg_comm_stepoch,
};
#define NVARIANTS (int)(sizeof all_variants / sizeof all_variants[0])

struct options {
  int variant[NVARIANTS], nvariant;
  int log2_box, boxes, nu, bottom, vcycles, reps, warmup, verify;
};

static void usage(void) {
  if (world_rank == 0)
    fprintf(stderr,
            "usage: multigrid [--variant mpi,cpu,enqueue,persistent,strma,stepoch|all]\n"
            "       [--log2-box K] [--boxes N] [--nu N] [--bottom N] [--vcycles N] [--reps N] "
            "[--warmup N]\n"
            "       [--no-verify]\n");
  MPI_Finalize();
  exit(2);
}

static void parse_variants(struct options *o, const char *list) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", list);
  o->nvariant = 0;
  for (char *save, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
    int found = 0;
    for (int v = 0; v < NVARIANTS; ++v) {
      if (strcmp(w, "all") && strcmp(w, all_variants[v]->name)) continue;
      found = 1;
      int listed = 0;
      for (int i = 0; i < o->nvariant; ++i) listed |= o->variant[i] == v;
      if (!listed) o->variant[o->nvariant++] = v;
    }
    if (!found) usage();
  }
}

static void parse(struct options *o, int argc, char **argv) {
  *o = (struct options){{0}, 0, 4, 8, 2, 24, 1, 5, 1, 1};
  parse_variants(o, "all");
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--no-verify")) {
      o->verify = 0;
      continue;
    }
    if (i + 1 >= argc) usage();
    const char *v = argv[++i];
    int n = atoi(v);
    if (!strcmp(a, "--variant")) parse_variants(o, v);
    else if (!strcmp(a, "--log2-box")) o->log2_box = n;
    else if (!strcmp(a, "--boxes")) o->boxes = n;
    else if (!strcmp(a, "--nu")) o->nu = n;
    else if (!strcmp(a, "--bottom")) o->bottom = n;
    else if (!strcmp(a, "--vcycles")) o->vcycles = n;
    else if (!strcmp(a, "--reps")) o->reps = n;
    else if (!strcmp(a, "--warmup")) o->warmup = n;
    else usage();
  }
  if (o->log2_box < 2 || o->log2_box > 10 || o->boxes < 1 || o->nu < 0 || o->bottom < 1 ||
      o->vcycles < 0 || o->reps < 1 || o->reps > MAX_REPS || o->warmup < 0)
    usage();
}

static void mg_setup(struct mg *mg, const struct options *o, int rank, int size, MPI_Comm comm) {
  memset(mg, 0, sizeof *mg);
  mg->rank = rank, mg->size = size, mg->comm = comm;
  mg->log2_box = o->log2_box, mg->nu = o->nu, mg->bottom_sweeps = o->bottom;
  mg->vcycles = o->vcycles;
  MPI_Dims_create(size, 3, mg->pr);
  MPI_Dims_create(o->boxes, 3, mg->br);
  for (int a = 0; a < 3; ++a) mg->B[a] = mg->pr[a] * mg->br[a];
}

/* Every pattern, in the same order on every process (setup is collective). */
static int patterns(struct mg *mg, struct xfer **out) {
  int n = 0;
  for (int l = 0; l < mg->nlev; ++l) {
    struct level *lv = &mg->lev[l];
    if (!lv->agg) out[n++] = &lv->ex;
    if (lv->down.transfer) out[n++] = &lv->down.gather, out[n++] = &lv->down.scatter;
  }
  return n;
}

static double median(double *v, int n) {
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && v[j - 1] > v[j]; --j) {
      double t = v[j];
      v[j] = v[j - 1], v[j - 1] = t;
    }
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The distributed finest u against the serial one (rank 0): the largest
 * difference over every cell, relative to the largest |u|. */
static double compare(struct mg *mg, struct mg *ref) {
  struct level *lv = &mg->lev[0];
  long n = lv->box_dim, cells = n * n * n, per = (long)lv->nbox * cells;
  double *mine = malloc((size_t)per * sizeof(double)), *all = NULL;
  for (int b = 0; b < lv->nbox; ++b)
    for (long i = 0; i < n; ++i)
      for (long j = 0; j < n; ++j)
        for (long k = 0; k < n; ++k)
          mine[b * cells + (i * n + j) * n + k] = lv->box[b].u[mg_at(&lv->box[b], i, j, k)];
  if (mg->rank == 0) all = malloc((size_t)(per * mg->size) * sizeof(double));
  MPI_Gather(mine, (int)per, MPI_DOUBLE, all, (int)per, MPI_DOUBLE, 0, mg->comm);
  double err = 0, umax = 0;
  if (mg->rank == 0) {
    struct box *s = &ref->lev[0].box[0];
    for (int p = 0; p < mg->size; ++p)
      for (int b = 0; b < lv->nbox; ++b) {
        int pos[3];
        mg_rank_box(mg, p, b, pos);
        const double *u = all + (p * (long)lv->nbox + b) * cells;
        for (long i = 0; i < n; ++i)
          for (long j = 0; j < n; ++j)
            for (long k = 0; k < n; ++k) {
              double want = s->u[mg_at(s, pos[0] * n + i, pos[1] * n + j, pos[2] * n + k)];
              err = fmax(err, fabs(u[(i * n + j) * n + k] - want));
              umax = fmax(umax, fabs(want));
            }
      }
  }
  free(mine);
  free(all);
  return umax > 0 ? err / umax : err;
}

struct timing {
  double cycle[MAX_REPS];
  double lev[MG_MAX_LEVELS][NPHASES][MAX_REPS];
  double err;
};

/* One timed solve of the running variant; slowest process's times. */
static void timed_solve(struct mg *mg, struct timing *tm, int rep) {
  int nv = 1 + mg->nlev * NPHASES;
  double mine[1 + MG_MAX_LEVELS * NPHASES], worst[1 + MG_MAX_LEVELS * NPHASES];
  for (int l = 0; l < mg->nlev; ++l)
    for (int p = 0; p < NPHASES; ++p) mg->lev[l].t[p] = 0;
  MPI_Barrier(mg->comm);
  double t0 = mg_now();
  mg_solve(mg);
  mine[0] = mg_now() - t0;
  for (int l = 0; l < mg->nlev; ++l)
    for (int p = 0; p < NPHASES; ++p) mine[1 + l * NPHASES + p] = mg->lev[l].t[p];
  MPI_Allreduce(mine, worst, nv, MPI_DOUBLE, MPI_MAX, mg->comm);
  if (rep < 0) return;
  tm->cycle[rep] = worst[0];
  for (int l = 0; l < mg->nlev; ++l)
    for (int p = 0; p < NPHASES; ++p) tm->lev[l][p][rep] = worst[1 + l * NPHASES + p];
}

static double comm_time(struct mg *mg, struct timing *tm, int reps) {
  double sum = 0;
  for (int l = 0; l < mg->nlev; ++l)
    sum += median(tm->lev[l][PH_EXCHANGE], reps) + median(tm->lev[l][PH_TRANSFER], reps);
  return sum;
}

static void report(struct mg *mg, const struct options *o, int v, struct timing *tm,
                   double relres) {
  const char *name = all_variants[v]->name;
  for (int l = 0; l < mg->nlev; ++l) {
    double ph[NPHASES], total = 0;
    for (int p = 0; p < NPHASES; ++p) total += ph[p] = median(tm->lev[l][p], o->reps);
    printf("mg-level: %s %d total_ms=%.3f compute_ms=%.3f exchange_ms=%.3f transfer_ms=%.3f\n",
           name, l, 1e3 * total, 1e3 * ph[PH_COMPUTE], 1e3 * ph[PH_EXCHANGE],
           1e3 * ph[PH_TRANSFER]);
  }
  int ok = o->verify ? tm->err <= 1e-10 : 1;
  printf("mg: %s ranks=%d box=%d^3 boxes=%d levels=%d cycle_ms=%.3f comm_ms=%.3f", name, mg->size,
         1 << o->log2_box, o->boxes, mg->nlev, 1e3 * median(tm->cycle, o->reps),
         1e3 * comm_time(mg, tm, o->reps));
  if (o->verify)
    printf(" maxerr=%.2e relres=%.2e %s\n", tm->err, relres, ok ? "verified" : "WRONG");
  else printf(" not verified\n");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  struct options o;
  parse(&o, argc, argv);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  static struct mg mg, ref;
  mg_setup(&mg, &o, world_rank, size, comm);
  mg_build(&mg);
  mg_init_rhs(&mg);

  /* The serial reference: the same solve on one box per level (rank 0). */
  double relres = 0, serial_s = 0;
  if (o.verify && world_rank == 0) {
    mg_setup(&ref, &o, 0, 1, MPI_COMM_SELF);
    memcpy(ref.B, mg.B, sizeof mg.B);
    ref.serial = 1;
    ref.ops = &mg_comm_cpu;
    mg_build(&ref);
    mg_init_rhs(&ref);
    double t0 = mg_now();
    mg_solve(&ref);
    serial_s = mg_now() - t0;
    k_pack(&ref.lev[0].k_pack); /* boundary ghosts for the residual */
    double fnorm, rnorm = mg_residual_norm(&ref.lev[0].box[0], ref.lev[0].h, &fnorm);
    relres = rnorm / fnorm;
  }
  if (world_rank == 0) {
    printf(
        "# multigrid: %d ranks (%dx%dx%d), %d boxes of %d^3 per rank (%dx%dx%d), fine grid "
        "%ldx%ldx%ld, %d levels, F-cycle + %d V-cycles, nu %d, bottom %d sweeps, %d reps\n",
        size, mg.pr[0], mg.pr[1], mg.pr[2], o.boxes, 1 << o.log2_box, mg.br[0], mg.br[1], mg.br[2],
        mg.lev[0].dims[0], mg.lev[0].dims[1], mg.lev[0].dims[2], mg.nlev, o.vcycles, o.nu, o.bottom,
        o.reps);
    for (int l = 0; l < mg.nlev; ++l) {
      struct level *lv = &mg.lev[l];
      printf("# level %d: %ldx%ldx%ld cells, %s\n", l, lv->dims[0], lv->dims[1], lv->dims[2],
             lv->agg ? "one box on rank 0" : "distributed");
    }
    if (o.verify)
      printf("# serial reference: %.3f s, max residual / max f %.2e\n", serial_s, relres);
  }

  struct xfer *xf[3 * MG_MAX_LEVELS];
  int nx = patterns(&mg, xf), run[NVARIANTS], nrun = 0;
  void *stream[NVARIANTS] = {NULL}, *vstate[NVARIANTS] = {NULL};
  for (int i = 0; i < o.nvariant; ++i) {
    const struct comm_ops *ops = all_variants[o.variant[i]];
    if (ops->missing) {
      if (world_rank == 0)
        printf("# multigrid: variant %s not built: %s\n", ops->name, ops->missing);
      continue;
    }
    mg.ops = ops;
    mg.stream = mg.vstate = NULL;
    ops->init(&mg);
    for (int k = 0; k < nx; ++k) ops->setup(&mg, xf[k], o.variant[i]);
    stream[i] = mg.stream, vstate[i] = mg.vstate;
    run[nrun++] = i;
  }
  static struct timing tm[NVARIANTS];
  for (int rep = -o.warmup; rep < o.reps; ++rep)
    for (int j = 0; j < nrun; ++j) {
      int i = run[(j + rep + o.warmup) % nrun];
      mg.ops = all_variants[o.variant[i]];
      mg.slot = o.variant[i];
      mg.stream = stream[i], mg.vstate = vstate[i];
      timed_solve(&mg, &tm[i], rep);
      if (rep == o.reps - 1 && o.verify) tm[i].err = compare(&mg, &ref);
    }
  int failed = 0, base = -1;
  for (int j = 0; j < nrun; ++j) {
    int i = run[j];
    if (world_rank == 0) report(&mg, &o, o.variant[i], &tm[i], relres);
    if (o.verify && tm[i].err > 1e-10) failed = 1;
    if (base < 0 &&
        (all_variants[o.variant[i]] == &mg_comm_mpi || all_variants[o.variant[i]] == &mg_comm_cpu))
      base = i;
  }
  if (world_rank == 0 && base >= 0) {
    double bc = median(tm[base].cycle, o.reps), bm = comm_time(&mg, &tm[base], o.reps);
    for (int j = 0; j < nrun; ++j) {
      int i = run[j];
      if (i == base) continue;
      double c = median(tm[i].cycle, o.reps), m = comm_time(&mg, &tm[i], o.reps);
      printf("mg-gain: %s vs %s cycle %+.1f%% comm %+.1f%%\n", all_variants[o.variant[i]]->name,
             all_variants[o.variant[base]]->name, 100 * (bc - c) / bc, 100 * (bm - m) / bm);
    }
  }
  for (int j = 0; j < nrun; ++j) {
    int i = run[j];
    mg.ops = all_variants[o.variant[i]];
    mg.stream = stream[i], mg.vstate = vstate[i];
    for (int k = 0; k < nx; ++k) mg.ops->release(&mg, xf[k], o.variant[i]);
    mg.ops->finalize(&mg);
  }
  if (world_rank == 0) printf("# multigrid: done\n");
  mg_free(&mg);
  if (world_rank == 0 && o.verify) mg_free(&ref);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return failed;
}
