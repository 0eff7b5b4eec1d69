# src/mpi: MPI objects and semantics, one folder per chapter
libstmpi_mpi_la_SOURCES += \
	src/mpi/errhan/errhandler.cc \
	src/mpi/init/init.cc \
	src/mpi/request/request.cc \
	src/mpi/request/wait.cc \
	src/mpi/request/status_convert.cc \
	src/mpi/pt2pt/start.cc \
	src/mpi/pt2pt/send_recv.cc \
	src/mpi/pt2pt/bsend.cc \
	src/mpi/pt2pt/probe.cc
noinst_HEADERS += \
	src/mpi/impl.h \
	src/mpi/handle.h \
	src/mpi/errhan/error.h \
	src/mpi/errhan/errhandler.h \
	src/mpi/init/state.h \
	src/mpi/request/request.h \
	src/mpi/pt2pt/pt2pt.h \
	src/mpi/pt2pt/bsend.h
include src/mpi/datatype/sources.mk
include src/mpi/comm/sources.mk
include src/mpi/group/sources.mk
include src/mpi/coll/sources.mk
include src/mpi/info/sources.mk
include src/mpi/rma/sources.mk
include src/mpi/mpix/sources.mk
include src/mpi/io/sources.mk
include src/mpi/topo/sources.mk
include src/mpi/dynamic/sources.mk
include src/mpi/part/sources.mk
include src/mpi/session/sources.mk
include src/mpi/tools/sources.mk
