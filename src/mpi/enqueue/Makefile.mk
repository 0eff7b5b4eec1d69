# src/mpi/enqueue: MPIX_Stream objects and the enqueue engine (stream
# point-to-point transfers prepared by the CPU, moved when streams reach them)
libstmpi_mpi_la_SOURCES += \
	src/mpi/enqueue/stream_object.cc \
	src/mpi/enqueue/engine.cc \
	src/mpi/enqueue/channel.cc \
	src/mpi/enqueue/transfer_channel.cc
noinst_HEADERS += src/mpi/enqueue/stream_object.h src/mpi/enqueue/engine.h \
	src/mpi/enqueue/channel.h \
	src/mpi/enqueue/transfer.h
EXTRA_DIST += src/mpi/enqueue/README.md
