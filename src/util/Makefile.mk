# src/util: runtime parameters, logging, small shared helpers
libmpi_la_SOURCES += src/util/param.cc
noinst_HEADERS += src/util/param.h
libmpi_la_SOURCES += src/util/info_print.cc
libmpi_la_SOURCES += src/util/shm_segment.cc
noinst_HEADERS += src/util/shm_segment.h
