# src/mpi/group: process groups
libstmpi_mpi_la_SOURCES += \
	src/mpi/group/group.cc \
	src/mpi/group/group_ops.cc
noinst_HEADERS += src/mpi/group/group.h
