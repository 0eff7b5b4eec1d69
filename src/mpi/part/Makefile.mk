# src/mpi/part: partitioned communication
libstmpi_mpi_la_SOURCES += src/mpi/part/part.cc
noinst_HEADERS += src/mpi/part/part.h
EXTRA_DIST += src/mpi/part/README.md
