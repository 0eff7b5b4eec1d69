# src/device/shm: node segment, per-pair rings, single-copy pulls
libstmpi_device_la_SOURCES += src/device/shm/shm.cc
noinst_HEADERS += src/device/shm/shm.h src/device/shm/ring.h
