# src/mpi/tools: the tool information interface (MPI_T)
libstmpi_mpi_la_SOURCES += \
	src/mpi/tools/state.cc \
	src/mpi/tools/cvar.cc \
	src/mpi/tools/pvar.cc
noinst_HEADERS += src/mpi/tools/tools.h
EXTRA_DIST += src/mpi/tools/README.md
