# src/binding fragment: the C bindings (see src/binding/README.md)
libmpi_la_SOURCES += \
	src/binding/call.cc \
	src/binding/removed.cc \
	src/binding/pcontrol.cc \
	src/binding/mpich_hooks.cc \
	src/binding/mpis.cc \
	src/binding/gen/bindings_env.cc \
	src/binding/gen/bindings_pt2pt.cc \
	src/binding/gen/bindings_request.cc \
	src/binding/gen/bindings_comm_group.cc \
	src/binding/gen/bindings_datatype.cc \
	src/binding/gen/bindings_coll.cc \
	src/binding/gen/bindings_coll_nb.cc \
	src/binding/gen/bindings_coll_init.cc \
	src/binding/gen/bindings_info.cc \
	src/binding/gen/bindings_rma.cc \
	src/binding/gen/bindings_io.cc \
	src/binding/gen/bindings_topo.cc \
	src/binding/gen/bindings_session.cc \
	src/binding/gen/bindings_part.cc \
	src/binding/gen/bindings_dynamic.cc \
	src/binding/gen/bindings_tools.cc \
	src/binding/gen/bindings_mpix.cc
noinst_HEADERS += \
	src/binding/call.h \
	src/binding/routine.h
EXTRA_DIST += \
	src/binding/README.md \
	maint/functions.txt \
	maint/api.spec \
	maint/mpix.spec \
	maint/make_spec.py \
	maint/forward.spec \
	maint/gen_bindings.py \
	maint/gen_impl.py \
	maint/binding_spec.py

# The MPI Forum's API data; only needed to regenerate maint/api.spec and
# maint/fortran_api.spec.
STMPI_MPI_API_JSON = $(top_srcdir)/../shared/mpi-standard/apis.json
# MPICH's header, for the ABI check of the prototypes (skipped if absent).
STMPI_MPICH_INCLUDE = /usr/include/x86_64-linux-gnu/mpich

# Regenerates the bindings in a scratch tree and compares them with the
# checked-in files (and the specs too when the API data is at hand), then
# compiles the prototypes on their own and against MPICH's mpi.h, where any
# type difference is a conflicting declaration.
check-bindings:
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	if test -f "$(STMPI_MPI_API_JSON)"; then \
	  $(PYTHON3) $(top_srcdir)/maint/make_spec.py "$(STMPI_MPI_API_JSON)" \
	    $(top_srcdir)/maint/functions.txt "$$tmp/api.spec" "$$tmp/fortran_api.spec"; \
	  diff -u $(top_srcdir)/maint/api.spec "$$tmp/api.spec"; \
	  diff -u $(top_srcdir)/maint/fortran_api.spec "$$tmp/fortran_api.spec"; \
	  echo "check-bindings: maint/api.spec and maint/fortran_api.spec are up to date"; \
	else \
	  echo "check-bindings: $(STMPI_MPI_API_JSON) not found;" \
	    "maint/api.spec and maint/fortran_api.spec not checked"; \
	fi; \
	$(PYTHON3) $(top_srcdir)/maint/gen_bindings.py --spec $(top_srcdir)/maint/api.spec \
	  --mpix-spec $(top_srcdir)/maint/mpix.spec \
	  --forward-spec $(top_srcdir)/maint/forward.spec --out "$$tmp"; \
	diff -u $(top_srcdir)/include/mpi_proto.h "$$tmp/include/mpi_proto.h"; \
	diff -u $(top_srcdir)/include/pmpi_proto.h "$$tmp/include/pmpi_proto.h"; \
	for h in $$(cd "$$tmp" && ls src/mpi/*/impl_*.h) $$(cd $(top_srcdir) && ls src/mpi/*/impl_*.h); do \
	  diff -u $(top_srcdir)/$$h "$$tmp/$$h"; \
	done; \
	diff -ru -x '.*' -x '*.o' -x '*.lo' -x README.md $(top_srcdir)/src/binding/gen "$$tmp/src/binding/gen"; \
	echo "check-bindings: generated files are up to date"; \
	echo '#include <mpi.h>' | $(CC) -x c -std=c99 -Wall -Wextra -pedantic -fsyntax-only \
	  -I$(top_srcdir)/include -; \
	echo "check-bindings: mpi.h compiles as C99"; \
	if test -f "$(STMPI_MPICH_INCLUDE)/mpi.h"; then \
	  $(CC) -x c -std=c99 -Wall -Wextra -fsyntax-only -I"$(STMPI_MPICH_INCLUDE)" \
	    -include mpi.h $(top_srcdir)/include/mpi_proto.h; \
	  $(CC) -x c -std=c99 -Wall -Wextra -fsyntax-only -I"$(STMPI_MPICH_INCLUDE)" \
	    -include mpi.h $(top_srcdir)/include/pmpi_proto.h; \
	  echo "check-bindings: prototypes match MPICH's"; \
	else \
	  echo "check-bindings: $(STMPI_MPICH_INCLUDE)/mpi.h not found; ABI check skipped"; \
	fi

.PHONY: check-bindings
