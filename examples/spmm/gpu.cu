/* The local tile multiply on a CUDA device: one thread per entry of the C
 * tile walks its row of the sparse tile. Device buffers grow to the largest
 * tile seen and are reused; the fetched tiles live in page-locked memory so
 * that the copies run at full speed. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"

namespace {

struct DeviceBuffer {
  void *ptr = nullptr;
  size_t size = 0;
  void *reserve(size_t bytes) {
    if (bytes > size) {
      if (ptr) cudaFree(ptr);
      if (cudaMalloc(&ptr, bytes) != cudaSuccess) {
        fprintf(stderr, "spmm: cudaMalloc of %zu bytes failed\n", bytes);
        abort();
      }
      size = bytes;
    }
    return ptr;
  }
};

DeviceBuffer tile_buf, b_buf, c_buf;

__global__ void tile_multiply_kernel(const int *rowptr, const int *col, const double *val,
                                     const double *b, int rows, int width, double *c) {
  const long at = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (at >= (long)rows * width) return;
  const int r = (int)(at / width), x = (int)(at % width);
  double sum = 0;
  for (int e = rowptr[r]; e < rowptr[r + 1]; ++e) sum += val[e] * b[(long)col[e] * width + x];
  c[at] += sum;
}

void check(cudaError_t err, const char *what) {
  if (err == cudaSuccess) return;
  fprintf(stderr, "spmm: %s: %s\n", what, cudaGetErrorString(err));
  abort();
}

}  // namespace

extern "C" int gpu_init(int local_rank, char *why, size_t len) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    snprintf(why, len, "no CUDA device (%s)",
             err != cudaSuccess ? cudaGetErrorString(err) : "none found");
    return -1;
  }
  err = cudaSetDevice(local_rank % count);
  if (err != cudaSuccess) {
    snprintf(why, len, "cudaSetDevice(%d): %s", local_rank % count, cudaGetErrorString(err));
    return -1;
  }
  return 0;
}

extern "C" void *gpu_host_alloc(size_t bytes) {
  void *ptr = nullptr;
  check(cudaMallocHost(&ptr, bytes > 0 ? bytes : 8), "cudaMallocHost");
  return ptr;
}

extern "C" void gpu_host_free(void *ptr) { cudaFreeHost(ptr); }

extern "C" void gpu_multiply(const void *tile, size_t tile_bytes, size_t values_offset, int rows,
                             int depth, long nnz, const double *b, int width, double *c) {
  const size_t b_bytes = sizeof(double) * (size_t)depth * width,
               c_bytes = sizeof(double) * (size_t)rows * width;
  if (c_bytes == 0) return;
  char *d_tile = static_cast<char *>(tile_buf.reserve(tile_bytes));
  double *d_b = static_cast<double *>(b_buf.reserve(b_bytes + 8));
  double *d_c = static_cast<double *>(c_buf.reserve(c_bytes));
  check(cudaMemcpy(d_tile, tile, tile_bytes, cudaMemcpyHostToDevice), "copy of an A tile");
  check(cudaMemcpy(d_b, b, b_bytes, cudaMemcpyHostToDevice), "copy of a B tile");
  check(cudaMemcpy(d_c, c, c_bytes, cudaMemcpyHostToDevice), "copy of a C tile");
  const int *rowptr = reinterpret_cast<const int *>(d_tile), *col = rowptr + rows + 1;
  const double *val = reinterpret_cast<const double *>(d_tile + values_offset);
  const long threads = (long)rows * width;
  tile_multiply_kernel<<<(unsigned)((threads + 255) / 256), 256>>>(rowptr, col, val, d_b, rows,
                                                                   width, d_c);
  check(cudaGetLastError(), "tile multiply kernel");
  check(cudaMemcpy(c, d_c, c_bytes, cudaMemcpyDeviceToHost), "copy of a C tile back");
  (void)nnz;
}
