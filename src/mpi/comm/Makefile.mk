# src/mpi/comm: communicators, context ids, keyvals and attributes
libstmpi_mpi_la_SOURCES += \
	src/mpi/comm/comm.cc \
	src/mpi/comm/comm_ops.cc \
	src/mpi/comm/context_id.cc \
	src/mpi/comm/intercomm.cc \
	src/mpi/comm/comm_group_ctor.cc \
	src/mpi/comm/split_type.cc \
	src/mpi/comm/attr.cc \
	src/mpi/comm/attr_table.cc \
	src/mpi/comm/attr_mpi1.cc
noinst_HEADERS += \
	src/mpi/comm/comm.h \
	src/mpi/comm/context_id.h \
	src/mpi/comm/intercomm.h \
	src/mpi/comm/keyval.h \
	src/mpi/comm/attr_table.h \
	src/mpi/comm/attr.h
EXTRA_DIST += src/mpi/comm/README.md
libmpi_la_LIBADD += $(HWLOC_LIBS)
