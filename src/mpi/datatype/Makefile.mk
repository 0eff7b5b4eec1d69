# src/mpi/datatype: datatype objects, constructors, pack/unpack; and the
# reduction operations of src/mpi/coll that apply to them (op*.cc)
libstmpi_mpi_la_SOURCES += \
	src/mpi/datatype/datatype.cc \
	src/mpi/datatype/layout_builder.cc \
	src/mpi/datatype/predefined.cc \
	src/mpi/datatype/type_create.cc \
	src/mpi/datatype/type_query.cc \
	src/mpi/datatype/type_decode.cc \
	src/mpi/datatype/type_attr.cc \
	src/mpi/datatype/type_darray.cc \
	src/mpi/datatype/external32.cc \
	src/mpi/coll/op.cc
noinst_HEADERS += \
	src/mpi/datatype/datatype.h \
	src/mpi/datatype/layout_builder.h \
	src/mpi/datatype/type_attr.h \
	src/mpi/datatype/type_compose.h \
	src/mpi/coll/op.h \
	src/mpi/coll/op_kernels.h
EXTRA_DIST += src/mpi/datatype/README.md
