# test/bench: benchmarks (built by maint/bench.sh, not by make check)
EXTRA_DIST += test/bench/rma_lat.c test/bench/rma_lock.c test/bench/rma_overlap.c test/bench/rma_run.sh
