# src/mpi/topo: process topologies and neighborhood collectives
libstmpi_mpi_la_SOURCES += \
	src/mpi/topo/cart.cc \
	src/mpi/topo/dims.cc \
	src/mpi/topo/graph.cc \
	src/mpi/topo/neighbor.cc
noinst_HEADERS += \
	src/mpi/topo/topology.h \
	src/mpi/topo/neighbor.h
EXTRA_DIST += src/mpi/topo/README.md
