# test/mpi: MPI programs per chapter, run under our mpiexec by run_tests.sh;
# multinode/run.sh runs some of them across 2 nodes (network namespaces) under
# Hydra, and the whole suite with STMPI_DEVICE_NOLOCAL=yes
TESTS += test/mpi/run_tests.sh test/mpi/multinode/run.sh
EXTRA_DIST += test/mpi/run_tests.sh test/mpi/multinode/run.sh test/mpi/multinode/programs \
	test/mpi/multinode/probe.c
TESTS_ENVIRONMENT = BUILDDIR=$(abs_top_builddir) SRCDIR=$(abs_top_srcdir); export BUILDDIR SRCDIR;
