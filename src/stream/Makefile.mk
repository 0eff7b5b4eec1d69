# src/stream: stream abstraction and its backends (see src/stream/README.md)
STREAM_CORE_SOURCES = \
	src/stream/stream.cc \
	src/stream/settings.cc \
	src/stream/host_op_queue.cc \
	src/stream/host_stream_executor.cc \
	src/stream/host_stream.cc \
	src/stream/gpu_stream.cc \
	src/stream/backend.cc \
	src/stream/registry.cc \
	src/stream/staging.cc
libstmpi_stream_la_SOURCES += $(STREAM_CORE_SOURCES)
noinst_HEADERS += \
	src/stream/stream.h \
	src/stream/settings.h \
	src/stream/host_wait.h \
	src/stream/host_op_queue.h \
	src/stream/host_stream_executor.h \
	src/stream/host_stream.h \
	src/stream/kernel_params.h \
	src/stream/gpu_runtime.h \
	src/stream/gpu_stream.h \
	src/stream/backend.h \
	src/stream/registry.h \
	src/stream/staging.h
libmpi_la_LIBADD += -ldl
EXTRA_DIST += src/stream/README.md
EXTRA_DIST += src/stream/gpu_kernels.cu src/stream/embed_image.sh

# GPU backends. gpu_kernels.cu is built by nvcc (a fatbin) and by hipcc (a
# bundle of code objects); embed_image.sh turns each image into a C++ array
# that is compiled into libmpi. The backends' host code includes the vendor
# headers (CUDA_CPPFLAGS / HIP_CPPFLAGS, for that object only) but loads the
# runtimes with dlopen: libmpi links no GPU library.
nodist_libstmpi_stream_la_SOURCES =
noinst_HEADERS += src/stream/dynamic_library.h src/stream/gpu_backend.h
if STMPI_CUDA_BACKEND
libstmpi_stream_la_SOURCES += src/stream/cuda/cuda_runtime.cc
nodist_libstmpi_stream_la_SOURCES += src/stream/cuda/cuda_kernel_image.cc
noinst_HEADERS += src/stream/cuda/cuda_runtime.h
src/stream/cuda/cuda_runtime.lo: AM_CPPFLAGS += $(CUDA_CPPFLAGS)
src/stream/cuda/gpu_kernels.fatbin: $(srcdir)/src/stream/gpu_kernels.cu $(srcdir)/src/stream/kernel_params.h
	@$(MKDIR_P) src/stream/cuda
	$(AM_V_GEN)$(NVCC) -std=c++17 -fatbin $(STMPI_CUDA_GENCODE) -I$(srcdir)/src \
	  -o $@ $(srcdir)/src/stream/gpu_kernels.cu
src/stream/cuda/cuda_kernel_image.cc: src/stream/cuda/gpu_kernels.fatbin $(srcdir)/src/stream/embed_image.sh
	$(AM_V_GEN)$(SHELL) $(srcdir)/src/stream/embed_image.sh src/stream/cuda/gpu_kernels.fatbin \
	  stmpi::stream::cuda > $@.tmp && mv $@.tmp $@
CLEANFILES += src/stream/cuda/gpu_kernels.fatbin src/stream/cuda/cuda_kernel_image.cc
endif
if STMPI_HIP_BACKEND
libstmpi_stream_la_SOURCES += src/stream/hip/hip_runtime.cc
nodist_libstmpi_stream_la_SOURCES += src/stream/hip/hip_kernel_image.cc
noinst_HEADERS += src/stream/hip/hip_runtime.h
src/stream/hip/hip_runtime.lo: AM_CPPFLAGS += $(HIP_CPPFLAGS)
src/stream/hip/gpu_kernels.hsaco: $(srcdir)/src/stream/gpu_kernels.cu $(srcdir)/src/stream/kernel_params.h
	@$(MKDIR_P) src/stream/hip
	$(AM_V_GEN)$(HIPCC) -std=c++17 --genco -x hip $(STMPI_HIP_ARCH_FLAGS) -I$(srcdir)/src \
	  -o $@ $(srcdir)/src/stream/gpu_kernels.cu
src/stream/hip/hip_kernel_image.cc: src/stream/hip/gpu_kernels.hsaco $(srcdir)/src/stream/embed_image.sh
	$(AM_V_GEN)$(SHELL) $(srcdir)/src/stream/embed_image.sh src/stream/hip/gpu_kernels.hsaco \
	  stmpi::stream::hip > $@.tmp && mv $@.tmp $@
CLEANFILES += src/stream/hip/gpu_kernels.hsaco src/stream/hip/hip_kernel_image.cc
endif
