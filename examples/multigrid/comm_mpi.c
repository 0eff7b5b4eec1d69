/* comm_mpi.c: variant 1, plain MPI, as HPGMG-FV does it (the paper's
 * Algorithm 1): MPI_Irecv for every message, the pack kernel, a synchronize,
 * MPI_Isend for every message, MPI_Waitall, the unpack kernel.
 *   mpi  kernels on a host stream with a synchronize after each (the CPU waits
 *        for every kernel, as after every CUDA kernel there)
 *   cpu  kernels called on the CPU thread: no stream at all; the only variant
 *        built with an MPI other than STMPI */
#include <stdlib.h>

#include "mg.h"

void mg_p2p_setup(struct mg *mg, struct xfer *x, int slot) {
  (void)mg;
  struct mg_p2p_state *st = calloc(1, sizeof *st);
  st->req = calloc((size_t)(x->nsend + x->nrecv) + 1, sizeof(MPI_Request));
  st->rbuf = calloc((size_t)x->rlen + 1, sizeof(double));
  if (!st->req || !st->rbuf) mg_fail("out of memory");
  x->state[slot] = st;
}

void mg_p2p_release(struct mg *mg, struct xfer *x, int slot) {
  (void)mg;
  struct mg_p2p_state *st = x->state[slot];
  free(st->req);
  free(st->rbuf);
  free(st);
  x->state[slot] = NULL;
}

static void p2p_run(struct mg *mg, struct xfer *x, int slot, mg_kernel *pack, mg_kernel *unpack,
                    void *arg) {
  struct mg_p2p_state *st = x->state[slot];
  x->rbuf = st->rbuf;
  for (int i = 0; i < x->nrecv; ++i)
    MPI_Irecv(x->rbuf + x->recv[i].off, (int)x->recv[i].count, MPI_DOUBLE, x->recv[i].peer, x->tag,
              mg->comm, &st->req[i]);
  mg->ops->launch(mg, pack, arg); /* returns when the kernel has run */
  for (int i = 0; i < x->nsend; ++i)
    MPI_Isend(x->sbuf + x->send[i].off, (int)x->send[i].count, MPI_DOUBLE, x->send[i].peer, x->tag,
              mg->comm, &st->req[x->nrecv + i]);
  MPI_Waitall(x->nrecv + x->nsend, st->req, MPI_STATUSES_IGNORE);
  mg->ops->launch(mg, unpack, arg);
}

static void cpu_launch(struct mg *mg, mg_kernel *fn, void *arg) {
  (void)mg;
  fn(arg);
}

static void nothing(struct mg *mg) { (void)mg; }

const struct comm_ops mg_comm_cpu = {
    "cpu", NULL, nothing, mg_p2p_setup, cpu_launch, p2p_run, nothing, mg_p2p_release, nothing,
};

#ifdef MG_HOST_STREAM
void mg_stream_init(struct mg *mg) {
  MPIX_Host_stream s;
  if (MPIX_Host_stream_create(&s) != MPI_SUCCESS) mg_fail("MPIX_Host_stream_create failed");
  mg->stream = s;
}

void mg_stream_finalize(struct mg *mg) {
  MPIX_Host_stream s = mg->stream;
  MPIX_Host_stream_free(&s);
  mg->stream = NULL;
}

void mg_stream_sync(struct mg *mg) {
  if (MPIX_Host_stream_synchronize(mg->stream) != MPI_SUCCESS)
    mg_fail("MPIX_Host_stream_synchronize failed");
}

void mg_stream_launch(struct mg *mg, mg_kernel *fn, void *arg) {
  if (MPIX_Host_stream_launch(mg->stream, fn, arg) != MPI_SUCCESS)
    mg_fail("MPIX_Host_stream_launch failed");
}

static void stream_launch_sync(struct mg *mg, mg_kernel *fn, void *arg) {
  mg_stream_launch(mg, fn, arg);
  mg_stream_sync(mg);
}

const struct comm_ops mg_comm_mpi = {
    "mpi",   NULL,           mg_stream_init, mg_p2p_setup,       stream_launch_sync,
    p2p_run, mg_stream_sync, mg_p2p_release, mg_stream_finalize,
};
#else
const struct comm_ops mg_comm_mpi = {.name = "mpi",
                                     .missing = "needs STMPI's host streams (MPIX_Host_stream)"};
#endif
