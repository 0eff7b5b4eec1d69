/* comm_enqueue.c: variant 2, MPICH's stream-enqueued point-to-point, the
 * paper's Algorithm 2 (its mp_isend_on_stream / mp_wait_all_on_stream) in
 * MPICH's API. The host stream becomes an MPIX_Stream (info "type" =
 * "MPIX_Host_stream", "value" its handle through MPIX_Info_set_hex), attached
 * to a duplicate of the communicator; a run enqueues on it
 *   MPIX_Irecv_enqueue per message      (the buffer is written only once the
 *                                        stream has reached the receive)
 *   pack kernel
 *   MPIX_Isend_enqueue per message
 *   MPIX_Waitall_enqueue(receives)
 *   unpack kernel
 *   MPIX_Waitall_enqueue(sends)         (the send buffer is free again)
 * and the whole cycle is synchronized once, at its end. */
#include <stdlib.h>

#include "mg.h"

#if defined(MG_HOST_STREAM) && defined(MPIX_STREAM_NULL) && !defined(MG_NO_ENQUEUE)
struct enqueue_comm {
  MPIX_Stream stream;
  MPI_Comm comm;
};

#define EQ_CHECK(call) \
  if ((call) != MPI_SUCCESS) mg_fail("%s failed", #call)

static void enqueue_init(struct mg *mg) {
  mg_stream_init(mg);
  struct enqueue_comm *ec = calloc(1, sizeof *ec);
  if (!ec) mg_fail("out of memory");
  MPIX_Host_stream host = mg->stream;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "type", "MPIX_Host_stream");
  EQ_CHECK(MPIX_Info_set_hex(info, "value", &host, (int)sizeof host));
  EQ_CHECK(MPIX_Stream_create(info, &ec->stream));
  MPI_Info_free(&info);
  EQ_CHECK(MPIX_Stream_comm_create(mg->comm, ec->stream, &ec->comm));
  mg->vstate = ec;
}

static void enqueue_finalize(struct mg *mg) {
  struct enqueue_comm *ec = mg->vstate;
  MPI_Comm_free(&ec->comm);
  MPIX_Stream_free(&ec->stream);
  free(ec);
  mg->vstate = NULL;
  mg_stream_finalize(mg);
}

static void enqueue_run(struct mg *mg, struct xfer *x, int slot, mg_kernel *pack, mg_kernel *unpack,
                        void *arg) {
  struct mg_p2p_state *st = x->state[slot];
  struct enqueue_comm *ec = mg->vstate;
  MPI_Request *rreq = st->req, *sreq = st->req + x->nrecv;
  x->rbuf = st->rbuf;
  for (int i = 0; i < x->nrecv; ++i)
    EQ_CHECK(MPIX_Irecv_enqueue(x->rbuf + x->recv[i].off, (int)x->recv[i].count, MPI_DOUBLE,
                                x->recv[i].peer, x->tag, ec->comm, &rreq[i]));
  mg_stream_launch(mg, pack, arg);
  for (int i = 0; i < x->nsend; ++i)
    EQ_CHECK(MPIX_Isend_enqueue(x->sbuf + x->send[i].off, (int)x->send[i].count, MPI_DOUBLE,
                                x->send[i].peer, x->tag, ec->comm, &sreq[i]));
  if (x->nrecv) EQ_CHECK(MPIX_Waitall_enqueue(x->nrecv, rreq, MPI_STATUSES_IGNORE));
  mg_stream_launch(mg, unpack, arg);
  if (x->nsend) EQ_CHECK(MPIX_Waitall_enqueue(x->nsend, sreq, MPI_STATUSES_IGNORE));
}

const struct comm_ops mg_comm_enqueue = {
    "enqueue",   NULL,           enqueue_init,   mg_p2p_setup,     mg_stream_launch,
    enqueue_run, mg_stream_sync, mg_p2p_release, enqueue_finalize,
};
#else
const struct comm_ops mg_comm_enqueue = {
    .name = "enqueue",
    .missing = "this MPI has no MPIX_Stream enqueue API (MPIX_Send_enqueue and its family)"};
#endif
