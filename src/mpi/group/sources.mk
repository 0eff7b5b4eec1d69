# src/mpi/group: process groups
libmpi_la_SOURCES += \
	src/mpi/group/group.cc \
	src/mpi/group/group_ops.cc
noinst_HEADERS += src/mpi/group/group.h
