# test/unit fragment: the triggered-operation pool of the libfabric module
# (native and deferred paths on sockets) on two forked processes, linked from
# the device layer's library (and the layers below it)
if HAVE_GTEST
if HAVE_OFI
check_PROGRAMS += test/unit/ofi_triggered_test
TESTS += test/unit/ofi_triggered_test
test_unit_ofi_triggered_test_SOURCES = test/unit/ofi_triggered_test.cc test/unit/ofi_pair.h
test_unit_ofi_triggered_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_ofi_triggered_test_LDADD = libstmpi_device.la libstmpi_stream.la libstmpi_pmi.la \
	libstmpi_util.la $(OFI_LIBS) -lgtest -lgtest_main -lpthread -lrt -ldl
endif
endif
