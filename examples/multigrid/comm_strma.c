/* comm_strma.c: variant 4, stream-triggered RMA, per call (strma) and as
 * persistent epochs (stepoch). Each pattern has a window
 * (MPI_Win_allocate) holding its receive buffer; a run enqueues, on the host
 * stream, with nothing blocking the CPU:
 *   MPIX_Win_post_stream(senders)          the buffer may be written again
 *   pack kernel
 *   MPI_Win_start(receivers, MPIX_MODE_STREAM); MPI_Put per message
 *   MPIX_Win_complete_stream               the stream moves the data
 *   MPIX_Win_wait_stream                   the stream waits for the senders
 *   unpack kernel
 * and the whole cycle is synchronized once, at its end. stepoch records that
 * epoch (the posts, the puts, the completion and the wait) once per pattern
 * with MPIX_Win_epoch_init / MPI_Put / MPIX_Win_epoch_commit; a run is then
 *   pack kernel; MPIX_Win_epoch_start_stream; unpack kernel. */
#include <stdlib.h>

#include "mg.h"

#ifdef MG_HOST_STREAM
struct rma_state {
  MPI_Win win;
#if defined(MPIX_WIN_EPOCH_NULL) && !defined(MG_NO_STEPOCH)
  MPIX_Win_epoch epoch; /* stepoch */
#endif
  MPI_Group senders, receivers; /* MPI_GROUP_NULL when none */
  double *rbuf;
};

static MPI_Group group_of(struct mg *mg, const struct msg *m, int n, MPI_Group none) {
  if (n == 0) return none;
  MPI_Group world, g;
  int *ranks = malloc((size_t)n * sizeof(int));
  if (!ranks) mg_fail("out of memory");
  for (int i = 0; i < n; ++i) ranks[i] = m[i].peer;
  MPI_Comm_group(mg->comm, &world);
  MPI_Group_incl(world, n, ranks, &g);
  MPI_Group_free(&world);
  free(ranks);
  return g;
}

static void rma_setup(struct mg *mg, struct xfer *x, int slot) {
  struct rma_state *st = calloc(1, sizeof *st);
  if (!st) mg_fail("out of memory");
  if (MPI_Win_allocate((MPI_Aint)(x->rlen * (long)sizeof(double)), sizeof(double), MPI_INFO_NULL,
                       mg->comm, &st->rbuf, &st->win) != MPI_SUCCESS)
    mg_fail("MPI_Win_allocate failed");
  st->senders = group_of(mg, x->recv, x->nrecv, MPI_GROUP_NULL);
  st->receivers = group_of(mg, x->send, x->nsend, MPI_GROUP_NULL);
  x->state[slot] = st;
}

static void put_all(struct xfer *x, MPI_Win win) {
  for (int i = 0; i < x->nsend; ++i) {
    const struct msg *m = &x->send[i];
    if (MPI_Put(x->sbuf + m->off, (int)m->count, MPI_DOUBLE, m->peer, m->remote_off, (int)m->count,
                MPI_DOUBLE, win) != MPI_SUCCESS)
      mg_fail("MPI_Put failed");
  }
}

static void rma_release(struct mg *mg, struct xfer *x, int slot) {
  (void)mg;
  struct rma_state *st = x->state[slot];
  MPI_Win_free(&st->win);
  if (st->senders != MPI_GROUP_NULL) MPI_Group_free(&st->senders);
  if (st->receivers != MPI_GROUP_NULL) MPI_Group_free(&st->receivers);
  free(st);
  x->state[slot] = NULL;
}

#define ST_CHECK(call) \
  if ((call) != MPI_SUCCESS) mg_fail("%s failed", #call)

static void rma_run(struct mg *mg, struct xfer *x, int slot, mg_kernel *pack, mg_kernel *unpack,
                    void *arg) {
  struct rma_state *st = x->state[slot];
  x->rbuf = st->rbuf;
  if (x->nrecv) ST_CHECK(MPIX_Win_post_stream(st->senders, st->win, mg->stream));
  mg_stream_launch(mg, pack, arg);
  if (x->nsend) {
    ST_CHECK(MPI_Win_start(st->receivers, MPIX_MODE_STREAM, st->win));
    put_all(x, st->win);
    ST_CHECK(MPIX_Win_complete_stream(st->win, mg->stream));
  }
  if (x->nrecv) ST_CHECK(MPIX_Win_wait_stream(st->win, mg->stream));
  mg_stream_launch(mg, unpack, arg);
}

#if defined(MPIX_WIN_EPOCH_NULL) && !defined(MG_NO_STEPOCH)
/* The window and the recorded epoch (its groups: MPI_GROUP_EMPTY when none). */
static void epoch_setup(struct mg *mg, struct xfer *x, int slot) {
  rma_setup(mg, x, slot);
  struct rma_state *st = x->state[slot];
  MPI_Group senders = group_of(mg, x->recv, x->nrecv, MPI_GROUP_EMPTY);
  MPI_Group receivers = group_of(mg, x->send, x->nsend, MPI_GROUP_EMPTY);
  ST_CHECK(MPIX_Win_epoch_init(senders, receivers, st->win, &st->epoch));
  put_all(x, st->win);
  ST_CHECK(MPIX_Win_epoch_commit(st->epoch));
  if (senders != MPI_GROUP_EMPTY) MPI_Group_free(&senders);
  if (receivers != MPI_GROUP_EMPTY) MPI_Group_free(&receivers);
}

static void epoch_release(struct mg *mg, struct xfer *x, int slot) {
  struct rma_state *st = x->state[slot];
  ST_CHECK(MPIX_Win_epoch_free(&st->epoch));
  rma_release(mg, x, slot);
}

static void epoch_run(struct mg *mg, struct xfer *x, int slot, mg_kernel *pack, mg_kernel *unpack,
                      void *arg) {
  struct rma_state *st = x->state[slot];
  x->rbuf = st->rbuf;
  mg_stream_launch(mg, pack, arg);
  ST_CHECK(MPIX_Win_epoch_start_stream(st->epoch, mg->stream));
  mg_stream_launch(mg, unpack, arg);
}

const struct comm_ops mg_comm_stepoch = {
    "stepoch", NULL,           mg_stream_init, epoch_setup,        mg_stream_launch,
    epoch_run, mg_stream_sync, epoch_release,  mg_stream_finalize,
};
#else
const struct comm_ops mg_comm_stepoch = {
    .name = "stepoch", .missing = "this MPI has no persistent stream epochs (MPIX_Win_epoch_init)"};
#endif

const struct comm_ops mg_comm_strma = {
    "strma", NULL,           mg_stream_init, rma_setup,          mg_stream_launch,
    rma_run, mg_stream_sync, rma_release,    mg_stream_finalize,
};
#else
const struct comm_ops mg_comm_stepoch = {
    .name = "stepoch", .missing = "this MPI has no persistent stream epochs (MPIX_Win_epoch_init)"};

const struct comm_ops mg_comm_strma = {.name = "strma",
                                       .missing = "needs STMPI's stream-triggered RMA"};
#endif
