# test/bench: benchmarks, built and run by test/bench/run.sh (not by make check)
EXTRA_DIST += test/bench/bench_lib.sh test/bench/README.md test/bench/run.sh test/bench/bench_common.h \
	test/bench/pingpong.c test/bench/match_depth.c test/bench/bcast.c test/bench/load_run.sh
EXTRA_DIST += test/bench/rma_lat.c test/bench/rma_lock.c test/bench/rma_overlap.c test/bench/rma_run.sh
EXTRA_DIST += test/bench/coll_bench.c test/bench/coll_overlap.c test/bench/coll_run.sh
