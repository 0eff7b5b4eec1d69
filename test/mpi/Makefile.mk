# test/mpi: MPI programs per chapter, run under our mpiexec by run_tests.sh
TESTS += test/mpi/run_tests.sh
EXTRA_DIST += test/mpi/run_tests.sh
TESTS_ENVIRONMENT = BUILDDIR=$(abs_top_builddir) SRCDIR=$(abs_top_srcdir); export BUILDDIR SRCDIR;
