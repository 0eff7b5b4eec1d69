# util::Param (scopes, value text, setting from text), linked from the util layer
if HAVE_GTEST
check_PROGRAMS += test/unit/param_test
TESTS += test/unit/param_test
test_unit_param_test_SOURCES = test/unit/param_test.cc
test_unit_param_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_param_test_LDADD = libstmpi_util.la -lgtest -lgtest_main -lpthread
endif
