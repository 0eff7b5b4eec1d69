# src/pmi fragment: the PMI-1 client (see src/pmi/README.md)
libmpi_la_SOURCES += \
	src/pmi/client.cc \
	src/pmi/process_mapping.cc \
	src/util/launcher_env.cc
noinst_HEADERS += \
	src/pmi/client.h \
	src/pmi/process_mapping.h \
	src/pmi/wire_escape.h \
	src/util/launcher_env.h
EXTRA_DIST += src/pmi/README.md
