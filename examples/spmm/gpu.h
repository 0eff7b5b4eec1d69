/* The local tile multiply on a CUDA device (gpu.cu, built with `make GPU=1`),
 * or a stand-in that says why there is none (gpu_none.c, the default build). */
#ifndef SPMM_GPU_H
#define SPMM_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Picks device local_rank % count (local_rank: the process's rank on its node);
 * 0 when a device is ready, otherwise -1 with the reason in why. */
int gpu_init(int local_rank, char *why, size_t len);
/* Page-locked host memory for the fetched tiles (plain malloc without a device). */
void *gpu_host_alloc(size_t bytes);
void gpu_host_free(void *ptr);
/* c (rows x width) += tile * b (tile cols x width) on the device: the packed
 * tile (tile_bytes long; its values start at values_offset), b and c are
 * copied in, c is copied back. */
void gpu_multiply(const void *tile, size_t tile_bytes, size_t values_offset, int rows, int depth,
                  long nnz, const double *b, int width, double *c);

#ifdef __cplusplus
}
#endif

#endif
