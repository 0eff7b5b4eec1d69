# src/mpi/mpix: the implementations of the MPIX_ stream calls (their wrappers
# are generated from maint/mpix.spec) and the hooks the one-sided chapter
# calls for stream epochs
libstmpi_mpi_la_SOURCES += \
	src/mpi/mpix/win_stream.cc \
	src/mpi/mpix/mpix_win_stream.cc \
	src/mpi/mpix/mpix_host_stream.cc \
	src/mpi/mpix/st_stats.cc
noinst_HEADERS += src/mpi/mpix/win_stream.h
EXTRA_DIST += src/mpi/mpix/README.md
