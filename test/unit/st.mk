# test/unit/st_test: stream-triggered epochs (src/device/rma/st) over a fake
# window segment in one process, linked from the layers' libraries (the GPU
# backends come with libstmpi_stream): no libmpi, no launcher
if HAVE_GTEST
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
endif
