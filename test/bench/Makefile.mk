# test/bench: benchmarks, built and run by test/bench/run.sh (not by make check)
EXTRA_DIST += test/bench/bench_lib.sh test/bench/README.md test/bench/run.sh test/bench/bench_common.h \
	test/bench/pingpong.c test/bench/match_depth.c test/bench/bcast.c test/bench/allreduce.c test/bench/load_run.sh
EXTRA_DIST += test/bench/rma_lat.c test/bench/rma_lock.c test/bench/rma_overlap.c test/bench/rma_run.sh
EXTRA_DIST += test/bench/coll_bench.c test/bench/coll_overlap.c test/bench/coll_run.sh
# io_ior.sh: IOR (MPIIO) against Debian's MPICH, and io_overlap.c (nonblocking I/O overlap);
# io_sieve.sh: io_sieve.c (data sieving against one call per piece); io_lockcost.c (plain
# writes' shared range lock); io_direct.sh: io_collwrite.c swept for STMPI_IO_DIRECT_MIN_BYTES
EXTRA_DIST += test/bench/io_ior.sh test/bench/io_overlap.c test/bench/io_sieve.sh \
	test/bench/io_sieve.c test/bench/io_lockcost.c test/bench/io_collwrite.c test/bench/io_direct.sh
# spmm_run.sh: examples/spmm's variants against SUMMA and against the peer MPIs
EXTRA_DIST += test/bench/spmm_run.sh
# faces: the Faces benchmark (faces_run.sh, faces_nodes.sh and st_run.sh build it with gcc or
# mpicc); faces_gpu.c and faces_kernels.cu are its GPU mode (-G; faces_run.sh --gpu runs nvcc -ptx)
EXTRA_DIST += test/bench/faces.c test/bench/faces_util.h test/bench/faces_gpu.c test/bench/faces_gpu.h \
	test/bench/faces_kernels.cu test/bench/faces_kernels.h test/bench/faces_run.sh test/bench/faces_nodes.sh
# st_chain: one NIC triggered chain per trigger path against plain writes (st_chain_run.sh
# builds it with `make test/bench/st_chain`; internal API, so not an mpicc program)
EXTRA_DIST += test/bench/st_chain_run.sh test/bench/gpu_run.sh
if HAVE_OFI
EXTRA_PROGRAMS += test/bench/st_chain
test_bench_st_chain_SOURCES = test/bench/st_chain.cc $(OFI_SOURCES) $(OFI_TRIGGERED_SOURCES) \
	src/device/rma/accumulate.cc src/device/rma/st/settings.cc
test_bench_st_chain_CPPFLAGS = $(AM_CPPFLAGS)
test_bench_st_chain_LDADD = libstmpi_pmi.la libstmpi_util.la -lfabric -lpthread -ldl
endif
# net_layers: one message's cost per layer below MPI (bare libfabric, the network module);
# net_layers_run.sh builds it with `make test/bench/net_layers` and runs it next to pingpong
EXTRA_DIST += test/bench/net_layers_run.sh
# net_phases: one PSCW or lock epoch's time per call (mpicc program; net_run.sh runs it)
EXTRA_DIST += test/bench/net_phases.c
# st_enqueue: a host-stream ST step's enqueue and execution per call, against PSCW (mpicc, 1 rank)
EXTRA_DIST += test/bench/st_enqueue.c
# stream_p2p: MPICH's enqueue API on a host stream against MPI_Isend/Irecv/Waitall (mpicc)
EXTRA_DIST += test/bench/stream_p2p.c test/bench/stream_p2p_run.sh
# stream_p2p_gpu: the same exchange of device buffers on a CUDA stream: synchronize + MPI,
# MPICH's host function per operation, and the enqueue API (gpu_run.sh runs it)
EXTRA_DIST += test/bench/stream_p2p_gpu.c
# fortran_pingpong.sh: fpingpong.F90 through mpif.h, use mpi and use mpi_f08 against its C twin
# fpingpong.c and against MPICH running the same Fortran program
EXTRA_DIST += test/bench/fortran_pingpong.sh test/bench/fpingpong.F90 test/bench/fpingpong.c
if HAVE_OFI
EXTRA_PROGRAMS += test/bench/net_layers
test_bench_net_layers_SOURCES = test/bench/net_layers.cc
test_bench_net_layers_CPPFLAGS = $(AM_CPPFLAGS)
test_bench_net_layers_LDADD = libstmpi_device.la libstmpi_stream.la libstmpi_pmi.la libstmpi_util.la \
	$(OFI_LIBS) -lpthread -lrt -ldl
endif
# ucx_layers: the same per-layer costs on UCX (bare UCP active messages, the UCX module);
# net_layers_run.sh --ucx builds and runs it
if HAVE_UCX
EXTRA_PROGRAMS += test/bench/ucx_layers
test_bench_ucx_layers_SOURCES = test/bench/ucx_layers.cc
test_bench_ucx_layers_CPPFLAGS = $(AM_CPPFLAGS)
test_bench_ucx_layers_LDADD = libstmpi_device.la libstmpi_stream.la libstmpi_pmi.la libstmpi_util.la \
	$(OFI_LIBS) $(UCX_LIBS) -lpthread -lrt -ldl
endif
# check-bench-build: every benchmark still compiles against the current tree (they are not
# built by `make check`, so an internal API change would otherwise leave them broken until
# someone runs them). The C programs are compiled against include/ (syntax and types only:
# mpicc links them when the scripts run); the C++ ones that use internal APIs are built.
STMPI_BENCH_C_FILES = pingpong.c match_depth.c bcast.c allreduce.c rma_lat.c rma_lock.c rma_overlap.c \
	coll_bench.c coll_overlap.c faces.c st_exchange.c st_enqueue.c net_phases.c io_overlap.c io_sieve.c io_lockcost.c fpingpong.c \
	stream_p2p.c stream_p2p_gpu.c
# The Fortran benchmark is checked through each interface when the build has Fortran (configure
# found a working compiler: the build's mpif.h and module files); a build without Fortran says so.
check-bench-build:
	@for f in $(STMPI_BENCH_C_FILES); do \
	  $(CC) -std=gnu11 -fsyntax-only -Wall -Wno-unused-function -I$(top_srcdir)/include \
	    -I$(top_srcdir)/test/bench -I$(top_srcdir)/test/mpi/util $(top_srcdir)/test/bench/$$f || exit 1; \
	done
	@if [ "$(STMPI_HAVE_FORTRAN)" = yes ]; then \
	  incs="-I$(top_srcdir)/include"; \
	  for d in $$(find . -path ./inst -prune -o -path ./test -prune -o \( -name mpi.mod -o -name mpi_f08.mod \) \
	      -print | xargs -r -n1 dirname | sort -u); do incs="$$incs -I$$d"; done; \
	  for i in MPIF MPI F08; do \
	    (cd $(top_builddir) && $(FC) -fsyntax-only -cpp -DIFACE_$$i $$incs \
	      $(abs_top_srcdir)/test/bench/fpingpong.F90) || exit 1; \
	  done; \
	  echo "check-bench-build: fpingpong.F90 compiles through mpif.h, use mpi and use mpi_f08"; \
	else \
	  echo "check-bench-build: this build has no Fortran compiler; fpingpong.F90 not checked"; \
	fi
if HAVE_OFI
	@$(MAKE) $(AM_MAKEFLAGS) test/bench/st_chain$(EXEEXT) test/bench/net_layers$(EXEEXT)
endif
if HAVE_UCX
	@$(MAKE) $(AM_MAKEFLAGS) test/bench/ucx_layers$(EXEEXT)
endif
	@echo "check-bench-build: $(words $(STMPI_BENCH_C_FILES)) C benchmarks compile, internal-API benchmarks built"
.PHONY: check-bench-build
