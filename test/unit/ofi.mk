# test/unit fragment: the libfabric network module on two forked processes
if HAVE_GTEST
if HAVE_OFI
check_PROGRAMS += test/unit/ofi_test
TESTS += test/unit/ofi_test
test_unit_ofi_test_SOURCES = test/unit/ofi_test.cc test/unit/ofi_pair.h $(OFI_SOURCES) src/util/param.cc
test_unit_ofi_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_ofi_test_LDADD = -lfabric -lgtest -lgtest_main -lpthread
endif
endif
