# src/mpi/info: MPI_Info objects
libstmpi_mpi_la_SOURCES += src/mpi/info/info.cc src/mpi/info/info_env.cc
noinst_HEADERS += src/mpi/info/info.h
