# src/util: runtime parameters, logging, small shared helpers
libmpi_la_SOURCES += src/util/param.cc src/util/backoff.cc
noinst_HEADERS += src/util/param.h src/util/backoff.h
libmpi_la_SOURCES += src/util/info_print.cc
