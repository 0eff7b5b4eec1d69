# src/device/ofi: the libfabric network module (built when configure finds libfabric)
OFI_SOURCES = src/device/ofi/fabric.cc src/device/ofi/mr_cache.cc src/device/ofi/ofi.cc \
	src/device/ofi/ofi_rma.cc src/device/ofi/settings.cc
noinst_HEADERS += src/device/ofi/fabric.h src/device/ofi/mr_cache.h src/device/ofi/ofi.h \
	src/device/ofi/settings.h src/device/transport.h src/device/protocol/wire.h
EXTRA_DIST += src/device/ofi/README.md
