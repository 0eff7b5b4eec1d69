/* faces: nearest-neighbour exchange of faces, edges and corners on a 3-D
 * grid of ranks (after the Faces benchmark of seed 001, section 6), in three
 * variants:
 *
 *   p2p  MPI_Irecv / MPI_Isend / MPI_Waitall
 *   rma  active-target RMA: MPI_Win_post / MPI_Win_start / MPI_Put /
 *        MPI_Win_complete / MPI_Win_wait on a window from MPI_Win_allocate
 *   st   stream-triggered active RMA: MPIX_Win_post_stream,
 *        MPI_Win_start(group, MPIX_MODE_STREAM, win), MPI_Put,
 *        MPIX_Win_complete_stream, MPIX_Win_wait_stream, all on a host stream
 *   pst  the st step as a persistent stream epoch, recorded once per window
 *        (MPIX_Win_epoch_init, the puts, MPIX_Win_epoch_commit) and started
 *        once per step (MPIX_Win_epoch_start_stream)
 *
 * Grid: the ranks are factored into px x py x pz (as even as possible,
 * px >= py >= pz), rank = (x * py + y) * pz + z. Periodic by default (every
 * rank has 26 neighbour directions; on a 2x2x2 grid they are the 7 other
 * ranks, each reached through several directions); -n makes it non-periodic
 * (a rank on the border has fewer neighbours).
 *
 * Message sizes: -s gives the bytes of a face; an edge carries
 * ceil(sqrt(face doubles)) doubles and a corner one double, as the faces,
 * edges and corners of a block of spectral elements (n^2, n, 1 points).
 *
 * Loops (per repeat): outer loop creates and frees the window (rma, st) or
 * the buffers and request arrays (p2p); middle loop re-initialises the data
 * and runs the inner loop; inner loop runs the communication steps, and only
 * the inner loop is timed. Each step, as in Figure 9 of the paper:
 *
 *   p2p  Irecv all; launch increment; synchronize stream; Isend all;
 *        Waitall; launch compare; synchronize stream
 *   rma  post; launch increment; synchronize stream; start; put all;
 *        complete; wait; launch compare; synchronize stream
 *   st   post_stream; launch increment; start(MODE_STREAM); put all;
 *        complete_stream; wait_stream; launch compare   (nothing blocks;
 *        the stream is synchronized once, after the inner loop)
 *
 * "increment" adds 1 to every element this rank sends; "compare" checks
 * every received element against the value its sender must have sent in
 * this step and counts mismatches. Both run on a host stream
 * (MPIX_Host_stream_launch) in every variant. Any mismatch, or a compare
 * that did not run, aborts the program.
 *
 * Output lines (besides '#' comments):
 *   faces VARIANT FACE_BYTES median_us min_us max_us iters
 *       time per inner step, the slowest rank's, median over repeats
 *   cpu VARIANT FACE_BYTES mpi_us launch_us sync_us
 *       per step on rank 0: time the CPU spent in MPI calls, in
 *       MPIX_Host_stream_launch, in MPIX_Host_stream_synchronize (medians)
 *   exec VARIANT FACE_BYTES stream_cpu_us main_cpu_us sleeps preemptions kernels_us
 *       per step on rank 0: CPU time of the host stream's thread and of the
 *       main thread, the stream thread's voluntary context switches (sleeps,
 *       each ended by a wake-up) and involuntary ones (preemptions, yields),
 *       wall time inside the increment and compare kernels
 *   st FACE_BYTES post_us start_us put_us complete_us wait_us launch_us
 *       enqueue_us sync_us first_kernel_us exec_us tail_us
 *       ST breakdown on rank 0 (medians over repeats), see README: per step,
 *       except first_kernel_us and tail_us, which are per inner loop
 *   ststats FACE_BYTES epochs signal copy wait
 *       per step on rank 0, from MPIX_Win_get_stream_stats: stream epochs
 *       closed and merged launches by kind
 *
 * Overlap (seed 001, section 6.7): -K US launches a compute kernel of US
 * microseconds per step on a second host stream (synchronized after the
 * inner loop), -C US computes US microseconds per step on the CPU thread
 * after the step (p2p, rma: after it completed; st: after it was enqueued).
 * Every variant does the same work.
 *
 * GPU mode (-G PTXFILE; faces_gpu.c has the details): the stream is a CUDA
 * stream, the kernels those of faces_kernels.cu (from its PTX, nvcc -ptx
 * -arch=compute_90), the same steps with cuStreamSynchronize; run it with
 * STMPI_STREAM_BACKEND=cuda. Buffers are pinned host memory. "launch" and
 * "sync" are then cuLaunchKernel and cuStreamSynchronize; exec's stream_cpu,
 * sleeps, preemptions and kernels_us and st's first_kernel_us, exec_us and
 * tail_us are 0 (no host stream thread, no kernel clock). No -K with -G.
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "faces_gpu.h"
#include "faces_kernels.h"
#include "faces_util.h" /* now, factor3, parse_list, median, compute_chain, thread probes */

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

/* The st variant needs MPIX_MODE_STREAM in mpi.h; -DFACES_NO_ST leaves it out. */
#if defined(MPIX_MODE_STREAM) && !defined(FACES_NO_ST)
#define FACES_ST 1
#endif
/* pst needs the persistent epochs of mpix.h. */
#if defined(FACES_ST) && defined(MPIX_WIN_EPOCH_NULL)
#define FACES_PST 1
#endif

#define NDIR FACES_NDIR /* direction index (dx+1)*9 + (dy+1)*3 + (dz+1); 13 is the rank itself */
#define SELF_DIR 13
#define MAX_REPEATS 101
#define MAX_SIZES 64

enum variant { V_P2P, V_RMA, V_ST, V_PST, NVARIANTS };
static const char *variant_name[NVARIANTS] = {"p2p", "rma", "st", "pst"};

static int world_rank, world_size;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "faces: error (rank %d): ", world_rank);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

#define CHECK_MPI(call)                    \
  do {                                     \
    int err_ = (call);                     \
    if (err_ != MPI_SUCCESS) {             \
      char msg_[MPI_MAX_ERROR_STRING];     \
      int len_ = 0;                        \
      MPI_Error_string(err_, msg_, &len_); \
      fail("%s failed: %s", #call, msg_);  \
    }                                      \
  } while (0)

/* ---- grid ----------------------------------------------------------------- */

struct grid {
  int dims[3], coords[3], periodic;
  int nb[NDIR];            /* neighbour rank per direction, -1 if none */
  long len[NDIR];          /* doubles per direction (same both ways) */
  long off[NDIR];          /* offset of the region in the send / receive buffers */
  long total;              /* doubles in either buffer */
  int npeers, peers[NDIR]; /* distinct neighbour ranks, ascending */
};

static int opposite(int d) { return faces_opposite(d); }
static int dir_kind(int d) { /* 1 face, 2 edge, 3 corner */
  int dx = d / 9 - 1, dy = d / 3 % 3 - 1, dz = d % 3 - 1;
  return (dx != 0) + (dy != 0) + (dz != 0);
}

static void grid_setup(struct grid *g, long face_bytes, int periodic) {
  memset(g, 0, sizeof *g);
  g->periodic = periodic;
  factor3(world_size, g->dims);
  int r = world_rank;
  g->coords[2] = r % g->dims[2];
  g->coords[1] = r / g->dims[2] % g->dims[1];
  g->coords[0] = r / g->dims[2] / g->dims[1];
  long face = face_bytes / (long)sizeof(double);
  if (face < 1) face = 1;
  long edge = (long)ceil(sqrt((double)face));
  long len_of_kind[4] = {0, face, edge, 1};
  int seen[4096] = {0}; /* ranks seen as peers (bitmap would be smaller; ranks are few) */
  if (world_size > 4096) fail("at most 4096 ranks");
  for (int d = 0; d < NDIR; ++d) {
    g->nb[d] = -1;
    if (d == SELF_DIR) continue;
    int delta[3] = {d / 9 - 1, d / 3 % 3 - 1, d % 3 - 1}, c[3], ok = 1;
    for (int k = 0; k < 3; ++k) {
      c[k] = g->coords[k] + delta[k];
      if (c[k] < 0 || c[k] >= g->dims[k]) {
        if (!periodic) ok = 0;
        c[k] = (c[k] + g->dims[k]) % g->dims[k];
      }
    }
    if (!ok) continue;
    g->nb[d] = (c[0] * g->dims[1] + c[1]) * g->dims[2] + c[2];
    if (!seen[g->nb[d]]) seen[g->nb[d]] = 1, ++g->npeers;
  }
  /* Every direction has a region (also those without a neighbour), so that
   * all ranks share one layout and a target displacement is known locally. */
  for (int d = 0; d < NDIR; ++d) {
    g->len[d] = d == SELF_DIR ? 0 : len_of_kind[dir_kind(d)];
    g->off[d] = g->total;
    g->total += g->len[d];
  }
  int k = 0;
  for (int r2 = 0; r2 < world_size; ++r2)
    if (seen[r2]) g->peers[k++] = r2;
}

/* ---- data and kernels ----------------------------------------------------- */

/* The values sent and expected (faces_base_value, faces_expected) are in
 * faces_kernels.h, shared with the GPU kernels. */

struct kstate { /* shared by the kernels of one rank; touched only on the stream */
  const struct grid *g;
  double *src, *dst; /* send buffer, receive buffer (window memory for rma, st) */
  long mid;          /* middle iteration (set by the CPU while the stream is idle) */
  long steps;        /* compares run in this middle iteration */
  long increments;
  long errors;
  char first_error[256];
  double t_first, t_last; /* start of the first kernel, end of the last (stream clock) */
  double t_kernels;       /* time spent in the two kernels */
};

static void increment_kernel(void *arg) {
  struct kstate *s = arg;
  double t0 = now();
  if (s->t_first == 0) s->t_first = t0;
  double *p = s->src;
  long n = s->g->total;
  for (long i = 0; i < n; ++i) p[i] += 1.0;
  ++s->increments;
  s->t_last = now();
  s->t_kernels += s->t_last - t0;
}

static void compare_kernel(void *arg) {
  struct kstate *s = arg;
  double t0 = now();
  if (s->t_first == 0) s->t_first = t0;
  const struct grid *g = s->g;
  long step = s->steps + 1; /* the sender incremented step times */
  for (int d = 0; d < NDIR; ++d) {
    int from = g->nb[d];
    if (from < 0) continue;
    /* Region d holds what the neighbour in direction d sent in its direction opposite(d). */
    const double *p = s->dst + g->off[d];
    for (long i = 0; i < g->len[d]; ++i) {
      double want = faces_expected(s->mid, from, d, i, step);
      if (p[i] != want) {
        if (s->errors++ == 0)
          snprintf(
              s->first_error, sizeof s->first_error,
              "step %ld, middle %ld: region %d (from rank %d) element %ld is %.17g, expected %.17g",
              step, s->mid, d, from, i, p[i], want);
      }
    }
  }
  s->steps = step;
  s->t_last = now();
  s->t_kernels += s->t_last - t0;
}

static void init_data(struct kstate *s, long mid) {
  const struct grid *g = s->g;
  for (int d = 0; d < NDIR; ++d)
    for (long i = 0; i < g->len[d]; ++i)
      s->src[g->off[d] + i] = faces_base_value(mid, world_rank, d, i);
  for (long i = 0; i < g->total; ++i) s->dst[i] = -1.0;
  s->mid = mid;
  s->steps = 0;
  s->increments = 0;
  s->t_first = s->t_last = 0;
  s->t_kernels = 0;
}

static void check_data(const struct kstate *s, long inner) {
  if (s->errors)
    fail("compare kernel found %ld wrong elements; first: %s", s->errors, s->first_error);
  if (s->steps != inner || s->increments != inner)
    fail("after the inner loop the stream ran %ld increments and %ld compares, expected %ld",
         s->increments, s->steps, inner);
}

/* ---- timing accumulators -------------------------------------------------- */

enum {
  T_INNER,
  T_MPI,
  T_LAUNCH,
  T_SYNC,
  T_POST,
  T_START,
  T_PUT,
  T_COMPLETE,
  T_WAIT,
  T_ENQ,
  T_STSYNC,
  T_FIRST,
  T_EXEC,
  T_TAIL,
  T_STREAM_CPU,
  T_MAIN_CPU,
  T_VOL,
  T_INVOL,
  T_EPOCHS,
  T_SIGNAL,
  T_COPY,
  T_WAITK,
  T_KERNELS,
  NT
};
struct timers {
  double t[NT];
};

#define TIMED(tm, slot, call)     \
  do {                            \
    double t0_ = now();           \
    CHECK_MPI(call);              \
    (tm)->t[slot] += now() - t0_; \
  } while (0)

/* ---- options -------------------------------------------------------------- */

struct opts {
  int variants[NVARIANTS], nvariants;
  long sizes[MAX_SIZES];
  int nsizes;
  long outer, middle, inner;
  int repeats, warmup, periodic;
  int corrupt;              /* self-test: rank 0 sends zeros instead of its first region */
  double kernel_us, cpu_us; /* overlap: compute per step on a second stream / on the CPU */
  const char *gpu_ptx;      /* -G: GPU mode, the kernels' PTX file */
};

static void usage(void) {
  if (world_rank == 0)
    fprintf(
        stderr,
        "usage: faces [-v p2p|rma|st|pst|all] [-s FACE_BYTES,...] [-o OUTER] [-m MIDDLE] [-i "
        "INNER]\n"
        "             [-r REPEATS] [-w WARMUP] [-n] [-q] [-X] [-K US] [-C US] [-G PTXFILE]\n"
        "  -v  variant(s), comma separated; all = p2p,rma,st,pst (default all)\n"
        "  -s  bytes per face, K/M suffixes (default 8,64,512,4K,16K,64K)\n"
        "  -o/-m/-i  outer (window/request lifetimes), middle (re-initialisations),\n"
        "      inner (communication steps) loop counts (default 2, 4, 50)\n"
        "  -r  repeats of the whole loop nest, median reported (default 5)\n"
        "  -w  untimed repeats before the timed ones (default 1)\n"
        "  -n  non-periodic grid (default periodic)\n"
        "  -X  self-test of the verification: rank 0 sends zeros in one direction;\n"
        "      every variant must then fail with a compare error\n"
        "  -q  quick: -o 1 -m 2 -i 20 -r 3\n"
        "  -K  overlap: a compute kernel of US microseconds per step on a second host stream\n"
        "  -C  overlap: US microseconds of computation per step on the CPU thread\n"
        "  -G  GPU mode: a CUDA stream and the GPU kernels of faces_kernels.cu, from its PTX\n"
        "      (nvcc -ptx -arch=compute_90 faces_kernels.cu); run with STMPI_STREAM_BACKEND=cuda;\n"
        "      needs the CUDA driver and a device; not with -K\n");
}

static void parse_opts(struct opts *o, int argc, char **argv) {
  static const long default_sizes[] = {8, 64, 512, 4096, 16384, 65536};
  memset(o, 0, sizeof *o);
  o->outer = 2, o->middle = 4, o->inner = 50, o->repeats = 5, o->warmup = 1, o->periodic = 1;
  memcpy(o->sizes, default_sizes, sizeof default_sizes);
  o->nsizes = (int)(sizeof default_sizes / sizeof *default_sizes);
  const char *vlist = "all";
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-n")) o->periodic = 0;
    else if (!strcmp(a, "-X")) o->corrupt = 1;
    else if (!strcmp(a, "-q")) o->outer = 1, o->middle = 2, o->inner = 20, o->repeats = 3;
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage();
      MPI_Finalize();
      exit(0);
    } else if (v && !strcmp(a, "-v")) vlist = v, ++i;
    else if (v && !strcmp(a, "-K")) o->kernel_us = atof(v), ++i;
    else if (v && !strcmp(a, "-C")) o->cpu_us = atof(v), ++i;
    else if (v && !strcmp(a, "-G")) o->gpu_ptx = v, ++i;
    else if (v && !strcmp(a, "-s")) {
      o->nsizes = parse_list(v, o->sizes, MAX_SIZES), ++i;
      if (o->nsizes < 1) {
        usage();
        fail("bad size list '%s'", v);
      }
    } else if (v && (!strcmp(a, "-o") || !strcmp(a, "-m") || !strcmp(a, "-i") || !strcmp(a, "-r") ||
                     !strcmp(a, "-w"))) {
      long n = atol(v);
      ++i;
      if (a[1] == 'w') {
        if (n < 0) {
          usage();
          fail("-w wants a number >= 0");
        }
        o->warmup = (int)n;
        continue;
      }
      if (n < 1) {
        usage();
        fail("%s wants a positive number", a);
      }
      if (a[1] == 'o') o->outer = n;
      else if (a[1] == 'm') o->middle = n;
      else if (a[1] == 'i') o->inner = n;
      else {
        if (n > MAX_REPEATS) fail("-r wants at most %d", MAX_REPEATS);
        o->repeats = (int)n;
      }
    } else {
      usage();
      fail("unknown option '%s'%s", a, strcmp(a, "-G") ? "" : ": -G wants a PTX file");
    }
  }
  if (o->gpu_ptx && o->kernel_us > 0)
    fail("-K (a compute kernel on a second host stream) is not supported in GPU mode (-G)");
  char buf[64];
  snprintf(buf, sizeof buf, "%s", vlist);
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    if (!strcmp(tok, "all")) {
      for (int k = 0; k < NVARIANTS; ++k) o->variants[o->nvariants++] = k;
      continue;
    }
    int found = -1;
    for (int k = 0; k < NVARIANTS; ++k)
      if (!strcmp(tok, variant_name[k])) found = k;
    if (found < 0 || o->nvariants >= NVARIANTS) {
      usage();
      fail("unknown variant '%s'", tok);
    }
    o->variants[o->nvariants++] = found;
  }
}

/* ---- the three variants --------------------------------------------------- */

struct run_ctx {
  const struct opts *o;
  struct grid g;
  MPI_Group group; /* the distinct neighbours */
  MPIX_Host_stream stream;
  struct kstate ks;
  struct timers tm;
  struct executor_id exec;         /* the host stream's thread */
  double *zeros;                   /* for -X */
  MPIX_Host_stream compute_stream; /* -K */
  long kernel_iters, cpu_iters;
  double compute_acc;
  int corrupt_dir;         /* for -X: the direction rank 0 sends zeros in, or -1 */
  int gpu;                 /* -G: CUDA stream and GPU kernels (faces_gpu.c) */
  struct faces_kparams kp; /* GPU mode: the kernels' argument */
};

struct probe {
  double stream_cpu, main_cpu;
  long vol, invol;
};

static void probe_read(const struct run_ctx *c, struct probe *p) {
  memset(p, 0, sizeof *p);
  p->main_cpu = thread_cpu(pthread_self());
  if (c->gpu) return; /* no host stream thread */
  p->stream_cpu = thread_cpu(c->exec.thread);
  thread_switches(c->exec.tid, &p->vol, &p->invol);
}

static void probe_end(struct run_ctx *c, const struct probe *before) {
  struct probe after;
  probe_read(c, &after);
  c->tm.t[T_STREAM_CPU] += after.stream_cpu - before->stream_cpu;
  c->tm.t[T_MAIN_CPU] += after.main_cpu - before->main_cpu;
  c->tm.t[T_VOL] += (double)(after.vol - before->vol);
  c->tm.t[T_INVOL] += (double)(after.invol - before->invol);
  c->tm.t[T_KERNELS] += c->ks.t_kernels;
}

static const double *send_region(const struct run_ctx *c, const double *src, int d) {
  return d == c->corrupt_dir ? c->zeros : src + c->g.off[d];
}

/* Overlap work: a dependent floating-point chain, the same in every variant. */
struct compute_arg {
  struct run_ctx *c;
  long iters;
};
static void compute_kernel(void *arg) {
  struct run_ctx *c = arg;
  compute_chain(&c->compute_acc, c->kernel_iters);
}
/* Before a step: the compute kernel on the second stream (-K). */
static void overlap_before(struct run_ctx *c) {
  if (c->kernel_iters > 0) CHECK_MPI(MPIX_Host_stream_launch(c->compute_stream, compute_kernel, c));
}
/* After a step is done (p2p, rma) or enqueued (st): CPU computation (-C). */
static void overlap_after(struct run_ctx *c) {
  if (c->cpu_iters > 0) compute_chain(&c->compute_acc, c->cpu_iters);
}
static void overlap_end(struct run_ctx *c) {
  if (c->kernel_iters > 0) CHECK_MPI(MPIX_Host_stream_synchronize(c->compute_stream));
}

/* The stream: a host stream, or in GPU mode the CUDA stream of faces_gpu.c. */
enum kernel { K_INCREMENT, K_COMPARE };
static void stream_sync(struct run_ctx *c) {
  double t0 = now();
  if (c->gpu) faces_gpu_sync();
  else CHECK_MPI(MPIX_Host_stream_synchronize(c->stream));
  c->tm.t[T_SYNC] += now() - t0;
}
static void stream_launch(struct run_ctx *c, enum kernel k) {
  double t0 = now();
  if (!c->gpu)
    CHECK_MPI(MPIX_Host_stream_launch(
        c->stream, k == K_INCREMENT ? increment_kernel : compare_kernel, &c->ks));
  else if (k == K_INCREMENT) faces_gpu_increment(&c->kp);
  else faces_gpu_compare(&c->kp);
  c->tm.t[T_LAUNCH] += now() - t0;
}

/* Buffers the kernels touch: in GPU mode pinned host memory (cuMemHostAlloc),
 * which ordinary MPI calls and the stream's copies read and write alike. */
static double *buf_alloc(const struct run_ctx *c, long n) {
  if (c->gpu) return faces_gpu_alloc((size_t)n * sizeof(double));
  double *p;
  CHECK_MPI(MPI_Alloc_mem((MPI_Aint)(n * (long)sizeof(double)), MPI_INFO_NULL, &p));
  return p;
}
static void buf_free(const struct run_ctx *c, double *p) {
  if (c->gpu) faces_gpu_free(p);
  else CHECK_MPI(MPI_Free_mem(p));
}

/* Before a middle iteration's inner loop, the stream idle: fresh data, and in
 * GPU mode zeroed kernel counters. After it: the kernels' results, checked. */
static void begin_middle(struct run_ctx *c, long mid) {
  init_data(&c->ks, mid);
  if (c->gpu) faces_gpu_begin(&c->kp, c->ks.src, c->ks.dst, mid);
}
static void end_middle(struct run_ctx *c, long inner) {
  if (c->gpu) {
    long errors = 0;
    faces_gpu_result(c->ks.mid, &errors, &c->ks.increments, &c->ks.steps, c->ks.first_error,
                     sizeof c->ks.first_error);
    c->ks.errors += errors;
  }
  check_data(&c->ks, inner);
}

static void run_p2p(struct run_ctx *c) {
  const struct grid *g = &c->g;
  const struct opts *o = c->o;
  for (long out = 0; out < o->outer; ++out) {
    double *src = buf_alloc(c, g->total), *dst = buf_alloc(c, g->total);
    MPI_Request *reqs = malloc(2 * NDIR * sizeof *reqs);
    c->ks.src = src, c->ks.dst = dst;
    for (long mid = 0; mid < o->middle; ++mid) {
      begin_middle(c, out * o->middle + mid);
      struct probe pr;
      MPI_Barrier(MPI_COMM_WORLD);
      probe_read(c, &pr);
      double t0 = now();
      for (long it = 0; it < o->inner; ++it) {
        int n = 0;
        overlap_before(c);
        double tm0 = now();
        for (int d = 0; d < NDIR; ++d)
          if (g->nb[d] >= 0)
            CHECK_MPI(MPI_Irecv(dst + g->off[d], (int)g->len[d], MPI_DOUBLE, g->nb[d], d,
                                MPI_COMM_WORLD, &reqs[n++]));
        c->tm.t[T_MPI] += now() - tm0;
        stream_launch(c, K_INCREMENT);
        stream_sync(c);
        tm0 = now();
        for (int d = 0; d < NDIR; ++d)
          if (g->nb[d] >= 0)
            CHECK_MPI(MPI_Isend(send_region(c, src, d), (int)g->len[d], MPI_DOUBLE, g->nb[d],
                                opposite(d), MPI_COMM_WORLD, &reqs[n++]));
        CHECK_MPI(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
        c->tm.t[T_MPI] += now() - tm0;
        stream_launch(c, K_COMPARE);
        stream_sync(c);
        overlap_after(c);
      }
      overlap_end(c);
      c->tm.t[T_INNER] += now() - t0;
      probe_end(c, &pr);
      end_middle(c, o->inner);
    }
    free(reqs);
    buf_free(c, dst);
    buf_free(c, src);
  }
}

/* Puts of one step: every direction's region to the neighbour's opposite region. */
static void put_all(struct run_ctx *c, const double *src, MPI_Win win) {
  const struct grid *g = &c->g;
  for (int d = 0; d < NDIR; ++d)
    if (g->nb[d] >= 0)
      CHECK_MPI(MPI_Put(send_region(c, src, d), (int)g->len[d], MPI_DOUBLE, g->nb[d],
                        (MPI_Aint)g->off[opposite(d)], (int)g->len[d], MPI_DOUBLE, win));
}

/* st: 0 PSCW (rma), 1 stream epochs (st), 2 a persistent stream epoch (pst). */
static void run_rma(struct run_ctx *c, int st) {
  const struct grid *g = &c->g;
  const struct opts *o = c->o;
  struct timers *tm = &c->tm;
#ifndef FACES_ST
  if (st) fail("this build has no stream-triggered RMA (MPIX_MODE_STREAM is not in mpi.h)");
#endif
#ifndef FACES_PST
  if (st == 2) fail("this build has no persistent stream epochs (MPIX_WIN_EPOCH_NULL)");
#endif
  for (long out = 0; out < o->outer; ++out) {
    double *src = buf_alloc(c, g->total), *dst;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate((MPI_Aint)(g->total * sizeof(double)), (int)sizeof(double),
                               MPI_INFO_NULL, MPI_COMM_WORLD, &dst, &win));
    /* GPU mode: compare reads the window. For st the library registers the
     * window's whole shared segment with CUDA at the first post_stream (and
     * fails where a part is registered already), so faces registers it only
     * for rma, where no stream ever sees the window. */
    void *registered =
        c->gpu && !st ? faces_gpu_register(dst, (size_t)g->total * sizeof(double)) : NULL;
    c->ks.src = src, c->ks.dst = dst;
#ifdef FACES_PST
    MPIX_Win_epoch epoch = MPIX_WIN_EPOCH_NULL;
    if (st == 2) {
      CHECK_MPI(MPIX_Win_epoch_init(c->group, c->group, win, &epoch));
      put_all(c, src, win);
      CHECK_MPI(MPIX_Win_epoch_commit(epoch));
    }
#endif
    for (long mid = 0; mid < o->middle; ++mid) {
      begin_middle(c, out * o->middle + mid);
      struct probe pr;
      MPI_Barrier(MPI_COMM_WORLD);
      probe_read(c, &pr);
      double t0 = now();
      if (!st) {
        for (long it = 0; it < o->inner; ++it) {
          overlap_before(c);
          double tm0 = now();
          CHECK_MPI(MPI_Win_post(c->group, 0, win));
          tm->t[T_MPI] += now() - tm0;
          stream_launch(c, K_INCREMENT);
          stream_sync(c);
          tm0 = now();
          CHECK_MPI(MPI_Win_start(c->group, 0, win));
          put_all(c, src, win);
          CHECK_MPI(MPI_Win_complete(win));
          CHECK_MPI(MPI_Win_wait(win));
          tm->t[T_MPI] += now() - tm0;
          stream_launch(c, K_COMPARE);
          stream_sync(c);
          overlap_after(c);
        }
      } else {
#ifdef FACES_ST
        void *stream = c->gpu ? faces_gpu_stream() : (void *)c->stream;
        for (long it = 0; it < o->inner && st == 2; ++it) {
#ifdef FACES_PST
          overlap_before(c);
          stream_launch(c, K_INCREMENT);
          TIMED(tm, T_START, MPIX_Win_epoch_start_stream(epoch, stream));
          stream_launch(c, K_COMPARE);
          overlap_after(c);
#endif
        }
        for (long it = 0; it < o->inner && st == 1; ++it) {
          overlap_before(c);
          TIMED(tm, T_POST, MPIX_Win_post_stream(c->group, win, stream));
          stream_launch(c, K_INCREMENT);
          TIMED(tm, T_START, MPI_Win_start(c->group, MPIX_MODE_STREAM, win));
          double tp = now();
          put_all(c, src, win);
          tm->t[T_PUT] += now() - tp;
          TIMED(tm, T_COMPLETE, MPIX_Win_complete_stream(win, stream));
          TIMED(tm, T_WAIT, MPIX_Win_wait_stream(win, stream));
          stream_launch(c, K_COMPARE);
          overlap_after(c);
        }
        double t_enq = now();
        tm->t[T_ENQ] += t_enq - t0;
        stream_sync(c);
        double t_end = now();
        tm->t[T_STSYNC] += t_end - t_enq;
        if (!c->gpu) { /* the host stream's clock */
          tm->t[T_FIRST] += c->ks.t_first - t0;
          tm->t[T_EXEC] += c->ks.t_last - c->ks.t_first;
          tm->t[T_TAIL] += t_end - c->ks.t_last;
        }
#endif
      }
      overlap_end(c);
      c->tm.t[T_INNER] += now() - t0;
      probe_end(c, &pr);
      end_middle(c, o->inner);
    }
#ifdef FACES_ST
    if (st) {
      long long epochs, sig, copy, wait, pending;
      CHECK_MPI(MPIX_Win_get_stream_stats(win, &epochs, &sig, &copy, &wait));
      CHECK_MPI(MPIX_Win_get_stream_pending(win, &pending));
      if (pending != 0)
        fail("%lld stream epochs still pending after the stream was synchronized", pending);
      tm->t[T_EPOCHS] += (double)epochs, tm->t[T_SIGNAL] += (double)sig;
      tm->t[T_COPY] += (double)copy, tm->t[T_WAITK] += (double)wait;
    }
#endif
#ifdef FACES_PST
    if (st == 2) CHECK_MPI(MPIX_Win_epoch_free(&epoch));
#endif
    faces_gpu_unregister(registered);
    CHECK_MPI(MPI_Win_free(&win));
    buf_free(c, src);
  }
  if (st)
    tm->t[T_MPI] =
        tm->t[T_POST] + tm->t[T_START] + tm->t[T_PUT] + tm->t[T_COMPLETE] + tm->t[T_WAIT];
}

/* ---- driver ---------------------------------------------------------------- */

#ifdef FACES_ST
#define FACES_HAVE_ST 1 /* the st variant is built */
#else
#define FACES_HAVE_ST 0
#endif
#ifdef FACES_PST
#define FACES_HAVE_PST 1
#else
#define FACES_HAVE_PST 0
#endif

struct result {
  double med, min, max; /* seconds per step, slowest rank */
  double t[NT];         /* rank 0, per step, medians over repeats */
  long steps;
};

static struct result run_variant(struct run_ctx *c, int variant, long face_bytes) {
  const struct opts *o = c->o;
  struct result res;
  double per[MAX_REPEATS], parts[NT][MAX_REPEATS];
  long steps = o->outer * o->middle * o->inner;
  grid_setup(&c->g, face_bytes, o->periodic);
  c->ks.g = &c->g;
  c->ks.errors = 0;
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  CHECK_MPI(MPI_Group_incl(world, c->g.npeers, c->g.peers, &c->group));
  MPI_Group_free(&world);
  if (c->gpu) faces_gpu_grid(&c->kp, c->g.total, c->g.nb, c->g.len, c->g.off);
  c->zeros = buf_alloc(c, c->g.total + 1); /* an origin of st's puts: pinned in GPU mode */
  memset(c->zeros, 0, (size_t)(c->g.total + 1) * sizeof(double));
  c->corrupt_dir = -1;
  if (o->corrupt && world_rank == 0)
    for (int d = 0; d < NDIR && c->corrupt_dir < 0; ++d)
      if (c->g.nb[d] >= 0) c->corrupt_dir = d;
  for (int r = -o->warmup; r < o->repeats; ++r) {
    memset(&c->tm, 0, sizeof c->tm);
    switch (variant) {
      case V_P2P: run_p2p(c); break;
      case V_RMA: run_rma(c, 0); break;
      case V_ST: run_rma(c, 1); break;
      case V_PST: run_rma(c, 2); break;
    }
    if (r < 0) continue;
    double mine = c->tm.t[T_INNER] / (double)steps, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    per[r] = slowest;
    for (int k = 0; k < NT; ++k)
      parts[k][r] =
          c->tm.t[k] / (double)(k == T_FIRST || k == T_TAIL ? o->outer * o->middle : steps);
  }
  MPI_Group_free(&c->group);
  buf_free(c, c->zeros);
  res.min = res.max = per[0];
  for (int r = 1; r < o->repeats; ++r) {
    if (per[r] < res.min) res.min = per[r];
    if (per[r] > res.max) res.max = per[r];
  }
  res.med = median(per, o->repeats);
  for (int k = 0; k < NT; ++k) res.t[k] = median(parts[k], o->repeats);
  res.steps = steps;
  return res;
}

static void print_table(const struct opts *o, const int *dims, struct result (*res)[NVARIANTS],
                        const int *have) {
  printf(
      "\n== Faces, %d ranks (%dx%dx%d, %s): time per step, us (slowest rank, median of %d repeats) "
      "==\n",
      world_size, dims[0], dims[1], dims[2], o->periodic ? "periodic" : "non-periodic", o->repeats);
  printf("%10s %10s %10s %10s %10s %8s %8s %8s\n", "face B", "p2p", "rma", "st", "pst", "st/rma",
         "st/p2p", "pst/rma");
  for (int s = 0; s < o->nsizes; ++s) {
    char cell[NVARIANTS][16], r1[16] = "-", r2[16] = "-", r3[16] = "-";
    for (int v = 0; v < NVARIANTS; ++v) {
      if (have[v]) snprintf(cell[v], sizeof cell[v], "%.1f", res[s][v].med * 1e6);
      else snprintf(cell[v], sizeof cell[v], "-");
    }
    if (have[V_ST] && have[V_RMA])
      snprintf(r1, sizeof r1, "%.2f", res[s][V_ST].med / res[s][V_RMA].med);
    if (have[V_ST] && have[V_P2P])
      snprintf(r2, sizeof r2, "%.2f", res[s][V_ST].med / res[s][V_P2P].med);
    if (have[V_PST] && have[V_RMA])
      snprintf(r3, sizeof r3, "%.2f", res[s][V_PST].med / res[s][V_RMA].med);
    printf("%10ld %10s %10s %10s %10s %8s %8s %8s\n", o->sizes[s], cell[0], cell[1], cell[2],
           cell[3], r1, r2, r3);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  struct opts o;
  parse_opts(&o, argc, argv);

  struct run_ctx c;
  memset(&c, 0, sizeof c);
  c.o = &o;
  c.gpu = o.gpu_ptx != NULL;
  if (c.gpu) {
    faces_gpu_start(o.gpu_ptx, o.inner);
  } else {
    CHECK_MPI(MPIX_Host_stream_create(&c.stream));
    CHECK_MPI(MPIX_Host_stream_create(&c.compute_stream));
  }
  if (world_rank == 0)
    c.kernel_iters = calibrate_iters(o.kernel_us), c.cpu_iters = calibrate_iters(o.cpu_us);
  CHECK_MPI(MPI_Bcast(&c.kernel_iters, 1, MPI_LONG, 0, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Bcast(&c.cpu_iters, 1, MPI_LONG, 0, MPI_COMM_WORLD));
  if (!c.gpu) {
    CHECK_MPI(MPIX_Host_stream_launch(c.stream, whoami_kernel, &c.exec));
    /* Not synchronize: its caller may run the kernel itself ("caller runs"),
     * and the probe is after the stream's own thread. */
    while (__atomic_load_n(&c.exec.tid, __ATOMIC_ACQUIRE) == 0) usleep(100);
    CHECK_MPI(MPIX_Host_stream_synchronize(c.stream));
  }

  grid_setup(&c.g, o.sizes[0], o.periodic);
  if (world_rank == 0) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
    int len = 0;
    MPI_Get_library_version(version, &len);
    char *nl = strchr(version, '\n');
    if (nl) *nl = '\0';
    printf("# faces: library \"%s\"\n", version);
    printf("# faces: %d ranks as %dx%dx%d, %s; rank 0 has %d distinct neighbours\n", world_size,
           c.g.dims[0], c.g.dims[1], c.g.dims[2],
           o.periodic ? "periodic (26 directions)" : "non-periodic", c.g.npeers);
    printf("# faces: loops outer %ld x middle %ld x inner %ld, %d repeats; st variant %s\n",
           o.outer, o.middle, o.inner, o.repeats,
           FACES_HAVE_ST ? "built" : "not built (no MPIX_MODE_STREAM, or FACES_NO_ST)");
    if (c.gpu)
      printf(
          "# faces: GPU mode: device 0 \"%s\", a CUDA stream, kernels from %s; exec and st "
          "stream-side "
          "fields not measured (0)\n",
          faces_gpu_device(), o.gpu_ptx);
    if (o.kernel_us > 0 || o.cpu_us > 0)
      printf(
          "# faces: overlap per step: compute kernel %.1f us on a second host stream (%ld "
          "iterations), "
          "%.1f us on the CPU thread (%ld iterations)\n",
          o.kernel_us, c.kernel_iters, o.cpu_us, c.cpu_iters);
    fflush(stdout);
  }

  static struct result res[MAX_SIZES][NVARIANTS];
  int have[NVARIANTS] = {0};
  for (int s = 0; s < o.nsizes; ++s) {
    for (int k = 0; k < o.nvariants; ++k) {
      int v = o.variants[k];
      if ((v == V_ST && !FACES_HAVE_ST) || (v == V_PST && !FACES_HAVE_PST)) {
        if (world_rank == 0 && s == 0) printf("# faces: %s skipped: not built\n", variant_name[v]);
        continue;
      }
      res[s][v] = run_variant(&c, v, o.sizes[s]);
      have[v] = 1;
      if (world_rank == 0) {
        struct result *r = &res[s][v];
        printf("faces %s %ld %.3f %.3f %.3f %ld\n", variant_name[v], o.sizes[s], r->med * 1e6,
               r->min * 1e6, r->max * 1e6, r->steps);
        printf("cpu %s %ld %.3f %.3f %.3f\n", variant_name[v], o.sizes[s], r->t[T_MPI] * 1e6,
               r->t[T_LAUNCH] * 1e6, r->t[T_SYNC] * 1e6);
        printf("exec %s %ld %.3f %.3f %.3f %.3f %.3f\n", variant_name[v], o.sizes[s],
               r->t[T_STREAM_CPU] * 1e6, r->t[T_MAIN_CPU] * 1e6, r->t[T_VOL], r->t[T_INVOL],
               r->t[T_KERNELS] * 1e6);
        if (v == V_ST || v == V_PST) {
          printf("ststats_names face_B epochs signal copy wait\n");
          printf("ststats %ld %.3f %.3f %.3f %.3f\n", o.sizes[s], r->t[T_EPOCHS], r->t[T_SIGNAL],
                 r->t[T_COPY], r->t[T_WAITK]);
        }
        if (v == V_ST)
          printf("st %ld %.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f\n", o.sizes[s],
                 r->t[T_POST] * 1e6, r->t[T_START] * 1e6, r->t[T_PUT] * 1e6, r->t[T_COMPLETE] * 1e6,
                 r->t[T_WAIT] * 1e6, r->t[T_LAUNCH] * 1e6, r->t[T_ENQ] * 1e6, r->t[T_STSYNC] * 1e6,
                 r->t[T_FIRST] * 1e6, r->t[T_EXEC] * 1e6, r->t[T_TAIL] * 1e6);
        fflush(stdout);
      }
    }
  }
  if (world_rank == 0 && o.nvariants > 1) print_table(&o, c.g.dims, res, have);
  if (c.gpu) {
    faces_gpu_finalize();
  } else {
    CHECK_MPI(MPIX_Host_stream_free(&c.stream));
    CHECK_MPI(MPIX_Host_stream_free(&c.compute_stream));
  }
  if (world_rank == 0) printf("# faces: done\n");
  MPI_Finalize();
  return 0;
}
