# test/mpi: MPI programs per chapter, run under our mpiexec by run_tests.sh;
# multinode/run.sh runs some of them across 2 nodes (network namespaces) under
# Hydra, and the whole suite with STMPI_DEVICE_NOLOCAL=yes
TESTS += test/mpi/run_tests.sh test/mpi/multinode/run.sh
EXTRA_DIST += test/mpi/run_tests.sh test/mpi/multinode/run.sh test/mpi/multinode/programs \
	test/mpi/multinode/probe.c
TESTS_ENVIRONMENT = BUILDDIR=$(abs_top_builddir) SRCDIR=$(abs_top_srcdir) STMPI_TEST_SANITIZE='$(STMPI_SANITIZE_FLAGS)'; export BUILDDIR SRCDIR STMPI_TEST_SANITIZE;
if STMPI_SANITIZERS
# Sanitizer reports fail the test; see README "Sanitizer build".
TESTS_ENVIRONMENT += ASAN_OPTIONS=$${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1:halt_on_error=1}; UBSAN_OPTIONS=$${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}; export ASAN_OPTIONS UBSAN_OPTIONS;
endif
