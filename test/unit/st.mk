# test/unit/st_test: stream-triggered epochs (src/device/rma/st) over a fake
# window segment in one process, from their sources: no libmpi, no launcher
if HAVE_GTEST
check_PROGRAMS += test/unit/st_test
TESTS += test/unit/st_test
test_unit_st_test_SOURCES = \
	test/unit/st_test.cc \
	test/unit/st_software_test.cc \
	src/device/rma/st/settings.cc \
	src/device/rma/st/epoch_plan.cc \
	src/device/rma/st/merged_kernel_executor.cc \
	src/device/rma/st/stream_window.cc \
	src/device/rma/st/software_triggers.cc \
	src/device/rma/st/triggered_op_executor.cc \
	src/device/rma/window_segment.cc \
	src/device/rma/am_rma.cc \
	src/device/rma/cma_rma.cc \
	test/unit/st_net_stubs.cc \
	test/unit/st_progress_fake.cc \
	src/device/rma/accumulate.cc \
	src/mpi/datatype/datatype.cc \
	src/mpi/datatype/layout_builder.cc \
	src/mpi/datatype/predefined.cc \
	src/mpi/datatype/type_create.cc \
	src/mpi/datatype/type_query.cc \
	src/mpi/datatype/type_attr.cc \
	src/mpi/comm/attr.cc \
	src/mpi/comm/attr_table.cc \
	src/mpi/coll/op.cc \
	$(STREAM_CORE_SOURCES)
test_unit_st_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_st_test_LDADD = libstmpi_util.la -lgtest -lgtest_main -lpthread -ldl
nodist_test_unit_st_test_SOURCES =
if HAVE_OFI
# the executor between nodes reaches the network module (net_rma.h)
test_unit_st_test_SOURCES += $(OFI_SOURCES) $(OFI_TRIGGERED_SOURCES) src/device/ofi/ofi_rma_map.cc
test_unit_st_test_LDADD += -lfabric
endif
if STMPI_CUDA_BACKEND
test_unit_st_test_SOURCES += src/stream/cuda/cuda_runtime.cc
nodist_test_unit_st_test_SOURCES += src/stream/cuda/cuda_kernel_image.cc
test_unit_st_test_CPPFLAGS += $(CUDA_CPPFLAGS)
endif
if STMPI_HIP_BACKEND
test_unit_st_test_SOURCES += src/stream/hip/hip_runtime.cc
nodist_test_unit_st_test_SOURCES += src/stream/hip/hip_kernel_image.cc
test_unit_st_test_CPPFLAGS += $(HIP_CPPFLAGS)
endif
endif
