# src/mpi/coll: collective algorithms (one file per family), the schedule
# engine (sched/) and the reduction operations.
libstmpi_mpi_la_SOURCES += \
	src/mpi/coll/util.cc \
	src/mpi/coll/settings.cc \
	src/mpi/coll/checks.cc \
	src/mpi/coll/ring.cc \
	src/mpi/coll/sched/schedule.cc \
	src/mpi/coll/sched/engine.cc \
	src/mpi/coll/barrier.cc \
	src/mpi/coll/bcast.cc \
	src/mpi/coll/reduce.cc \
	src/mpi/coll/allreduce.cc \
	src/mpi/coll/gather.cc \
	src/mpi/coll/scatter.cc \
	src/mpi/coll/allgather.cc \
	src/mpi/coll/alltoall.cc \
	src/mpi/coll/alltoall_calls.cc \
	src/mpi/coll/reduce_scatter.cc \
	src/mpi/coll/scan.cc \
	src/mpi/coll/inter.cc \
	src/mpi/coll/node.cc \
	src/mpi/coll/direct.cc
noinst_HEADERS += src/mpi/coll/coll.h src/mpi/coll/settings.h src/mpi/coll/checks.h \
	src/mpi/coll/ring.h src/mpi/coll/tree.h src/mpi/coll/launch.h src/mpi/coll/inter.h src/mpi/coll/node.h src/mpi/coll/direct.h \
	src/mpi/coll/sched/schedule.h src/mpi/coll/sched/engine.h
EXTRA_DIST += src/mpi/coll/README.md src/mpi/coll/sched/README.md
