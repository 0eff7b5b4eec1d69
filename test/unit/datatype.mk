# test/unit/datatype_test: datatypes and reduction operations, linked from the
# layers' libraries (mpi and what it stands on; no bindings, no launcher)
if HAVE_GTEST
check_PROGRAMS += test/unit/datatype_test
TESTS += test/unit/datatype_test
test_unit_datatype_test_SOURCES = test/unit/datatype_test.cc
test_unit_datatype_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_datatype_test_LDADD = libstmpi_mpi.la libstmpi_device.la libstmpi_stream.la \
	libstmpi_pmi.la libstmpi_util.la $(HWLOC_LIBS) $(OFI_LIBS) -lgtest -lgtest_main -lpthread \
	-lrt -ldl
endif
