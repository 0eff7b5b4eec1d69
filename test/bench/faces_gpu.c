/* faces_gpu.c: the GPU mode of faces (faces_gpu.h): the CUDA stream, the
 * kernels of faces_kernels.cu loaded from their PTX, pinned and registered
 * host memory, the kernels' counters. Built with faces.c by plain gcc; the
 * driver comes from dlopen (test/mpi/util/cuda_driver.h, -I test/mpi/util).
 *
 * Memory: STMPI is not CUDA-aware for ordinary calls and its stream copies
 * read MPI_Put's origins directly, so every buffer a kernel touches is host
 * memory the GPU reaches at its host address (unified addressing, checked at
 * start): faces_gpu_alloc (cuMemHostAlloc) for the send buffers, p2p's
 * receive buffers and -X's zeros; faces_gpu_register (cuMemHostRegister) for
 * rma's window. st's window is registered by the library (its whole shared
 * segment, at the first MPIX_Win_post_stream, failing where a part is
 * registered already), so faces does not register it.
 *
 * Verification: the kernels count increments, compare runs per step and
 * mismatches (recording one) in device memory, zeroed on the stream before
 * each inner loop and copied back after it (faces_gpu_result), for the same
 * checks as the host kernels. All CUDA calls are checked; a failure prints
 * the call and the CUDA error and aborts the job. */
#define _GNU_SOURCE
#include <mpi.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_driver.h"
#include "faces_gpu.h"

/* CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP */
#define HOSTALLOC_PORTABLE_DEVICEMAP 0x03
#define HOSTREGISTER_DEVICEMAP 0x02 /* CU_MEMHOSTREGISTER_DEVICEMAP */
#define STREAM_NON_BLOCKING 0x01    /* CU_STREAM_NON_BLOCKING */
#define ATTR_UNIFIED_ADDRESSING 41  /* CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING */
/* CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM */
#define ATTR_HOST_POINTER_FOR_REGISTERED 91

static struct cuda_driver cu;
static CUstream_t stream;
static CUmodule_t module;
static CUfunction_t k_increment, k_compare;
static CUdptr counters;     /* device memory: struct faces_kcounters, then nsteps unsigned ints */
static void *counters_host; /* pinned copy, read after a synchronize */
static size_t counters_bytes;
static long counter_steps;

static void gpu_fail(const char *call, CUresult_t r) __attribute__((noreturn));
static void gpu_fail(const char *call, CUresult_t r) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "faces: error (rank %d): GPU mode: %s failed: %s (CUDA error %d)\n", rank, call,
          cudrv_error(&cu, r), r);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

#define CU(call)                      \
  do {                                \
    CUresult_t r_ = (call);           \
    if (r_ != 0) gpu_fail(#call, r_); \
  } while (0)

/* The kernel's one parameter must be a struct faces_kparams as gcc lays it
 * out. Drivers of CUDA 12.4 and later can tell (cuFuncGetParamInfo); with
 * older ones nothing is checked. Returns 1, or 0 with the reason. */
static int check_params(CUfunction_t f, const char *name, char *why, size_t why_size) {
  CUresult_t (*param_info)(CUfunction_t, size_t, size_t *, size_t *);
  *(void **)&param_info = dlsym(cu.lib, "cuFuncGetParamInfo");
  size_t offset = 0, size = 0;
  if (!param_info || param_info(f, 0, &offset, &size) != 0) return 1;
  if (size != sizeof(struct faces_kparams) || param_info(f, 1, &offset, &size) == 0) {
    snprintf(why, why_size,
             "kernel %s of the PTX file does not take one struct faces_kparams of %zu bytes (first "
             "parameter: %zu "
             "bytes): the PTX is not from this faces_kernels.cu",
             name, sizeof(struct faces_kparams), size);
    return 0;
  }
  return 1;
}

static int gpu_init(const char *ptx_file, long nsteps, char *why, size_t why_size) {
  FILE *f = fopen(ptx_file, "r");
  if (!f) {
    snprintf(why, why_size, "cannot read the PTX file %s: %s", ptx_file, strerror(errno));
    return 0;
  }
  fclose(f);
  if (!cudrv_load(&cu, why, why_size)) return 0;
  int dev = 0, uva = 0, host_pointer = 0;
  CUresult_t r;
  if ((r = cu.device_get(&dev, 0)) != 0 ||
      (r = cu.device_get_attribute(&uva, ATTR_UNIFIED_ADDRESSING, dev)) != 0 ||
      (r = cu.device_get_attribute(&host_pointer, ATTR_HOST_POINTER_FOR_REGISTERED, dev)) != 0) {
    snprintf(why, why_size, "cuDeviceGet/cuDeviceGetAttribute: %s (CUDA error %d)",
             cudrv_error(&cu, r), r);
    return 0;
  }
  if (!uva || !host_pointer) {
    snprintf(why, why_size,
             "device 0 (%s) has unified addressing %d, kernel access to registered host memory at "
             "its host "
             "address %d: the GPU mode needs both",
             cu.name, uva, host_pointer);
    return 0;
  }
  if ((r = cu.module_load(&module, ptx_file)) != 0) {
    snprintf(why, why_size, "cuModuleLoad(%s): %s (CUDA error %d)", ptx_file, cudrv_error(&cu, r),
             r);
    return 0;
  }
  if ((r = cu.module_get_function(&k_increment, module, "faces_increment")) != 0 ||
      (r = cu.module_get_function(&k_compare, module, "faces_compare")) != 0) {
    snprintf(why, why_size,
             "cuModuleGetFunction(faces_increment, faces_compare) in %s: %s (CUDA error %d)",
             ptx_file, cudrv_error(&cu, r), r);
    return 0;
  }
  if (!check_params(k_increment, "faces_increment", why, why_size) ||
      !check_params(k_compare, "faces_compare", why, why_size))
    return 0;
  counter_steps = nsteps;
  counters_bytes = sizeof(struct faces_kcounters) + ((size_t)nsteps + 1) / 2 * 2 * sizeof(unsigned);
  if ((r = cu.stream_create(&stream, STREAM_NON_BLOCKING)) != 0 ||
      (r = cu.mem_alloc(&counters, counters_bytes)) != 0 ||
      (r = cu.mem_host_alloc(&counters_host, counters_bytes, HOSTALLOC_PORTABLE_DEVICEMAP)) != 0) {
    snprintf(why, why_size, "cuStreamCreate/cuMemAlloc/cuMemHostAlloc: %s (CUDA error %d)",
             cudrv_error(&cu, r), r);
    return 0;
  }
  return 1;
}

void faces_gpu_start(const char *ptx_file, long nsteps) {
  char why[512] = "";
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int mine = gpu_init(ptx_file, nsteps, why, sizeof why) ? size : rank, first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == size) return;
  if (rank == first) fprintf(stderr, "faces: error (rank %d): -G %s: %s\n", rank, ptx_file, why);
  fflush(stderr);
  MPI_Finalize();
  exit(1);
}

void faces_gpu_finalize(void) {
  CU(cu.stream_synchronize(stream));
  CU(cu.stream_destroy(stream));
  CU(cu.mem_free(counters));
  CU(cu.mem_free_host(counters_host));
}

const char *faces_gpu_device(void) { return cu.name; }
void *faces_gpu_stream(void) { return stream; }

void *faces_gpu_alloc(size_t bytes) {
  void *p = NULL;
  CU(cu.mem_host_alloc(&p, bytes ? bytes : 8, HOSTALLOC_PORTABLE_DEVICEMAP));
  return p;
}

void faces_gpu_free(void *p) {
  if (p) CU(cu.mem_free_host(p));
}

void *faces_gpu_register(void *p, size_t bytes) {
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t lo = (uintptr_t)p & ~(page - 1), hi = ((uintptr_t)p + bytes + page - 1) & ~(page - 1);
  if (hi == lo) hi += page;
  CUresult_t r = cu.mem_host_register((void *)lo, hi - lo, HOSTREGISTER_DEVICEMAP);
  if (r == CUDRV_HOST_MEMORY_ALREADY_REGISTERED)
    return NULL; /* someone else's registration: fine */
  if (r != 0) gpu_fail("cuMemHostRegister (window memory)", r);
  return (void *)lo;
}

void faces_gpu_unregister(void *handle) {
  if (handle) CU(cu.mem_host_unregister(handle));
}

void faces_gpu_grid(struct faces_kparams *kp, long total, const int *nb, const long *len,
                    const long *off) {
  memset(kp, 0, sizeof *kp);
  kp->n = total;
  for (int d = 0; d < FACES_NDIR; ++d) kp->nb[d] = nb[d], kp->len[d] = len[d], kp->off[d] = off[d];
}

void faces_gpu_begin(struct faces_kparams *kp, double *src, const double *dst, long mid) {
  CU(cu.memset_d32_async(counters, 0, counters_bytes / sizeof(unsigned), stream));
  kp->src = src, kp->dst = dst, kp->mid = mid, kp->step = 0;
  kp->ctr = (struct faces_kcounters *)(uintptr_t)counters;
  kp->compares = (unsigned *)(uintptr_t)(counters + sizeof(struct faces_kcounters));
  kp->nsteps = counter_steps;
}

static void launch(CUfunction_t f, const char *name, unsigned gx, unsigned gy,
                   const struct faces_kparams *kp) {
  struct faces_kparams arg = *kp; /* the driver copies the parameters at the launch */
  void *params[] = {&arg};
  CUresult_t r = cu.launch_kernel(f, gx, gy, 1, FACES_BLOCK, 1, 1, 0, stream, params, NULL);
  if (r != 0) gpu_fail(name, r);
}

void faces_gpu_increment(const struct faces_kparams *kp) {
  launch(k_increment, "cuLaunchKernel(faces_increment)", faces_blocks(kp->n), 1, kp);
}

void faces_gpu_compare(struct faces_kparams *kp) {
  ++kp->step;
  long long longest = 1;
  for (int d = 0; d < FACES_NDIR; ++d)
    if (kp->nb[d] >= 0 && kp->len[d] > longest) longest = kp->len[d];
  launch(k_compare, "cuLaunchKernel(faces_compare)", faces_blocks(longest), FACES_NDIR, kp);
}

void faces_gpu_sync(void) { CU(cu.stream_synchronize(stream)); }

void faces_gpu_result(long long mid, long *errors, long *increments, long *steps, char *first_error,
                      size_t size) {
  CU(cu.memcpy_async((CUdptr)(uintptr_t)counters_host, counters, counters_bytes, stream));
  CU(cu.stream_synchronize(stream));
  const struct faces_kcounters *c = counters_host;
  const unsigned *compares = (const unsigned *)(c + 1);
  *errors = (long)c->errors;
  *increments = (long)c->increments;
  *steps = 0;
  for (long k = 0; k < counter_steps; ++k) *steps += compares[k] == 1;
  if (c->errors && c->claimed)
    snprintf(
        first_error, size,
        "step %lld, middle %lld: region %d (from rank %d) element %lld is %.17g, expected %.17g",
        c->first_step, mid, c->first_region, c->first_from, c->first_elem, c->first_got,
        c->first_want);
}
