# test/unit fragment: the triggered-operation pool of the libfabric module
# (native and deferred paths on sockets) on two forked processes
if HAVE_GTEST
if HAVE_OFI
check_PROGRAMS += test/unit/ofi_triggered_test
TESTS += test/unit/ofi_triggered_test
test_unit_ofi_triggered_test_SOURCES = test/unit/ofi_triggered_test.cc test/unit/ofi_pair.h $(OFI_SOURCES) \
	$(OFI_TRIGGERED_SOURCES) src/device/rma/accumulate.cc src/device/rma/st/settings.cc
test_unit_ofi_triggered_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_ofi_triggered_test_LDADD = libstmpi_util.la -lfabric -lgtest -lgtest_main -lpthread -ldl
endif
endif
