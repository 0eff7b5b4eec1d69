# src/mpi/rma: windows, RMA communication and synchronization calls
libstmpi_mpi_la_SOURCES += \
	src/mpi/rma/win_create.cc \
	src/mpi/rma/win_attr.cc \
	src/mpi/rma/epoch.cc \
	src/mpi/rma/target.cc \
	src/mpi/rma/rma_ops.cc \
	src/mpi/rma/sync_active.cc \
	src/mpi/rma/sync_passive.cc \
	src/mpi/rma/stats.cc
noinst_HEADERS += \
	src/mpi/rma/win.h \
	src/mpi/rma/rma.h \
	src/mpi/rma/rma_internal.h \
	src/mpi/rma/target.h
EXTRA_DIST += src/mpi/rma/README.md
