/* The default build has no device code: --gpu reports why and the multiply
 * stays on the CPU. */
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"

int gpu_init(int local_rank, char *why, size_t len) {
  (void)local_rank;
  snprintf(why, len, "built without CUDA (make GPU=1 builds gpu.cu with nvcc)");
  return -1;
}

void *gpu_host_alloc(size_t bytes) { return malloc(bytes); }

void gpu_host_free(void *ptr) { free(ptr); }

void gpu_multiply(const void *tile, size_t tile_bytes, size_t values_offset, int rows, int depth,
                  long nnz, const double *b, int width, double *c) {
  (void)tile, (void)tile_bytes, (void)values_offset, (void)rows, (void)depth, (void)nnz, (void)b,
      (void)width, (void)c;
  abort(); /* never called: gpu_init failed */
}
