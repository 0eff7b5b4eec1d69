# src/binding/fortran fragment: the f77 glue, libmpichfort.so.12, mpif.h and
# the mpifort wrappers (see src/binding/fortran/README.md). The `mpi` and
# `mpi_f08` module fragments (src/binding/fortran/mod/Makefile.mk,
# src/binding/f08/Makefile.mk) add their sources to the same library.
include $(top_srcdir)/src/binding/fortran/gen/sources.mk

# libmpichfort.so.12 (MPICH's soname): links against our libmpich.so.12.
libmpichfort_la_SOURCES = \
	src/binding/fortran/special.cc \
	src/binding/fortran/legacy.cc \
	$(STMPI_FORTRAN_GLUE_SOURCES)
libmpichfort_la_LIBADD = libmpich.la
libmpichfort_la_LDFLAGS = -version-info 12:0:0 -Wl,--no-undefined
noinst_HEADERS += \
	src/binding/fortran/fortran.h \
	src/binding/fortran/mpii_hooks.h \
	src/binding/fortran/gen/sentinels.h
EXTRA_DIST += \
	src/binding/fortran/README.md \
	src/binding/fortran/gen/sources.mk \
	src/tools/mpifort.in \
	src/tools/stmpi-fort.pc.in \
	maint/gen_fortran.py \
	maint/fortran_common.py \
	maint/fortran_kinds.spec \
	maint/fortran_api.spec \
	include/mpif.h

if BUILD_FORTRAN
lib_LTLIBRARIES += libmpichfort.la
include_HEADERS += include/mpif.h
bin_SCRIPTS += src/tools/mpifort
pkgconfig_DATA += src/tools/stmpi-fort.pc

endif

# mpif90 and mpif77 are other names of mpifort; mpich-fort.pc and
# mpi-fort.pc other names of stmpi-fort.pc (nothing without Fortran); the
# module directory exists even before the modules are installed (the
# wrappers, pkg-config and CMake name it).
install-exec-local: install-fortran-links
install-data-hook: install-fortran-pc
uninstall-local: uninstall-fortran
install-fortran-links:
	if test "$(STMPI_HAVE_FORTRAN)" = yes; then \
	  $(MKDIR_P) $(DESTDIR)$(bindir) && cd $(DESTDIR)$(bindir) && \
	  for n in mpif90 mpif77; do rm -f $$n && ln -s mpifort $$n; done; \
	fi
install-fortran-pc:
	if test "$(STMPI_HAVE_FORTRAN)" = yes; then \
	  $(MKDIR_P) $(DESTDIR)$(fmoddir) && cd $(DESTDIR)$(pkgconfigdir) && ln -sf stmpi-fort.pc mpich-fort.pc && \
	  ln -sf stmpi-fort.pc mpi-fort.pc; \
	fi
uninstall-fortran:
	rm -f $(DESTDIR)$(bindir)/mpif90 $(DESTDIR)$(bindir)/mpif77 \
	  $(DESTDIR)$(pkgconfigdir)/mpich-fort.pc $(DESTDIR)$(pkgconfigdir)/mpi-fort.pc

# The Fortran part of check-bindings: regenerates mpif.h, the sentinel
# header and the glue into a scratch tree from the checked-in
# maint/fortran_api.spec (no apis.json needed; the C part checks that spec
# against apis.json where that is at hand) and compares them with the
# checked-in files; gen_fortran.py's report (functions of the API data
# missing from C or from the glue) is printed.
check-bindings: check-bindings-fortran
check-bindings-fortran:
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(PYTHON3) $(top_srcdir)/maint/gen_fortran.py --api $(top_srcdir)/maint/fortran_api.spec \
	  --srcdir $(top_srcdir) --out "$$tmp"; \
	diff -u $(top_srcdir)/include/mpif.h "$$tmp/include/mpif.h"; \
	diff -ru -x '.*' -x '*.o' -x '*.lo' -x README.md $(top_srcdir)/src/binding/fortran/gen \
	  "$$tmp/src/binding/fortran/gen"; \
	echo "check-bindings: Fortran glue and mpif.h are up to date"
.PHONY: check-bindings-fortran install-fortran-links install-fortran-pc uninstall-fortran
