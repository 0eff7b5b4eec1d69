/* cycle.c: the F-cycle, written once for every variant: it only launches
 * kernels and runs communication patterns through mg->ops, which decides
 * whether the CPU waits (plain MPI) or a stream carries everything. */
#include "mg.h"

static void launch(struct mg *mg, mg_kernel *fn, struct karg *arg) { mg->ops->launch(mg, fn, arg); }

/* Ghost zones of a level: pack (boundary and local faces included), the
 * messages, unpack. Without messages only the pack kernel runs. */
static void exchange(struct mg *mg, struct level *lv) {
  if (lv->has_ex) mg->ops->run(mg, &lv->ex, mg->slot, k_pack, k_unpack, &lv->k_pack);
  else launch(mg, k_pack, &lv->k_pack);
}

static void smooth(struct mg *mg, struct level *lv, int sweeps) {
  for (int s = 0; s < sweeps; ++s)
    for (int colour = 0; colour < 2; ++colour) {
      exchange(mg, lv);
      launch(mg, k_smooth, &lv->k_smooth[colour]);
    }
}

static void residual(struct mg *mg, struct level *lv) {
  exchange(mg, lv);
  launch(mg, k_resid, &lv->k_resid);
}

/* field: 0 the residual (V-cycle), 1 the right-hand side (F-cycle's start) */
static void restrict_down(struct mg *mg, struct level *lv, int field) {
  if (lv->down.transfer)
    mg->ops->run(mg, &lv->down.gather, mg->slot, k_restrict, k_gather_unpack,
                 &lv->k_restrict[field]);
  else launch(mg, k_restrict, &lv->k_restrict[field]);
}

/* add: 1 corrects u, 0 sets it (the F-cycle's interpolation) */
static void interpolate_up(struct mg *mg, struct level *lv, int add) {
  if (lv->down.transfer)
    mg->ops->run(mg, &lv->down.scatter, mg->slot, k_scatter_pack, k_interp, &lv->k_interp[add]);
  else launch(mg, k_interp, &lv->k_interp[add]);
}

/* A process without boxes on a level (rank 0's levels, for the others) skips
 * it: its part ends at the gather and resumes at the scatter. */
static void vcycle(struct mg *mg, int l) {
  struct level *lv = &mg->lev[l];
  if (lv->nbox == 0) return;
  if (l == mg->nlev - 1) {
    smooth(mg, lv, mg->bottom_sweeps);
    return;
  }
  smooth(mg, lv, mg->nu);
  residual(mg, lv);
  restrict_down(mg, lv, 0);
  vcycle(mg, l + 1);
  interpolate_up(mg, lv, 1);
  smooth(mg, lv, mg->nu);
}

void mg_solve(struct mg *mg) {
  mg->last = mg_now();
  for (int l = 0; l + 1 < mg->nlev; ++l)
    if (mg->lev[l].nbox) restrict_down(mg, &mg->lev[l], 1);
  struct level *bottom = &mg->lev[mg->nlev - 1];
  if (bottom->nbox) smooth(mg, bottom, mg->bottom_sweeps);
  for (int l = mg->nlev - 2; l >= 0; --l) {
    if (mg->lev[l].nbox == 0) continue;
    interpolate_up(mg, &mg->lev[l], 0);
    vcycle(mg, l);
  }
  for (int v = 0; v < mg->vcycles; ++v) vcycle(mg, 0);
  mg->ops->sync(mg);
}
