/* cuda_driver.h: the few CUDA driver calls that the GPU tests and benchmarks
 * make (a stream, device and pinned memory, memset and copy on a stream,
 * registering host memory, kernels loaded from a PTX or cubin file),
 * loaded with dlopen from libcuda.so.1 so that the programs build and run
 * where CUDA is absent: there cudrv_load() says why and the program skips
 * its GPU part. Prototypes are written here from the driver API's documented
 * signatures (handles are pointers, device pointers 64-bit integers), so no
 * CUDA header is needed either. Header-only; include once per program. */
#ifndef STMPI_TEST_CUDA_DRIVER_H
#define STMPI_TEST_CUDA_DRIVER_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

typedef int CUresult_t;            /* CUresult: 0 is CUDA_SUCCESS */
typedef void *CUstream_t;          /* CUstream */
typedef unsigned long long CUdptr; /* CUdeviceptr */
typedef void *CUmodule_t;          /* CUmodule */
typedef void *CUfunction_t;        /* CUfunction */

#define CUDRV_HOST_MEMORY_ALREADY_REGISTERED 712 /* CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED */

struct cuda_driver {
    void *lib;
    CUresult_t (*init)(unsigned);
    CUresult_t (*device_get_count)(int *);
    CUresult_t (*device_get)(int *, int);
    CUresult_t (*device_get_name)(char *, int, int);
    CUresult_t (*primary_ctx_retain)(void **, int);
    CUresult_t (*ctx_set_current)(void *);
    CUresult_t (*stream_create)(CUstream_t *, unsigned);
    CUresult_t (*stream_destroy)(CUstream_t);
    CUresult_t (*stream_synchronize)(CUstream_t);
    CUresult_t (*mem_alloc)(CUdptr *, size_t);
    CUresult_t (*mem_free)(CUdptr);
    CUresult_t (*mem_host_alloc)(void **, size_t, unsigned);
    CUresult_t (*mem_free_host)(void *);
    CUresult_t (*memset_d32_async)(CUdptr, unsigned, size_t, CUstream_t);
    CUresult_t (*memcpy_async)(CUdptr, CUdptr, size_t, CUstream_t);
    CUresult_t (*get_error_string)(CUresult_t, const char **);
    CUresult_t (*device_get_attribute)(int *, int, int); /* value, CUdevice_attribute, device */
    CUresult_t (*mem_host_register)(void *, size_t, unsigned);
    CUresult_t (*mem_host_unregister)(void *);
    CUresult_t (*module_load)(CUmodule_t *, const char *); /* a PTX, cubin or fatbin file */
    CUresult_t (*module_get_function)(CUfunction_t *, CUmodule_t, const char *);
    /* function, grid x y z, block x y z, shared memory bytes, stream, kernel parameters, extra */
    CUresult_t (*launch_kernel)(CUfunction_t, unsigned, unsigned, unsigned, unsigned, unsigned,
                                unsigned, unsigned, CUstream_t, void **, void **);
    CUresult_t (*launch_host_func)(CUstream_t, void (*)(void *), void *);
    char name[128];
};

/* Loads the driver, initializes it and makes device 0's primary context (the
 * one the CUDA runtime and STMPI's CUDA backend use) current on the calling
 * thread. Returns 1, or 0 with the reason in `why`. */
static int cudrv_load(struct cuda_driver *cu, char *why, size_t why_size)
{
    cu->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cu->lib) {
        snprintf(why, why_size, "no CUDA driver (dlopen libcuda.so.1: %s)", dlerror());
        return 0;
    }
#define CUDRV_SYM(field, symbol)                                       \
    do {                                                               \
        *(void **)&cu->field = dlsym(cu->lib, symbol);                 \
        if (!cu->field) {                                              \
            snprintf(why, why_size, "libcuda.so.1 has no %s", symbol); \
            return 0;                                                  \
        }                                                              \
    } while (0)
    CUDRV_SYM(init, "cuInit");
    CUDRV_SYM(device_get_count, "cuDeviceGetCount");
    CUDRV_SYM(device_get, "cuDeviceGet");
    CUDRV_SYM(device_get_name, "cuDeviceGetName");
    CUDRV_SYM(primary_ctx_retain, "cuDevicePrimaryCtxRetain");
    CUDRV_SYM(ctx_set_current, "cuCtxSetCurrent");
    CUDRV_SYM(stream_create, "cuStreamCreate");
    CUDRV_SYM(stream_destroy, "cuStreamDestroy_v2");
    CUDRV_SYM(stream_synchronize, "cuStreamSynchronize");
    CUDRV_SYM(mem_alloc, "cuMemAlloc_v2");
    CUDRV_SYM(mem_free, "cuMemFree_v2");
    CUDRV_SYM(mem_host_alloc, "cuMemHostAlloc");
    CUDRV_SYM(mem_free_host, "cuMemFreeHost");
    CUDRV_SYM(memset_d32_async, "cuMemsetD32Async");
    CUDRV_SYM(memcpy_async, "cuMemcpyAsync");
    CUDRV_SYM(get_error_string, "cuGetErrorString");
    CUDRV_SYM(device_get_attribute, "cuDeviceGetAttribute");
    CUDRV_SYM(mem_host_register, "cuMemHostRegister_v2");
    CUDRV_SYM(mem_host_unregister, "cuMemHostUnregister");
    CUDRV_SYM(module_load, "cuModuleLoad");
    CUDRV_SYM(module_get_function, "cuModuleGetFunction");
    CUDRV_SYM(launch_kernel, "cuLaunchKernel");
    CUDRV_SYM(launch_host_func, "cuLaunchHostFunc");
#undef CUDRV_SYM
    int n = 0, dev = 0;
    void *ctx = NULL;
    CUresult_t r = cu->init(0);
    if (r == 0)
        r = cu->device_get_count(&n);
    if (r != 0 || n == 0) {
        snprintf(why, why_size, "no CUDA device (cuInit/cuDeviceGetCount: error %d, %d devices)", r,
                 n);
        return 0;
    }
    if ((r = cu->device_get(&dev, 0)) != 0 || (r = cu->primary_ctx_retain(&ctx, dev)) != 0 ||
        (r = cu->ctx_set_current(ctx)) != 0) {
        snprintf(why, why_size, "device 0's primary context: error %d", r);
        return 0;
    }
    if (cu->device_get_name(cu->name, (int)sizeof cu->name, dev) != 0)
        snprintf(cu->name, sizeof cu->name, "?");
    return 1;
}

static const char *cudrv_error(const struct cuda_driver *cu, CUresult_t r)
{
    const char *s = NULL;
    if (cu->get_error_string && cu->get_error_string(r, &s) == 0 && s)
        return s;
    return "unknown CUDA error";
}

#ifdef MPI_VERSION
/* In MPI programs (mpi.h included first) whose driver table is `cu`: a
 * failing driver call aborts the job, naming the rank and the call. */
#define CU_CHECK(call)                                                                         \
    do {                                                                                       \
        CUresult_t r_ = (call);                                                                \
        if (r_ != 0) {                                                                         \
            int rank_ = -1;                                                                    \
            MPI_Comm_rank(MPI_COMM_WORLD, &rank_);                                             \
            fprintf(stderr, "rank %d: %s: %s (%d)\n", rank_, #call, cudrv_error(&cu, r_), r_); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
        }                                                                                      \
    } while (0)

/* Loads the driver on every rank of MPI_COMM_WORLD (collective): 1 when all
 * have a device; else 0, and rank 0 prints "<program> skipped: <why>". */
static int cudrv_load_all(struct cuda_driver *drv, const char *program)
{
    char why[256] = "";
    int rank, have = cudrv_load(drv, why, sizeof why), all;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all && rank == 0)
        printf("%s skipped: %s\n", program, have ? "a rank has no CUDA device" : why);
    return all;
}
#endif

#endif
