/* faces_gpu.h: the GPU mode of faces (-G PTXFILE), faces_gpu.c. The CUDA
 * driver is loaded at run time (test/mpi/util/cuda_driver.h), so faces builds
 * and runs without CUDA; only -G needs a driver and a device. Every failure
 * after faces_gpu_init prints the CUDA error and aborts the job. */
#ifndef FACES_GPU_H
#define FACES_GPU_H

#include <stddef.h>

#include "faces_kernels.h"

/* Collective: loads the driver (device 0's primary context) and the kernels
 * from the PTX file, creates the stream and the counters for inner loops of
 * `nsteps` steps. Where that fails on some rank, the lowest such rank says
 * why in one line and every rank exits with status 1 (no abort). */
void faces_gpu_start(const char *ptx_file, long nsteps);
void faces_gpu_finalize(void);
const char *faces_gpu_device(void); /* the device's name */
void *faces_gpu_stream(void);       /* the CUstream (== cudaStream_t) for MPIX_Win_*_stream */

/* Pinned host memory the GPU reads and writes through the same address
 * (cuMemHostAlloc, PORTABLE | DEVICEMAP), usable by ordinary MPI calls too. */
void *faces_gpu_alloc(size_t bytes);
void faces_gpu_free(void *p);
/* Makes host memory (whole pages around it) readable by the kernels
 * (cuMemHostRegister, DEVICEMAP). Returns what faces_gpu_unregister wants,
 * or NULL where the range was registered already (then nothing to undo). */
void *faces_gpu_register(void *p, size_t bytes);
void faces_gpu_unregister(void *handle);

/* The kernels' view of the grid (faces.c's struct grid): `total` doubles per
 * buffer, per direction the neighbour (-1: none), its region's length and offset. */
void faces_gpu_grid(struct faces_kparams *kp, long total, const int *nb, const long *len,
                    const long *off);
/* Per middle iteration, the stream idle: the buffers, zeroed counters (on
 * the stream), kp->step 0. */
void faces_gpu_begin(struct faces_kparams *kp, double *src, const double *dst, long mid);
/* Enqueue the kernels on the stream; compare first counts kp->step up. */
void faces_gpu_increment(const struct faces_kparams *kp);
void faces_gpu_compare(struct faces_kparams *kp);
void faces_gpu_sync(void);
/* After the inner loop of middle iteration `mid` (synchronizes): wrong
 * elements found (the first one recorded described in `first_error` when
 * there are any), increments that ran, and the steps whose compare ran
 * exactly once. */
void faces_gpu_result(long long mid, long *errors, long *increments, long *steps, char *first_error,
                      size_t size);

#endif
