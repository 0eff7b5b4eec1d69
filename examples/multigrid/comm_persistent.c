/* comm_persistent.c: variant 3, persistent operations started from a stream
 * with MPI Advance's stream-triggering calls (MPIS_*, STMPI's mpis.h). Every
 * pattern's sends and receives are made once (MPIS_Send_init,
 * MPIS_Recv_init) and matched once with their peers (MPIS_Matchall); a run
 * enqueues on the queue, which runs on the program's host stream,
 *   pack kernel
 *   MPIS_Enqueue_startall(all of the pattern's requests)
 *   MPIS_Enqueue_waitall                (the stream waits for them)
 *   unpack kernel
 * and the whole cycle is synchronized once, at its end (MPIS_Queue_wait). */
#include <stdlib.h>

#include "mg.h"

#if defined(MG_HOST_STREAM) && defined(__has_include) && !defined(MG_NO_PERSISTENT)
#if __has_include(<mpis.h>)
#include <mpis.h>
#define MG_MPIS 1
#endif
#endif

#ifdef MG_MPIS
struct mpis_comm {
  MPIX_Host_stream host; /* the queue's stream (its address goes to MPIS_Queue_init) */
  MPIS_Queue queue;
  MPI_Comm comm;
};

struct mpis_state {
  MPIS_Request *req; /* receives, then sends */
  double *rbuf;
};

#define PS_CHECK(call) \
  if ((call) != MPIS_SUCCESS) mg_fail("%s failed", #call)

static void mpis_init(struct mg *mg) {
  mg_stream_init(mg);
  struct mpis_comm *pc = calloc(1, sizeof *pc);
  if (!pc) mg_fail("out of memory");
  pc->host = mg->stream;
  PS_CHECK(MPIS_Queue_init(&pc->queue, THREAD, &pc->host));
  MPI_Comm_dup(mg->comm, &pc->comm);
  mg->vstate = pc;
}

static void mpis_finalize(struct mg *mg) {
  struct mpis_comm *pc = mg->vstate;
  PS_CHECK(MPIS_Queue_free(&pc->queue));
  MPI_Comm_free(&pc->comm);
  free(pc);
  mg->vstate = NULL;
  mg_stream_finalize(mg);
}

/* Collective over each pattern's peers: the requests, then their matching. */
static void mpis_setup(struct mg *mg, struct xfer *x, int slot) {
  struct mpis_comm *pc = mg->vstate;
  struct mpis_state *st = calloc(1, sizeof *st);
  int n = x->nrecv + x->nsend;
  if (!st || !(st->req = calloc((size_t)n + 1, sizeof(MPIS_Request))) ||
      !(st->rbuf = calloc((size_t)x->rlen + 1, sizeof(double))))
    mg_fail("out of memory");
  for (int i = 0; i < x->nrecv; ++i)
    PS_CHECK(MPIS_Recv_init(st->rbuf + x->recv[i].off, x->recv[i].count, MPI_DOUBLE,
                            x->recv[i].peer, x->tag, pc->comm, MPI_INFO_NULL, &st->req[i]));
  for (int i = 0; i < x->nsend; ++i)
    PS_CHECK(MPIS_Send_init(x->sbuf + x->send[i].off, x->send[i].count, MPI_DOUBLE, x->send[i].peer,
                            x->tag, pc->comm, MPI_INFO_NULL, &st->req[x->nrecv + i]));
  if (n) PS_CHECK(MPIS_Matchall(n, st->req, MPI_STATUSES_IGNORE));
  x->state[slot] = st;
}

static void mpis_release(struct mg *mg, struct xfer *x, int slot) {
  (void)mg;
  struct mpis_state *st = x->state[slot];
  if (x->nrecv + x->nsend) PS_CHECK(MPIS_Request_freeall(x->nrecv + x->nsend, st->req));
  free(st->req);
  free(st->rbuf);
  free(st);
  x->state[slot] = NULL;
}

static void mpis_run(struct mg *mg, struct xfer *x, int slot, mg_kernel *pack, mg_kernel *unpack,
                     void *arg) {
  struct mpis_state *st = x->state[slot];
  struct mpis_comm *pc = mg->vstate;
  x->rbuf = st->rbuf;
  mg_stream_launch(mg, pack, arg);
  PS_CHECK(MPIS_Enqueue_startall(pc->queue, x->nrecv + x->nsend, st->req));
  PS_CHECK(MPIS_Enqueue_waitall(pc->queue));
  mg_stream_launch(mg, unpack, arg);
}

static void mpis_sync(struct mg *mg) {
  struct mpis_comm *pc = mg->vstate;
  PS_CHECK(MPIS_Queue_wait(pc->queue));
  mg_stream_sync(mg);
}

const struct comm_ops mg_comm_persistent = {
    "persistent", NULL,      mpis_init,    mpis_setup,    mg_stream_launch,
    mpis_run,     mpis_sync, mpis_release, mpis_finalize,
};
#else
const struct comm_ops mg_comm_persistent = {
    .name = "persistent",
    .missing = "this MPI has no persistent stream operations (MPI Advance's MPIS_ calls, mpis.h)"};
#endif
