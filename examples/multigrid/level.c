/* level.c: the level hierarchy. Distributed levels: every process owns
 * br[0] x br[1] x br[2] cubic boxes of edge 2^log2_box >> level, down to an
 * edge of 2; each box restricts to one cell of the first agglomerated level,
 * rank 0's single box of B[0] x B[1] x B[2] cells, which halves while its
 * dimensions are even. The serial reference (mg->serial) has one box per
 * level covering the whole domain and the same sequence of grids. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mg.h"

static void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p) mg_fail("out of memory");
  return p;
}

/* Rank coordinates are row-major over pr, box coordinates inside a rank
 * row-major over br. */
void mg_rank_box(const struct mg *mg, int rank, int local, int pos[3]) {
  int rc[3] = {rank / (mg->pr[1] * mg->pr[2]), rank / mg->pr[2] % mg->pr[1], rank % mg->pr[2]};
  int lc[3] = {local / (mg->br[1] * mg->br[2]), local / mg->br[2] % mg->br[1], local % mg->br[2]};
  for (int a = 0; a < 3; ++a) pos[a] = rc[a] * mg->br[a] + lc[a];
}

static int owner_of(const struct mg *mg, const int pos[3], int *local) {
  int rc[3], lc[3];
  for (int a = 0; a < 3; ++a) rc[a] = pos[a] / mg->br[a], lc[a] = pos[a] % mg->br[a];
  *local = (lc[0] * mg->br[1] + lc[1]) * mg->br[2] + lc[2];
  return (rc[0] * mg->pr[1] + rc[1]) * mg->pr[2] + rc[2];
}

static void box_alloc(struct box *b, const long n[3], const long g[3]) {
  for (int a = 0; a < 3; ++a) b->n[a] = (int)n[a], b->g[a] = g[a];
  b->s[2] = 1;
  b->s[1] = n[2] + 2;
  b->s[0] = (n[1] + 2) * b->s[1];
  size_t cells = (size_t)(n[0] + 2) * (size_t)b->s[0];
  b->u = xcalloc(cells, sizeof(double));
  b->f = xcalloc(cells, sizeof(double));
  b->r = xcalloc(cells, sizeof(double));
  for (int f = 0; f < 6; ++f) b->nb_kind[f] = NB_BOUNDARY;
}

static void level_args(struct mg *mg, struct level *lv) {
  struct karg base = {mg, lv, 0};
  lv->k_pack = lv->k_resid = base;
  for (int w = 0; w < 2; ++w) {
    lv->k_smooth[w] = lv->k_restrict[w] = lv->k_interp[w] = base;
    lv->k_smooth[w].what = lv->k_restrict[w].what = lv->k_interp[w].what = w;
  }
}

/* ---- the boundary exchange's messages --------------------------------------- */

struct face_ref {
  int peer, key, box, face; /* key: the sender's local box * 6 + its face */
};

static int face_ref_cmp(const void *pa, const void *pb) {
  const struct face_ref *a = pa, *b = pb;
  if (a->peer != b->peer) return a->peer < b->peer ? -1 : 1;
  return (a->key > b->key) - (a->key < b->key);
}

/* Sorted faces -> one message per peer; offsets stored in the boxes. */
static struct msg *faces_to_msgs(struct level *lv, struct face_ref *fr, int n, long cells,
                                 int is_send, int *nmsg, long *len) {
  qsort(fr, (size_t)n, sizeof *fr, face_ref_cmp);
  struct msg *m = xcalloc((size_t)n, sizeof *m);
  int k = -1;
  long off = 0;
  for (int i = 0; i < n; ++i) {
    if (k < 0 || m[k].peer != fr[i].peer) m[++k] = (struct msg){fr[i].peer, off, 0, -1};
    m[k].count += cells;
    struct box *b = &lv->box[fr[i].box];
    if (is_send) b->nb_send[fr[i].face] = off;
    else b->nb_recv[fr[i].face] = off;
    off += cells;
  }
  *nmsg = k + 1;
  *len = off;
  return m;
}

/* Every process learns where its messages land in the receivers' buffers
 * (the one-sided variant puts there). */
static void remote_offsets(struct mg *mg, struct xfer *x) {
  MPI_Request *req = xcalloc((size_t)(x->nsend + x->nrecv), sizeof *req);
  for (int i = 0; i < x->nsend; ++i)
    MPI_Irecv(&x->send[i].remote_off, 1, MPI_LONG, x->send[i].peer, x->tag, mg->comm, &req[i]);
  for (int i = 0; i < x->nrecv; ++i)
    MPI_Isend(&x->recv[i].off, 1, MPI_LONG, x->recv[i].peer, x->tag, mg->comm, &req[x->nsend + i]);
  MPI_Waitall(x->nsend + x->nrecv, req, MPI_STATUSES_IGNORE);
  free(req);
  x->sbuf = xcalloc((size_t)x->slen, sizeof(double));
}

static void plan_exchange(struct mg *mg, struct level *lv) {
  int nb = lv->nbox, ns = 0, nr = 0;
  struct face_ref *sf = xcalloc((size_t)nb * 6, sizeof *sf),
                  *rf = xcalloc((size_t)nb * 6, sizeof *rf);
  for (int b = 0; b < nb; ++b) {
    struct box *bx = &lv->box[b];
    for (int f = 0; f < 6; ++f) {
      int a = f / 2, pos[3] = {bx->pos[0], bx->pos[1], bx->pos[2]}, local;
      pos[a] += f % 2 ? 1 : -1;
      if (pos[a] < 0 || pos[a] >= mg->B[a]) continue;
      int peer = owner_of(mg, pos, &local);
      if (peer == mg->rank) {
        bx->nb_kind[f] = NB_LOCAL, bx->nb_box[f] = local;
        continue;
      }
      bx->nb_kind[f] = NB_REMOTE;
      sf[ns++] = (struct face_ref){peer, b * 6 + f, b, f};
      rf[nr++] = (struct face_ref){peer, local * 6 + (f ^ 1), b, f};
    }
  }
  long cells = (long)lv->box_dim * lv->box_dim;
  lv->ex.send = faces_to_msgs(lv, sf, ns, cells, 1, &lv->ex.nsend, &lv->ex.slen);
  lv->ex.recv = faces_to_msgs(lv, rf, nr, cells, 0, &lv->ex.nrecv, &lv->ex.rlen);
  lv->ex.tag = 100 + lv->id;
  lv->has_ex = lv->ex.nsend + lv->ex.nrecv > 0;
  free(sf);
  free(rf);
  remote_offsets(mg, &lv->ex);
}

/* ---- links between levels --------------------------------------------------- */

static void link_alloc(struct link *ln, int nbox) {
  ln->local = xcalloc((size_t)nbox, sizeof(int));
  ln->cbox = xcalloc((size_t)nbox, sizeof(int));
  ln->coff = xcalloc((size_t)nbox, sizeof *ln->coff);
  ln->slot = xcalloc((size_t)nbox, sizeof(long));
}

/* From the last distributed level to rank 0's box: rank 0's own boxes are
 * restricted and interpolated in place, the others' go through one gather
 * message per process (to rank 0) and one scatter message (from it). */
static void plan_interface(struct mg *mg, struct level *lv) {
  struct link *ln = &lv->down;
  int per = mg->br[0] * mg->br[1] * mg->br[2];
  ln->qdim = lv->box_dim / 2;
  ln->qcells = (long)ln->qdim * ln->qdim * ln->qdim;
  ln->transfer = mg->size > 1;
  for (int b = 0; b < lv->nbox; ++b) {
    ln->local[b] = mg->rank == 0;
    for (int a = 0; a < 3; ++a) ln->coff[b][a] = (long)lv->box[b].pos[a] * ln->qdim;
    ln->slot[b] = b * ln->qcells;
  }
  if (!ln->transfer) return;
  long block = per * ln->qcells;
  struct xfer *g = &ln->gather, *s = &ln->scatter;
  g->tag = 90, s->tag = 91;
  if (mg->rank == 0) {
    g->nrecv = s->nsend = mg->size - 1;
    g->recv = xcalloc((size_t)mg->size, sizeof(struct msg));
    s->send = xcalloc((size_t)mg->size, sizeof(struct msg));
    for (int p = 1; p < mg->size; ++p) {
      g->recv[p - 1] = s->send[p - 1] = (struct msg){p, (p - 1) * block, block, -1};
    }
    g->rlen = s->slen = (mg->size - 1) * block;
  } else {
    g->nsend = s->nrecv = 1;
    g->send = xcalloc(1, sizeof(struct msg));
    s->recv = xcalloc(1, sizeof(struct msg));
    g->send[0] = s->recv[0] = (struct msg){0, 0, block, -1};
    g->slen = s->rlen = block;
  }
  remote_offsets(mg, g);
  remote_offsets(mg, s);
}

/* ---- the hierarchy ---------------------------------------------------------- */

void mg_build(struct mg *mg) {
  long n0 = 1L << mg->log2_box;
  int per = mg->serial ? 1 : mg->br[0] * mg->br[1] * mg->br[2];
  int dist = mg->serial ? 0 : mg->log2_box; /* edges n0 .. 2 */
  long dims[3];
  for (int a = 0; a < 3; ++a) dims[a] = mg->B[a] * n0;
  double h0 = 1.0 / (double)(dims[0] > dims[1] ? (dims[0] > dims[2] ? dims[0] : dims[2])
                                               : (dims[1] > dims[2] ? dims[1] : dims[2]));
  int l = 0;
  for (;; ++l) {
    if (l >= MG_MAX_LEVELS) mg_fail("more than %d levels", MG_MAX_LEVELS);
    struct level *lv = &mg->lev[l];
    lv->id = l;
    lv->h = ldexp(h0, l);
    memcpy(lv->dims, dims, sizeof dims);
    level_args(mg, lv);
    if (l < dist) {
      lv->box_dim = (int)(n0 >> l);
      lv->nbox = per;
      lv->box = xcalloc((size_t)per, sizeof(struct box));
      long n[3] = {lv->box_dim, lv->box_dim, lv->box_dim};
      for (int b = 0; b < per; ++b) {
        struct box *bx = &lv->box[b];
        mg_rank_box(mg, mg->rank, b, bx->pos);
        long g[3] = {(long)bx->pos[0] * n[0], (long)bx->pos[1] * n[1], (long)bx->pos[2] * n[2]};
        box_alloc(bx, n, g);
      }
      plan_exchange(mg, lv);
    } else {
      lv->agg = 1;
      lv->nbox = mg->rank == 0 ? 1 : 0;
      lv->box = xcalloc(1, sizeof(struct box));
      long g[3] = {0, 0, 0};
      if (lv->nbox) box_alloc(&lv->box[0], dims, g);
    }
    if (dims[0] % 2 || dims[1] % 2 || dims[2] % 2) break;
    for (int a = 0; a < 3; ++a) dims[a] /= 2;
  }
  mg->nlev = l + 1;
  for (l = 0; l + 1 < mg->nlev; ++l) {
    struct level *lv = &mg->lev[l];
    link_alloc(&lv->down, lv->nbox);
    if (l + 1 == dist) {
      plan_interface(mg, lv);
    } else {
      for (int b = 0; b < lv->nbox; ++b) lv->down.local[b] = 1, lv->down.cbox[b] = lv->agg ? 0 : b;
    }
  }
}

void mg_init_rhs(struct mg *mg) {
  struct level *lv = &mg->lev[0];
  const double pi = 3.14159265358979323846;
  double L[3];
  for (int a = 0; a < 3; ++a) L[a] = (double)lv->dims[a] * lv->h;
  for (int b = 0; b < lv->nbox; ++b) {
    struct box *bx = &lv->box[b];
    for (long i = 0; i < bx->n[0]; ++i)
      for (long j = 0; j < bx->n[1]; ++j)
        for (long k = 0; k < bx->n[2]; ++k) {
          double x = ((double)(bx->g[0] + i) + 0.5) * lv->h;
          double y = ((double)(bx->g[1] + j) + 0.5) * lv->h;
          double z = ((double)(bx->g[2] + k) + 0.5) * lv->h;
          bx->f[mg_at(bx, i, j, k)] =
              sin(pi * x / L[0]) * sin(2 * pi * y / L[1]) * sin(pi * z / L[2]) +
              0.25 * cos(3 * x + 2 * y + z);
        }
  }
}

void mg_free(struct mg *mg) {
  for (int l = 0; l < mg->nlev; ++l) {
    struct level *lv = &mg->lev[l];
    for (int b = 0; b < lv->nbox; ++b) free(lv->box[b].u), free(lv->box[b].f), free(lv->box[b].r);
    free(lv->box);
    free(lv->ex.send), free(lv->ex.recv), free(lv->ex.sbuf);
    struct link *ln = &lv->down;
    free(ln->local), free(ln->cbox), free(ln->coff), free(ln->slot);
    free(ln->gather.send), free(ln->gather.recv), free(ln->gather.sbuf);
    free(ln->scatter.send), free(ln->scatter.recv), free(ln->scatter.sbuf);
  }
}
