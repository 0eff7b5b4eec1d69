# test/unit/datatype_test: datatypes and reduction operations, built from
# their sources (no libmpi, no launcher)
if HAVE_GTEST
check_PROGRAMS += test/unit/datatype_test
TESTS += test/unit/datatype_test
test_unit_datatype_test_SOURCES = \
	test/unit/datatype_test.cc \
	src/mpi/datatype/datatype.cc \
	src/mpi/datatype/layout_builder.cc \
	src/mpi/datatype/predefined.cc \
	src/mpi/datatype/type_create.cc \
	src/mpi/datatype/type_query.cc \
	src/mpi/datatype/type_attr.cc \
	src/mpi/comm/attr.cc \
	src/mpi/comm/attr_table.cc \
	src/mpi/coll/op.cc
test_unit_datatype_test_CPPFLAGS = $(AM_CPPFLAGS)
test_unit_datatype_test_LDADD = libstmpi_util.la -lgtest -lgtest_main -lpthread
endif
