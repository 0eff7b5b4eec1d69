/* mg.h: the multigrid example's data (boxes, levels, communication patterns)
 * and the interfaces between its files. README.md explains the algorithm. */
#ifndef MG_H
#define MG_H

#include <mpi.h>

#include <stddef.h>

/* STMPI's mpix.h defines MPIX_MODE_STREAM next to its host streams: without
 * it (another MPI) only the variant whose kernels run on the CPU thread is
 * built. MG_NO_HOST_STREAM leaves the host-stream variants out by hand. */
#if defined(MPIX_MODE_STREAM) && !defined(MG_NO_HOST_STREAM)
#define MG_HOST_STREAM 1
#endif

/* MPICH's mpi.h declares MPI_STATUSES_IGNORE so that GCC 11 and later warn
 * on every MPI_Waitall that is given it. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#define MG_MAX_LEVELS 24

typedef void mg_kernel(void *arg);

enum { NB_BOUNDARY, NB_LOCAL, NB_REMOTE }; /* what lies across a box face */
enum { PH_COMPUTE, PH_EXCHANGE, PH_TRANSFER, NPHASES };

/* A box: n[0] x n[1] x n[2] cells with one ghost layer; u (solution), f
 * (right-hand side), r (residual) are (n+2)-cubes, index mg_at(). */
struct box {
  int n[3];
  long s[3];  /* strides: s[2] == 1 */
  long g[3];  /* global index of cell (0, 0, 0) on its level (red-black parity) */
  int pos[3]; /* box coordinates on a distributed level */
  double *u, *f, *r;
  int nb_kind[6];              /* face 2 * axis + side (side 1: the high end) */
  int nb_box[6];               /* NB_LOCAL: local index of the neighbour */
  long nb_send[6], nb_recv[6]; /* NB_REMOTE: offsets in the exchange's buffers */
};

static inline long mg_at(const struct box *b, long i, long j, long k) {
  return (i + 1) * b->s[0] + (j + 1) * b->s[1] + (k + 1);
}

/* One message of a communication pattern: peer, where it lies in this
 * process's buffer and (sends) where it lands in the peer's receive buffer. */
struct msg {
  int peer;
  long off, count, remote_off;
};

/* A communication pattern run many times: a level's boundary exchange or the
 * gather and scatter between the last distributed level and rank 0's levels. */
struct xfer {
  int nsend, nrecv, tag;
  struct msg *send, *recv;
  double *sbuf;
  double *rbuf; /* the running variant's receive buffer */
  long slen, rlen;
  void *state[8]; /* per variant, owned by its comm_ops */
};

struct level;
struct mg;

/* Arguments of the kernels, allocated once per level and kind: the stream
 * variants read them when the stream runs the kernel, long after enqueueing. */
struct karg {
  struct mg *mg;
  struct level *lv;
  int what; /* colour, field or add/assign, by kernel */
};

/* Link from a fine level to the next coarser one: per fine box, the coarse
 * box and offset of its image, or (not local) its slot in the gather/scatter. */
struct link {
  int *local, *cbox;
  long (*coff)[3];
  long *slot;   /* offset in the gather's send / scatter's receive buffer */
  int transfer; /* 1: gather and scatter messages between processes */
  struct xfer gather, scatter;
  long qcells; /* cells of one box's coarse image (gather/scatter block) */
  int qdim;    /* its edge */
};

struct level {
  int id, nbox, agg; /* agg: rank 0's single box (the agglomerated levels) */
  int box_dim;       /* cubic edge on distributed levels, 0 on agglomerated */
  long dims[3];      /* global cells */
  double h;
  struct box *box;
  int has_ex; /* the exchange has messages */
  struct xfer ex;
  struct link down; /* to level id + 1 */
  struct karg k_pack, k_smooth[2], k_resid, k_restrict[2], k_interp[2];
  double t[NPHASES]; /* stream time attributed to this level, by phase */
};

/* A communication variant: how kernels are launched and patterns run. */
struct comm_ops {
  const char *name;
  const char *missing; /* non-NULL: why this build leaves the variant out */
  void (*init)(struct mg *mg);
  void (*setup)(struct mg *mg, struct xfer *x, int slot); /* collective, every pattern */
  void (*launch)(struct mg *mg, mg_kernel *fn, void *arg);
  void (*run)(struct mg *mg, struct xfer *x, int slot, mg_kernel *pack, mg_kernel *unpack,
              void *arg);
  void (*sync)(struct mg *mg);
  void (*release)(struct mg *mg, struct xfer *x, int slot);
  void (*finalize)(struct mg *mg);
};

struct mg {
  int rank, size, serial; /* serial: one box per level, no messages */
  int pr[3], br[3], B[3]; /* ranks, boxes per rank, boxes per axis */
  int log2_box, nu, bottom_sweeps, vcycles;
  int nlev;
  struct level lev[MG_MAX_LEVELS];
  MPI_Comm comm;
  const struct comm_ops *ops;
  int slot;     /* the running variant's index into xfer.state */
  void *stream; /* the variant's host stream */
  void *vstate; /* the variant's own data */
  double last;  /* end of the last kernel (time attribution) */
};

/* level.c */
void mg_build(struct mg *mg);
void mg_free(struct mg *mg);
void mg_rank_box(const struct mg *mg, int rank, int local, int pos[3]);
void mg_init_rhs(struct mg *mg);

/* kernels.c: every kernel takes a struct karg * */
mg_kernel k_pack, k_unpack, k_smooth, k_resid, k_restrict, k_interp, k_gather_unpack,
    k_scatter_pack;
double mg_now(void);
double mg_residual_norm(struct box *b, double h, double *fnorm); /* max norms, one box */

/* cycle.c */
void mg_solve(struct mg *mg); /* one F-cycle and mg->vcycles V-cycles */

/* comm_*.c */
extern const struct comm_ops mg_comm_mpi, mg_comm_cpu, mg_comm_enqueue, mg_comm_persistent,
    mg_comm_strma, mg_comm_stepoch;
/* Requests (receives first) and a receive buffer per pattern, for the
 * point-to-point variants. */
struct mg_p2p_state {
  MPI_Request *req;
  double *rbuf;
};
void mg_p2p_setup(struct mg *mg, struct xfer *x, int slot);
void mg_p2p_release(struct mg *mg, struct xfer *x, int slot);
#ifdef MG_HOST_STREAM
void mg_stream_init(struct mg *mg); /* mg->stream: a new MPIX_Host_stream */
void mg_stream_finalize(struct mg *mg);
void mg_stream_launch(struct mg *mg, mg_kernel *fn, void *arg);
void mg_stream_sync(struct mg *mg);
#endif
void mg_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
