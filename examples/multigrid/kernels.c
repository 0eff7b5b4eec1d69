/* kernels.c: the work the streams run. Each kernel takes a struct karg * and
 * charges the stream time since the previous kernel ended to its level and
 * phase, so the phases of a cycle add up to the stream's whole timeline. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "mg.h"

double mg_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void account(const struct karg *a, int phase) {
  double t = mg_now();
  a->lv->t[phase] += t - a->mg->last;
  a->mg->last = t;
}

/* ---- faces and blocks ------------------------------------------------------ */

/* A face of a box as a 2-D array: its interior layer or its ghost layer. */
struct face {
  long base, st1, st2;
  int n1, n2;
};

static struct face face_of(const struct box *b, int f, int ghost) {
  int a = f / 2, side = f % 2, b1 = a == 0 ? 1 : 0, b2 = a == 2 ? 1 : 2;
  long idx[3] = {0, 0, 0};
  idx[a] = ghost ? (side ? b->n[a] : -1) : (side ? b->n[a] - 1 : 0);
  struct face fc = {mg_at(b, idx[0], idx[1], idx[2]), b->s[b1], b->s[b2], b->n[b1], b->n[b2]};
  return fc;
}

/* dst = scale * src over a face's shape; the strides of each side given. */
static void face_copy(double *dst, long d1, long d2, const double *src, long s1, long s2,
                      const struct face *fc, double scale) {
  for (int i = 0; i < fc->n1; ++i)
    for (int j = 0; j < fc->n2; ++j) dst[i * d1 + j * d2] = scale * src[i * s1 + j * s2];
}

/* A q0 x q1 x q2 block of a box or of a contiguous buffer (s0, s1; s2 = 1). */
struct block {
  double *p;
  long s0, s1;
};

static struct block block_in(const struct box *b, double *field, const long off[3]) {
  struct block bl = {field + mg_at(b, off[0], off[1], off[2]), b->s[0], b->s[1]};
  return bl;
}

static struct block block_flat(double *p, int q) {
  struct block bl = {p, (long)q * q, q};
  return bl;
}

/* dst = src over q^3 cells; zero (when given) is set to 0 over the same cells. */
static void block_copy(struct block dst, struct block src, const struct block *zero, int q) {
  for (int i = 0; i < q; ++i)
    for (int j = 0; j < q; ++j)
      for (int k = 0; k < q; ++k) {
        dst.p[i * dst.s0 + j * dst.s1 + k] = src.p[i * src.s0 + j * src.s1 + k];
        if (zero) zero->p[i * zero->s0 + j * zero->s1 + k] = 0;
      }
}

/* ---- boundary exchange ------------------------------------------------------ */

/* Per face: domain boundary (ghost = -interior: zero on the face), a box of
 * this process (its ghost layer written directly) or another process (the
 * interior layer into the send buffer). */
void k_pack(void *arg) {
  struct karg *a = arg;
  struct level *lv = a->lv;
  for (int b = 0; b < lv->nbox; ++b) {
    struct box *bx = &lv->box[b];
    for (int f = 0; f < 6; ++f) {
      struct face in = face_of(bx, f, 0);
      if (bx->nb_kind[f] == NB_BOUNDARY) {
        struct face gh = face_of(bx, f, 1);
        face_copy(bx->u + gh.base, gh.st1, gh.st2, bx->u + in.base, in.st1, in.st2, &in, -1.0);
      } else if (bx->nb_kind[f] == NB_LOCAL) {
        struct box *nb = &lv->box[bx->nb_box[f]];
        struct face gh = face_of(nb, f ^ 1, 1);
        face_copy(nb->u + gh.base, gh.st1, gh.st2, bx->u + in.base, in.st1, in.st2, &in, 1.0);
      } else {
        face_copy(lv->ex.sbuf + bx->nb_send[f], in.n2, 1, bx->u + in.base, in.st1, in.st2, &in,
                  1.0);
      }
    }
  }
  account(a, PH_EXCHANGE);
}

void k_unpack(void *arg) {
  struct karg *a = arg;
  struct level *lv = a->lv;
  for (int b = 0; b < lv->nbox; ++b) {
    struct box *bx = &lv->box[b];
    for (int f = 0; f < 6; ++f) {
      if (bx->nb_kind[f] != NB_REMOTE) continue;
      struct face gh = face_of(bx, f, 1);
      face_copy(bx->u + gh.base, gh.st1, gh.st2, lv->ex.rbuf + bx->nb_recv[f], gh.n2, 1, &gh, 1.0);
    }
  }
  account(a, PH_EXCHANGE);
}

/* ---- the operator ----------------------------------------------------------- */

/* -Laplacian, 7 points, cell-centred, zero on the domain's boundary (through
 * the ghosts): A u = (6 u - sum of the 6 neighbours) / h^2. */
static double neighbours(const double *u, long x, const struct box *b) {
  return u[x - b->s[0]] + u[x + b->s[0]] + u[x - b->s[1]] + u[x + b->s[1]] + u[x - 1] + u[x + 1];
}

/* Gauss-Seidel on the cells of one colour (what: 0 red, 1 black by global
 * parity): each is solved for, its neighbours (the other colour) held. */
void k_smooth(void *arg) {
  struct karg *a = arg;
  struct level *lv = a->lv;
  double h2 = lv->h * lv->h;
  for (int b = 0; b < lv->nbox; ++b) {
    struct box *bx = &lv->box[b];
    for (long i = 0; i < bx->n[0]; ++i)
      for (long j = 0; j < bx->n[1]; ++j) {
        long k0 = (a->what - (bx->g[0] + i + bx->g[1] + j + bx->g[2])) & 1;
        for (long k = k0; k < bx->n[2]; k += 2) {
          long x = mg_at(bx, i, j, k);
          bx->u[x] = (neighbours(bx->u, x, bx) + h2 * bx->f[x]) / 6.0;
        }
      }
  }
  account(a, PH_COMPUTE);
}

void k_resid(void *arg) {
  struct karg *a = arg;
  struct level *lv = a->lv;
  double inv_h2 = 1.0 / (lv->h * lv->h);
  for (int b = 0; b < lv->nbox; ++b) {
    struct box *bx = &lv->box[b];
    for (long i = 0; i < bx->n[0]; ++i)
      for (long j = 0; j < bx->n[1]; ++j)
        for (long k = 0; k < bx->n[2]; ++k) {
          long x = mg_at(bx, i, j, k);
          bx->r[x] = bx->f[x] - (6.0 * bx->u[x] - neighbours(bx->u, x, bx)) * inv_h2;
        }
  }
  account(a, PH_COMPUTE);
}

/* ---- between levels --------------------------------------------------------- */

/* Restriction (what: 0 the residual, 1 the right-hand side) of each fine box
 * into the coarse f (the average of 8 cells), the coarse u zeroed: into the
 * coarse box where it is local, into its gather slot otherwise (the gather's
 * pack). */
void k_restrict(void *arg) {
  struct karg *a = arg;
  struct level *lv = a->lv, *cl = lv + 1;
  struct link *ln = &lv->down;
  for (int b = 0; b < lv->nbox; ++b) {
    struct box *bx = &lv->box[b];
    const double *src = a->what ? bx->f : bx->r;
    int q[3] = {bx->n[0] / 2, bx->n[1] / 2, bx->n[2] / 2};
    struct block dst, zero = {NULL, 0, 0};
    if (ln->local[b]) {
      struct box *cb = &cl->box[ln->cbox[b]];
      dst = block_in(cb, cb->f, ln->coff[b]);
      zero = block_in(cb, cb->u, ln->coff[b]);
    } else {
      dst = block_flat(ln->gather.sbuf + ln->slot[b], q[0]);
    }
    for (long i = 0; i < q[0]; ++i)
      for (long j = 0; j < q[1]; ++j)
        for (long k = 0; k < q[2]; ++k) {
          long x = mg_at(bx, 2 * i, 2 * j, 2 * k), y = i * dst.s0 + j * dst.s1 + k;
          double s = src[x] + src[x + 1] + src[x + bx->s[1]] + src[x + bx->s[1] + 1] +
                     src[x + bx->s[0]] + src[x + bx->s[0] + 1] + src[x + bx->s[0] + bx->s[1]] +
                     src[x + bx->s[0] + bx->s[1] + 1];
          dst.p[y] = 0.125 * s;
          if (zero.p) zero.p[i * zero.s0 + j * zero.s1 + k] = 0;
        }
  }
  account(a, ln->transfer ? PH_TRANSFER : PH_COMPUTE);
}

/* Piecewise-constant interpolation (what: 1 adds the correction, 0 assigns,
 * the F-cycle's start on a finer level) from the coarse box where local, from
 * the scatter's receive buffer otherwise (the scatter's unpack). */
void k_interp(void *arg) {
  struct karg *a = arg;
  struct level *lv = a->lv, *cl = lv + 1;
  struct link *ln = &lv->down;
  for (int b = 0; b < lv->nbox; ++b) {
    struct box *bx = &lv->box[b];
    struct block src;
    if (ln->local[b]) {
      struct box *cb = &cl->box[ln->cbox[b]];
      src = block_in(cb, cb->u, ln->coff[b]);
    } else {
      src = block_flat(ln->scatter.rbuf + ln->slot[b], bx->n[0] / 2);
    }
    for (long i = 0; i < bx->n[0]; ++i)
      for (long j = 0; j < bx->n[1]; ++j)
        for (long k = 0; k < bx->n[2]; ++k) {
          long x = mg_at(bx, i, j, k);
          double v = src.p[(i / 2) * src.s0 + (j / 2) * src.s1 + k / 2];
          bx->u[x] = a->what ? bx->u[x] + v : v;
        }
  }
  account(a, ln->transfer ? PH_TRANSFER : PH_COMPUTE);
}

/* Rank 0: the gathered blocks of the other processes' boxes into its coarse
 * box (f set, u zeroed), and its coarse u cut into their blocks to scatter. */
static void blocks_of_peers(struct karg *a, struct xfer *x, const struct msg *m, int n, int in) {
  struct level *lv = a->lv, *cl = lv + 1;
  struct link *ln = &lv->down;
  struct box *cb = &cl->box[0];
  int per = a->mg->br[0] * a->mg->br[1] * a->mg->br[2];
  for (int i = 0; i < n; ++i)
    for (int b = 0; b < per; ++b) {
      int pos[3];
      mg_rank_box(a->mg, m[i].peer, b, pos);
      long off[3] = {(long)pos[0] * ln->qdim, (long)pos[1] * ln->qdim, (long)pos[2] * ln->qdim};
      double *flat = (in ? x->rbuf : x->sbuf) + m[i].off + b * ln->qcells;
      if (in) {
        struct block zero = block_in(cb, cb->u, off);
        block_copy(block_in(cb, cb->f, off), block_flat(flat, ln->qdim), &zero, ln->qdim);
      } else {
        block_copy(block_flat(flat, ln->qdim), block_in(cb, cb->u, off), NULL, ln->qdim);
      }
    }
  account(a, PH_TRANSFER);
}

void k_gather_unpack(void *arg) {
  struct karg *a = arg;
  struct xfer *x = &a->lv->down.gather;
  blocks_of_peers(a, x, x->recv, x->nrecv, 1);
}

void k_scatter_pack(void *arg) {
  struct karg *a = arg;
  struct xfer *x = &a->lv->down.scatter;
  blocks_of_peers(a, x, x->send, x->nsend, 0);
}

double mg_residual_norm(struct box *b, double h, double *fnorm) {
  double rn = 0, fn = 0, inv_h2 = 1.0 / (h * h);
  for (long i = 0; i < b->n[0]; ++i)
    for (long j = 0; j < b->n[1]; ++j)
      for (long k = 0; k < b->n[2]; ++k) {
        long x = mg_at(b, i, j, k);
        double r = b->f[x] - (6.0 * b->u[x] - neighbours(b->u, x, b)) * inv_h2;
        rn = fmax(rn, fabs(r));
        fn = fmax(fn, fabs(b->f[x]));
      }
  *fnorm = fn;
  return rn;
}
