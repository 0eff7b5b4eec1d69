# src/device: the device API, protocols and progress
libstmpi_device_la_SOURCES += src/device/device.cc src/device/progress.cc
noinst_HEADERS += src/device/device.h src/device/progress.h src/device/transport.h \
	src/device/request_dev.h src/device/protocol/wire.h src/device/protocol/protocol.h
EXTRA_DIST += src/device/README.md
