# src/device: the device API, protocols and progress
libstmpi_device_la_SOURCES += src/device/device.cc src/device/progress.cc
# Network modules add their libraries (in their fragments, under their conditionals).
libstmpi_device_la_LIBADD =
# src/device/netmod: the network-module interface, the stub module and the selection point
libstmpi_device_la_SOURCES += src/device/netmod/netmod.cc src/device/netmod/modules.cc \
	src/device/netmod/net_api.cc
noinst_HEADERS += src/device/netmod/netmod.h src/device/netmod/types.h \
	src/device/netmod/net_api.h src/device/netmod/none.h src/device/netmod/modules.h
noinst_HEADERS += src/device/device.h src/device/progress.h src/device/transport.h \
	src/device/request_dev.h src/device/protocol/wire.h src/device/protocol/protocol.h
EXTRA_DIST += src/device/README.md
