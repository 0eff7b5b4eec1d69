# test/unit/device_test: the launcher's process mapping and the progress
# engine (hooks, wait policy), from their sources: no libmpi, no launcher
if HAVE_GTEST
check_PROGRAMS += test/unit/device_test
TESTS += test/unit/device_test
test_unit_device_test_SOURCES = \
	test/unit/device_test.cc \
	src/device/progress.cc \
	src/pmi/process_mapping.cc \
	src/util/backoff.cc \
	src/util/param.cc
test_unit_device_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_device_test_LDADD = -lgtest -lgtest_main -lpthread
endif
