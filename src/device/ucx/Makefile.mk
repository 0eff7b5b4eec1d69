# src/device/ucx: the UCX network module (built when configure finds UCX's UCP)
noinst_HEADERS += src/device/ucx/settings.h src/device/ucx/worker.h src/device/ucx/ucx.h \
	src/device/ucx/ucx_transport.h src/device/ucx/ucx_rma.h
EXTRA_DIST += src/device/ucx/README.md
# The parameter table is built in every configuration, so every build lists
# the same parameters (stmpi_info, MPI_T, docs/user/parameters.md).
libstmpi_device_la_SOURCES += src/device/ucx/settings.cc
if HAVE_UCX
libstmpi_device_la_SOURCES += src/device/ucx/worker.cc src/device/ucx/ucx.cc \
	src/device/ucx/ucx_ops.cc src/device/ucx/ucx_device.cc src/device/ucx/ucx_rma.cc
libstmpi_device_la_LIBADD += $(UCX_LIBS)
endif
