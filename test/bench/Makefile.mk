# test/bench: benchmarks (built by maint/bench.sh, not by make check)
