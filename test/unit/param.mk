# util::Param (scopes, value text, setting from text), built from its source
if HAVE_GTEST
check_PROGRAMS += test/unit/param_test
TESTS += test/unit/param_test
test_unit_param_test_SOURCES = test/unit/param_test.cc src/util/param.cc
test_unit_param_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_param_test_LDADD = -lgtest -lgtest_main -lpthread
endif
