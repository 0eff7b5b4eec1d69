# src/mpi/session: the Sessions Model
libstmpi_mpi_la_SOURCES += src/mpi/session/session.cc
noinst_HEADERS += src/mpi/session/session.h
EXTRA_DIST += src/mpi/session/README.md
