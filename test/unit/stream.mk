# test/unit/stream_test: the stream module (host backend; GPU backends when
# built), linked from the stream and util layers' libraries: no libmpi, no launcher
if HAVE_GTEST
check_PROGRAMS += test/unit/stream_test
TESTS += test/unit/stream_test
test_unit_stream_test_SOURCES = test/unit/stream_test.cc test/unit/stream_step_test.cc \
	test/unit/stream_test_helpers.h
test_unit_stream_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_stream_test_LDADD = libstmpi_stream.la libstmpi_util.la -lgtest -lgtest_main -lpthread -ldl
if STMPI_CUDA_BACKEND
test_unit_stream_test_CPPFLAGS += $(CUDA_CPPFLAGS)
endif
if STMPI_HIP_BACKEND
test_unit_stream_test_CPPFLAGS += $(HIP_CPPFLAGS)
endif
endif
