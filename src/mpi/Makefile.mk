# src/mpi: MPI objects and semantics, one folder per chapter
libstmpi_mpi_la_SOURCES += \
	src/mpi/errhan/errhandler.cc \
	src/mpi/errhan/user_errors.cc \
	src/mpi/init/init.cc \
	src/mpi/request/request.cc \
	src/mpi/request/wait.cc \
	src/mpi/request/status_convert.cc \
	src/mpi/pt2pt/start.cc \
	src/mpi/pt2pt/send_recv.cc \
	src/mpi/pt2pt/bsend.cc \
	src/mpi/pt2pt/probe.cc
noinst_HEADERS += \
	src/mpi/init/impl_env.h \
	src/mpi/request/impl_request.h \
	src/mpi/pt2pt/impl_pt2pt.h \
	src/mpi/handle.h \
	src/mpi/errhan/error.h \
	src/mpi/errhan/errhandler.h \
	src/mpi/errhan/user_errors.h \
	src/mpi/init/state.h \
	src/mpi/request/request.h \
	src/mpi/pt2pt/pt2pt.h \
	src/mpi/pt2pt/bsend.h
