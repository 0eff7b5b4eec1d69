# src/tools fragment (see src/tools/README.md)
bin_PROGRAMS += mpiexec
mpiexec_SOURCES = \
	src/tools/mpiexec/main.cc \
	src/tools/mpiexec/options.cc \
	src/tools/mpiexec/launcher.cc \
	src/tools/mpiexec/job.cc \
	src/tools/mpiexec/session.cc \
	src/tools/mpiexec/pmi_server.cc \
	src/tools/mpiexec/output.cc
noinst_HEADERS += \
	src/tools/mpiexec/options.h \
	src/tools/mpiexec/launcher.h \
	src/tools/mpiexec/job.h \
	src/tools/mpiexec/session.h \
	src/tools/mpiexec/pmi_server.h \
	src/tools/mpiexec/output.h
mpiexec_LDADD = $(HWLOC_LIBS)
EXTRA_DIST += src/tools/README.md

# mpirun is another name for mpiexec
install-exec-local:
	$(MKDIR_P) $(DESTDIR)$(bindir)
	cd $(DESTDIR)$(bindir) && rm -f mpirun && ln -s mpiexec mpirun

uninstall-local:
	rm -f $(DESTDIR)$(bindir)/mpirun

# stmpi_info: version, build options, runtime parameters
bin_PROGRAMS += stmpi_info
stmpi_info_SOURCES = src/tools/info/main.cc
stmpi_info_LDADD = libmpich.la
EXTRA_DIST += src/tools/mpicc.in src/tools/stmpi.pc.in

# pkg-config files: stmpi.pc, and mpich.pc for builds that ask for MPICH by name
pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = src/tools/stmpi.pc
install-data-hook:
	cd $(DESTDIR)$(pkgconfigdir) && sed 's/^Name: stmpi/Name: mpich/' stmpi.pc > mpich.pc
