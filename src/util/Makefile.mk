# src/util: runtime parameters, logging, small shared helpers
libstmpi_util_la_SOURCES += src/util/param.cc src/util/backoff.cc src/util/error.cc \
	src/util/reduce.cc
EXTRA_DIST += src/util/README.md
noinst_HEADERS += src/util/param.h src/util/backoff.h src/util/error.h \
	src/util/element_kind.h src/util/reduce.h
libstmpi_util_la_SOURCES += src/util/info_print.cc src/util/launcher_env.cc
noinst_HEADERS += src/util/launcher_env.h
libstmpi_util_la_SOURCES += src/util/shm_segment.cc
noinst_HEADERS += src/util/shm_segment.h
libstmpi_util_la_SOURCES += src/util/pvar.cc
noinst_HEADERS += src/util/pvar.h
