# src/mpi/io: MPI-IO (not provided yet: file error handlers and MPI_FILE_NULL)
libstmpi_mpi_la_SOURCES += src/mpi/io/io.cc
noinst_HEADERS += src/mpi/io/io.h
