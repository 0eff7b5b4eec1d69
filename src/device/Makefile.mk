# src/device: the device API, protocols and progress
libmpi_la_SOURCES += src/device/device.cc
noinst_HEADERS += src/device/device.h src/device/protocol.h src/device/request_dev.h
include src/device/rma/sources.mk
include src/device/rma/st/sources.mk
