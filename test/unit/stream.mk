# test/unit/stream_test: the stream module (host backend; GPU backends when
# built), from its sources: no libmpi, no launcher
if HAVE_GTEST
check_PROGRAMS += test/unit/stream_test
TESTS += test/unit/stream_test
test_unit_stream_test_SOURCES = \
	test/unit/stream_test.cc \
	$(STREAM_CORE_SOURCES)
test_unit_stream_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_stream_test_LDADD = libstmpi_util.la -lgtest -lgtest_main -lpthread -ldl
endif
if HAVE_GTEST
nodist_test_unit_stream_test_SOURCES =
if STMPI_CUDA_BACKEND
test_unit_stream_test_SOURCES += src/stream/cuda/cuda_runtime.cc
nodist_test_unit_stream_test_SOURCES += src/stream/cuda/cuda_kernel_image.cc
test_unit_stream_test_CPPFLAGS += $(CUDA_CPPFLAGS)
endif
if STMPI_HIP_BACKEND
test_unit_stream_test_SOURCES += src/stream/hip/hip_runtime.cc
nodist_test_unit_stream_test_SOURCES += src/stream/hip/hip_kernel_image.cc
test_unit_stream_test_CPPFLAGS += $(HIP_CPPFLAGS)
endif
endif
