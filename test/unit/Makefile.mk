# test/unit fragment: GoogleTest programs, no launcher and no libmpi
if HAVE_GTEST
check_PROGRAMS += test/unit/match_test
TESTS += test/unit/match_test
test_unit_match_test_SOURCES = test/unit/match_test.cc
test_unit_match_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_match_test_LDADD = -lgtest -lgtest_main -lpthread
endif
include test/unit/st.mk
# util::ShmSegment, linked from the util layer's library
if HAVE_GTEST
check_PROGRAMS += test/unit/shm_segment_test
TESTS += test/unit/shm_segment_test
test_unit_shm_segment_test_SOURCES = test/unit/shm_segment_test.cc
test_unit_shm_segment_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_shm_segment_test_LDADD = libstmpi_util.la -lgtest -lgtest_main -lpthread
endif
include test/unit/param.mk
