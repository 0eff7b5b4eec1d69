# src/device/ofi: the libfabric network module (built when configure finds libfabric)
OFI_SOURCES = src/device/ofi/fabric.cc src/device/ofi/mr_cache.cc src/device/ofi/ofi.cc \
	src/device/ofi/progress_thread.cc src/device/ofi/ofi_rma.cc src/device/ofi/settings.cc
# NIC triggered operations for stream-triggered epochs between nodes
OFI_TRIGGERED_SOURCES = src/device/ofi/ofi_triggered.cc src/device/ofi/ofi_triggered_host.cc \
	src/device/ofi/ofi_atomic_names.cc
noinst_HEADERS += src/device/ofi/fabric.h src/device/ofi/mr_cache.h src/device/ofi/ofi.h \
	src/device/ofi/ofi_rma.h src/device/ofi/settings.h src/device/ofi/ofi_triggered.h \
	src/device/ofi/progress_thread.h src/device/ofi/retry.h
EXTRA_DIST += src/device/ofi/README.md
if HAVE_OFI
libstmpi_device_la_SOURCES += $(OFI_SOURCES) $(OFI_TRIGGERED_SOURCES) \
	src/device/ofi/ofi_device.cc src/device/ofi/ofi_rma_map.cc
libstmpi_device_la_LIBADD += $(OFI_LIBS)
else
# The parameter table only: every build lists the same parameters
# (stmpi_info, MPI_T, docs/user/parameters.md).
libstmpi_device_la_SOURCES += src/device/ofi/settings.cc
endif
