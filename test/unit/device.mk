# test/unit/device_test: the launcher's process mapping and the progress
# engine (hooks, wait policy), linked from the device, pmi and util layers'
# libraries (the test stands in for the transports' poll): no libmpi, no launcher
if HAVE_GTEST
check_PROGRAMS += test/unit/device_test
TESTS += test/unit/device_test
test_unit_device_test_SOURCES = \
	test/unit/device_test.cc
test_unit_device_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_device_test_LDADD = libstmpi_device.la libstmpi_pmi.la libstmpi_util.la -lgtest -lgtest_main -lpthread
endif
