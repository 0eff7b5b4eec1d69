/* faces_kernels.h: what the Faces benchmark's two kernels do to the data,
 * shared by the host kernels (faces.c), the GPU kernels (faces_kernels.cu)
 * and their launcher (faces_gpu.c), so that the versions cannot drift apart.
 * Plain C for gcc; under nvcc the functions are __host__ __device__.
 *
 * Data layout (faces.c, grid_setup): a rank's send buffer and receive buffer
 * hold one region per direction d (0..26, 13 is the rank itself), region d at
 * off[d] with len[d] doubles. Element i of send region d starts a middle
 * iteration as faces_base_value(mid, rank, d, i); "increment" adds 1 to every
 * element of the send buffer once per step; after step s, receive region d
 * must hold what the neighbour in direction d sent from its region
 * opposite(d) after s increments: faces_expected(). */
#ifndef FACES_KERNELS_H
#define FACES_KERNELS_H

#ifdef __CUDACC__
#define FACES_HD static __host__ __device__ inline
#else
#define FACES_HD static inline
#endif

#define FACES_NDIR 27         /* directions, (dx+1)*9 + (dy+1)*3 + (dz+1) */
#define FACES_BLOCK 256       /* GPU threads per block */
#define FACES_MAX_BLOCKS 1024 /* GPU blocks per direction (compare) or in all (increment) */

/* Results of the GPU kernels, in device memory, zeroed at the start of every
 * middle iteration and copied back after the stream is synchronized. */
struct faces_kcounters {
  unsigned long long errors;     /* wrong elements found by compare */
  unsigned long long increments; /* increment launches that ran */
  unsigned long long claimed;    /* 1 once a wrong element was recorded below */
  long long first_step, first_elem;
  int first_region, first_from;
  double first_got, first_want;
};

/* The kernels' one argument, passed by value. Fixed-size types only: gcc
 * (faces_gpu.c) and nvcc (faces_kernels.cu) must agree on the layout;
 * faces_gpu.c checks the size against the PTX where the driver can tell. */
struct faces_kparams {
  double *src;                 /* send buffer: increment adds 1 to its n elements */
  const double *dst;           /* receive buffer (the window for rma and st): compare reads it */
  struct faces_kcounters *ctr; /* device memory */
  unsigned int *compares;      /* device memory, nsteps entries: compare runs per step */
  long long n;                 /* doubles in the send buffer and in the receive buffer */
  long long mid;               /* middle iteration */
  long long step;              /* compare: the senders incremented step times (1..nsteps) */
  long long nsteps;            /* steps of the inner loop */
  long long len[FACES_NDIR], off[FACES_NDIR];
  int nb[FACES_NDIR]; /* neighbour rank per direction, -1 if none */
};

FACES_HD int faces_opposite(int d) { return FACES_NDIR - 1 - d; }

/* Value of element i that rank r sends in direction d, before any increment,
 * in middle iteration mid. Exact in a double for any realistic run. */
FACES_HD double faces_base_value(long long mid, int r, int d, long long i) {
  return (double)((((mid % 1024) * 4096 + r) * FACES_NDIR + d) * 65536 + i);
}

/* Value element i of receive region d must hold after step `step`, the
 * neighbour `from` in direction d having sent it. */
FACES_HD double faces_expected(long long mid, int from, int d, long long i, long long step) {
  return faces_base_value(mid, from, faces_opposite(d), i) + (double)step;
}

/* Blocks of FACES_BLOCK threads for n elements (at least 1, at most FACES_MAX_BLOCKS). */
FACES_HD unsigned faces_blocks(long long n) {
  long long b = (n + FACES_BLOCK - 1) / FACES_BLOCK;
  return b < 1 ? 1u : b > FACES_MAX_BLOCKS ? (unsigned)FACES_MAX_BLOCKS : (unsigned)b;
}

/* Counter updates: atomics on the GPU, plain on the host (the host check of
 * faces_kernels.cu runs the threads one after the other). */
FACES_HD unsigned long long faces_add64(unsigned long long *a, unsigned long long v) {
#ifdef __CUDA_ARCH__
  return atomicAdd(a, v);
#else
  unsigned long long old = *a;
  *a = old + v;
  return old;
#endif
}
FACES_HD void faces_add32(unsigned int *a, unsigned int v) {
#ifdef __CUDA_ARCH__
  atomicAdd(a, v);
#else
  *a += v;
#endif
}
FACES_HD unsigned long long faces_claim(unsigned long long *a) { /* old value; sets 1 */
#ifdef __CUDA_ARCH__
  return atomicCAS(a, 0ULL, 1ULL);
#else
  unsigned long long old = *a;
  *a = 1;
  return old;
#endif
}

/* One GPU thread of the increment kernel (grid gx x 1 blocks of bdim threads). */
FACES_HD void faces_increment_thread(const struct faces_kparams *p, unsigned bx, unsigned tx,
                                     unsigned gx, unsigned bdim) {
  long long first = (long long)bx * bdim + tx, stride = (long long)gx * bdim;
  if (first == 0) faces_add64(&p->ctr->increments, 1);
  for (long long i = first; i < p->n; i += stride) p->src[i] += 1.0;
}

/* One GPU thread of the compare kernel (grid gx x FACES_NDIR blocks of bdim
 * threads; block row `by` checks receive region `by`). */
FACES_HD void faces_compare_thread(const struct faces_kparams *p, unsigned bx, unsigned by,
                                   unsigned tx, unsigned gx, unsigned bdim) {
  long long first = (long long)bx * bdim + tx, stride = (long long)gx * bdim;
  int d = (int)by;
  if (first == 0 && d == 0 && p->step >= 1 && p->step <= p->nsteps)
    faces_add32(&p->compares[p->step - 1], 1);
  if (d >= FACES_NDIR || p->nb[d] < 0) return;
  int from = p->nb[d];
  const double *q = p->dst + p->off[d];
  for (long long i = first; i < p->len[d]; i += stride) {
    double got = q[i], want = faces_expected(p->mid, from, d, i, p->step);
    if (got != want) {
      faces_add64(&p->ctr->errors, 1);
      if (faces_claim(&p->ctr->claimed) == 0) {
        p->ctr->first_step = p->step, p->ctr->first_elem = i;
        p->ctr->first_region = d, p->ctr->first_from = from;
        p->ctr->first_got = got, p->ctr->first_want = want;
      }
    }
  }
}

#endif
