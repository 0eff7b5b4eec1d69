# test/unit: GoogleTest programs, no launcher and no libmpi, each linked from
# the layers' libraries it needs (each program: check_PROGRAMS, TESTS and its
# sources, flags and libraries)

if HAVE_GTEST

# test/unit/match_test: the hashed matching engine
check_PROGRAMS += test/unit/match_test
TESTS += test/unit/match_test
test_unit_match_test_SOURCES = test/unit/match_test.cc
test_unit_match_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_match_test_LDADD = -lgtest -lgtest_main -lpthread

# test/unit/st_test: stream-triggered epochs (src/device/rma/st) over a fake
# window segment in one process, linked from the layers' libraries (the GPU
# backends come with libstmpi_stream): no libmpi, no launcher
check_PROGRAMS += test/unit/st_test
TESTS += test/unit/st_test
test_unit_st_test_SOURCES = test/unit/st_test.cc test/unit/st_software_test.cc test/unit/st_triggered_test.cc \
	test/unit/st_test_fixture.h \
	test/unit/st_net_stubs.cc test/unit/st_progress_fake.cc
test_unit_st_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_st_test_LDADD = libstmpi_mpi.la libstmpi_device.la libstmpi_stream.la libstmpi_pmi.la \
	libstmpi_util.la $(HWLOC_LIBS) $(OFI_LIBS) -lgtest -lgtest_main -lpthread -lrt -ldl
if STMPI_CUDA_BACKEND
test_unit_st_test_CPPFLAGS += $(CUDA_CPPFLAGS)
endif
if STMPI_HIP_BACKEND
test_unit_st_test_CPPFLAGS += $(HIP_CPPFLAGS)
endif

# test/unit/shm_segment_test: util::ShmSegment, linked from the util layer's library
check_PROGRAMS += test/unit/shm_segment_test
TESTS += test/unit/shm_segment_test
test_unit_shm_segment_test_SOURCES = test/unit/shm_segment_test.cc
test_unit_shm_segment_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_shm_segment_test_LDADD = libstmpi_util.la -lgtest -lgtest_main -lpthread

# test/unit/param_test: util::Param (scopes, value text, setting from text), linked from the util layer
check_PROGRAMS += test/unit/param_test
TESTS += test/unit/param_test
test_unit_param_test_SOURCES = test/unit/param_test.cc
test_unit_param_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_param_test_LDADD = libstmpi_util.la -lgtest -lgtest_main -lpthread

# test/unit/stream_test: the stream module (host backend; GPU backends when
# built), linked from the stream and util layers' libraries: no libmpi, no launcher
check_PROGRAMS += test/unit/stream_test
TESTS += test/unit/stream_test
test_unit_stream_test_SOURCES = test/unit/stream_test.cc test/unit/stream_step_test.cc \
	test/unit/stream_gpu_test.cc \
	test/unit/stream_test_helpers.h
test_unit_stream_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_stream_test_LDADD = libstmpi_stream.la libstmpi_util.la -lgtest -lgtest_main -lpthread -ldl
if STMPI_CUDA_BACKEND
test_unit_stream_test_CPPFLAGS += $(CUDA_CPPFLAGS)
endif
if STMPI_HIP_BACKEND
test_unit_stream_test_CPPFLAGS += $(HIP_CPPFLAGS)
endif

# test/unit/datatype_test: datatypes and reduction operations, linked from the
# layers' libraries (mpi and what it stands on; no bindings, no launcher)
check_PROGRAMS += test/unit/datatype_test
TESTS += test/unit/datatype_test
test_unit_datatype_test_SOURCES = test/unit/datatype_test.cc
test_unit_datatype_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_datatype_test_LDADD = libstmpi_mpi.la libstmpi_device.la libstmpi_stream.la \
	libstmpi_pmi.la libstmpi_util.la $(HWLOC_LIBS) $(OFI_LIBS) -lgtest -lgtest_main -lpthread \
	-lrt -ldl

# test/unit/device_test: the launcher's process mapping and the progress
# engine (hooks, wait policy), linked from the device, pmi and util layers'
# libraries (the test stands in for the transports' poll): no libmpi, no launcher
check_PROGRAMS += test/unit/device_test
TESTS += test/unit/device_test
test_unit_device_test_SOURCES = \
	test/unit/device_test.cc
test_unit_device_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_device_test_LDADD = libstmpi_device.la libstmpi_pmi.la libstmpi_util.la -lgtest -lgtest_main -lpthread

# test/unit/ofi_test: the libfabric network module on two forked processes,
# linked from the device layer's library (and the layers below it)
if HAVE_OFI
check_PROGRAMS += test/unit/ofi_test
TESTS += test/unit/ofi_test
test_unit_ofi_test_SOURCES = test/unit/ofi_test.cc test/unit/ofi_pair.h
test_unit_ofi_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_ofi_test_LDADD = libstmpi_device.la libstmpi_stream.la libstmpi_pmi.la libstmpi_util.la \
	$(OFI_LIBS) -lgtest -lgtest_main -lpthread -lrt -ldl
endif

# test/unit/ucx_test: the UCX network module on two forked processes over TCP,
# linked from the device layer's library (and the layers below it)
if HAVE_UCX
check_PROGRAMS += test/unit/ucx_test
TESTS += test/unit/ucx_test
test_unit_ucx_test_SOURCES = test/unit/ucx_test.cc test/unit/ofi_pair.h
test_unit_ucx_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_ucx_test_LDADD = libstmpi_device.la libstmpi_stream.la libstmpi_pmi.la libstmpi_util.la \
	$(OFI_LIBS) $(UCX_LIBS) -lgtest -lgtest_main -lpthread -lrt -ldl
endif

# test/unit/ofi_triggered_test: the triggered-operation pool of the libfabric module
# (native and deferred paths on sockets) on two forked processes, linked from
# the device layer's library (and the layers below it)
if HAVE_OFI
check_PROGRAMS += test/unit/ofi_triggered_test
TESTS += test/unit/ofi_triggered_test
test_unit_ofi_triggered_test_SOURCES = test/unit/ofi_triggered_test.cc test/unit/ofi_pair.h
test_unit_ofi_triggered_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_ofi_triggered_test_LDADD = libstmpi_device.la libstmpi_stream.la libstmpi_pmi.la \
	libstmpi_util.la $(OFI_LIBS) -lgtest -lgtest_main -lpthread -lrt -ldl
endif

endif  # HAVE_GTEST
