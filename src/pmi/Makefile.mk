# src/pmi fragment: the PMI-1 client (see src/pmi/README.md)
libstmpi_pmi_la_SOURCES += \
	src/pmi/client.cc \
	src/pmi/process_mapping.cc
noinst_HEADERS += \
	src/pmi/client.h \
	src/pmi/process_mapping.h \
	src/pmi/wire.h
EXTRA_DIST += src/pmi/README.md
