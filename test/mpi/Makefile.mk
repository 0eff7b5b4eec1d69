# test/mpi: MPI programs per chapter, run under our mpiexec by run_tests.sh
TESTS += test/mpi/run_tests.sh
EXTRA_DIST += test/mpi/run_tests.sh
TESTS_ENVIRONMENT = BUILDDIR=$(abs_top_builddir) SRCDIR=$(abs_top_srcdir) STMPI_TEST_SANITIZE='$(STMPI_SANITIZE_FLAGS)'; export BUILDDIR SRCDIR STMPI_TEST_SANITIZE;
if STMPI_SANITIZERS
# Sanitizer reports fail the test; see README "Sanitizer build".
TESTS_ENVIRONMENT += ASAN_OPTIONS=$${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1:halt_on_error=1}; UBSAN_OPTIONS=$${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}; export ASAN_OPTIONS UBSAN_OPTIONS;
endif
