# src/mpi/dynamic: process creation and management (calls that report "not provided")
libstmpi_mpi_la_SOURCES += src/mpi/dynamic/dynamic.cc
EXTRA_DIST += src/mpi/dynamic/README.md
