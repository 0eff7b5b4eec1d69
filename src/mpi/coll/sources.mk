# src/mpi/coll: collective algorithms (one file per family)
libmpi_la_SOURCES += \
	src/mpi/coll/util.cc \
	src/mpi/coll/barrier.cc \
	src/mpi/coll/bcast.cc \
	src/mpi/coll/reduce.cc \
	src/mpi/coll/allreduce.cc \
	src/mpi/coll/gather_scatter.cc \
	src/mpi/coll/allgather.cc \
	src/mpi/coll/alltoall.cc
noinst_HEADERS += src/mpi/coll/coll.h
EXTRA_DIST += src/mpi/coll/README.md
