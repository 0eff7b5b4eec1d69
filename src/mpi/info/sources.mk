# src/mpi/info: MPI_Info objects
libmpi_la_SOURCES += src/mpi/info/info.cc src/mpi/info/info_env.cc
noinst_HEADERS += src/mpi/info/info.h
