/* faces_kernels.cu: the GPU kernels of faces' GPU mode (faces -G PTXFILE),
 * loaded at run time by faces_gpu.c from this file's PTX:
 *
 *   nvcc -ptx -arch=compute_90 -o faces_kernels.ptx test/bench/faces_kernels.cu
 *
 * faces_increment adds 1 to every element of the send buffer; faces_compare
 * checks every received element against what its sender must have sent in
 * this step, counts mismatches and records one of them, and counts its own
 * run for the step, so that a compare that did not run is detected too. The
 * work of one thread is in faces_kernels.h, shared with the host.
 *
 * Launch (faces_gpu.c): faces_increment on faces_blocks(n) x 1 blocks,
 * faces_compare on faces_blocks(longest region) x FACES_NDIR blocks, both of
 * FACES_BLOCK threads; the argument is one struct faces_kparams by value.
 *
 * Host check without a GPU: with -DFACES_KERNELS_HOST_CHECK this file is also
 * a host program that runs every thread of both launches one after the
 * other (nvcc -DFACES_KERNELS_HOST_CHECK -o faces_kernels_check
 * faces_kernels.cu && ./faces_kernels_check): a neighbour exchange of several
 * sizes must verify, and a corrupted element must be found and reported. */
#include "faces_kernels.h"

extern "C" __global__ void faces_increment(struct faces_kparams p) {
  faces_increment_thread(&p, blockIdx.x, threadIdx.x, gridDim.x, blockDim.x);
}

extern "C" __global__ void faces_compare(struct faces_kparams p) {
  faces_compare_thread(&p, blockIdx.x, blockIdx.y, threadIdx.x, gridDim.x, blockDim.x);
}

#ifdef FACES_KERNELS_HOST_CHECK
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define EXPECT(cond, ...)                                    \
  do {                                                       \
    if (!(cond)) {                                           \
      ++failures;                                            \
      printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      printf(__VA_ARGS__);                                   \
      printf("\n");                                          \
    }                                                        \
  } while (0)

/* The launches of faces_gpu.c, each thread in turn. */
static void run_increment(const struct faces_kparams *p) {
  unsigned gx = faces_blocks(p->n);
  for (unsigned bx = 0; bx < gx; ++bx)
    for (unsigned tx = 0; tx < FACES_BLOCK; ++tx)
      faces_increment_thread(p, bx, tx, gx, FACES_BLOCK);
}
static void run_compare(const struct faces_kparams *p) {
  long long longest = 1;
  for (int d = 0; d < FACES_NDIR; ++d)
    if (p->len[d] > longest) longest = p->len[d];
  unsigned gx = faces_blocks(longest);
  for (unsigned by = 0; by < FACES_NDIR; ++by)
    for (unsigned bx = 0; bx < gx; ++bx)
      for (unsigned tx = 0; tx < FACES_BLOCK; ++tx)
        faces_compare_thread(p, bx, by, tx, gx, FACES_BLOCK);
}

/* Layout of faces.c's grid_setup for a face of `face` doubles. */
static void layout(struct faces_kparams *p, long long face) {
  long long edge = (long long)ceil(sqrt((double)face)), by_kind[4] = {0, face, edge, 1};
  p->n = 0;
  for (int d = 0; d < FACES_NDIR; ++d) {
    int kind = (d / 9 != 1) + (d / 3 % 3 != 1) + (d % 3 != 1);
    p->len[d] = d == 13 ? 0 : by_kind[kind];
    p->off[d] = p->n;
    p->n += p->len[d];
  }
}

/* Rank `me` with neighbours me+1+d%5 (some directions without one) exchanges
 * for `steps` steps; the neighbours' increments are simulated too. With
 * corrupt >= 0 the last element of that receive region is wrong in step 2. */
static void check_exchange(long long face, int me, long long mid, int steps, int corrupt) {
  struct faces_kparams p;
  memset(&p, 0, sizeof p);
  layout(&p, face);
  struct faces_kcounters ctr;
  memset(&ctr, 0, sizeof ctr);
  unsigned *compares = (unsigned *)calloc((size_t)steps, sizeof *compares);
  double *mine = (double *)malloc((size_t)p.n * sizeof(double));
  double *dst = (double *)malloc((size_t)p.n * sizeof(double));
  double *peer = (double *)malloc((size_t)p.n * sizeof(double));
  p.ctr = &ctr, p.compares = compares, p.mid = mid, p.nsteps = steps, p.src = mine, p.dst = dst;
  for (int d = 0; d < FACES_NDIR; ++d) {
    p.nb[d] = d == 13 || d % 7 == 3 ? -1 : me + 1 + d % 5;
    for (long long i = 0; i < p.len[d]; ++i) mine[p.off[d] + i] = faces_base_value(mid, me, d, i);
  }
  for (int s = 1; s <= steps; ++s) {
    run_increment(&p);
    for (int d = 0; d < FACES_NDIR; ++d)
      for (long long i = 0; i < p.len[d]; ++i)
        EXPECT(mine[p.off[d] + i] == faces_base_value(mid, me, d, i) + s,
               "face %lld step %d d %d i %lld", face, s, d, i);
    for (long long i = 0; i < p.n; ++i) dst[i] = -1.0;
    for (int d = 0; d < FACES_NDIR; ++d) { /* what neighbour nb[d] puts: its region opposite(d) */
      if (p.nb[d] < 0) continue;
      int o = faces_opposite(d);
      struct faces_kcounters qc; /* the neighbour's own s increments, on that region alone */
      memset(&qc, 0, sizeof qc);
      struct faces_kparams q = p;
      q.ctr = &qc, q.src = peer, q.n = p.len[o];
      for (long long i = 0; i < p.len[o]; ++i) peer[i] = faces_base_value(mid, p.nb[d], o, i);
      for (int k = 0; k < s; ++k) run_increment(&q);
      memcpy(dst + p.off[d], peer, (size_t)p.len[d] * sizeof(double));
    }
    if (corrupt >= 0 && s == 2) dst[p.off[corrupt] + p.len[corrupt] - 1] = 0;
    p.step = s;
    run_compare(&p);
  }
  EXPECT(ctr.increments == (unsigned long long)steps, "face %lld: %llu increments", face,
         ctr.increments);
  for (int s = 0; s < steps; ++s)
    EXPECT(compares[s] == 1, "face %lld: step %d compared %u times", face, s + 1, compares[s]);
  if (corrupt < 0) {
    EXPECT(ctr.errors == 0,
           "face %lld: %llu errors, first step %lld region %d elem %lld is %.17g, expected %.17g",
           face, ctr.errors, ctr.first_step, ctr.first_region, ctr.first_elem, ctr.first_got,
           ctr.first_want);
  } else {
    long long last = p.len[corrupt] - 1;
    EXPECT(ctr.errors == 1 && ctr.claimed == 1, "face %lld: %llu errors", face, ctr.errors);
    EXPECT(ctr.first_step == 2 && ctr.first_region == corrupt && ctr.first_elem == last &&
               ctr.first_from == p.nb[corrupt] && ctr.first_got == 0 &&
               ctr.first_want == faces_expected(mid, p.nb[corrupt], corrupt, last, 2),
           "face %lld: recorded step %lld region %d from %d elem %lld got %.17g want %.17g", face,
           ctr.first_step, ctr.first_region, ctr.first_from, ctr.first_elem, ctr.first_got,
           ctr.first_want);
  }
  free(compares), free(mine), free(dst), free(peer);
}

int main(void) {
  /* faces of 8 B .. 64 KiB and one beyond FACES_MAX_BLOCKS x FACES_BLOCK doubles (grid-stride
   * loops) */
  static const long long faces[] = {1, 8, 64, 512, 2048, 8192, 300000};
  for (size_t k = 0; k < sizeof faces / sizeof *faces; ++k) {
    check_exchange(faces[k], 5, 3 + (long long)k, faces[k] > 10000 ? 2 : 4, -1);
    check_exchange(faces[k], 2, 1027, 3, (int)k % 3); /* 0: a corner, 1: an edge, 2: a corner */
  }
  EXPECT(faces_blocks(0) == 1 && faces_blocks(256) == 1 && faces_blocks(257) == 2 &&
             faces_blocks(1LL << 40) == FACES_MAX_BLOCKS,
         "faces_blocks");
  printf(
      "faces_kernels host check: %s; sizeof(struct faces_kparams) %zu, sizeof(struct "
      "faces_kcounters) %zu\n",
      failures ? "FAILED" : "ok", sizeof(struct faces_kparams), sizeof(struct faces_kcounters));
  return failures ? 1 : 0;
}
#endif
