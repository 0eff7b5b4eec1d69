# src/device/rma: the device RMA interface, its transports (shm, CMA,
# active messages), window segments and the passive-lock protocol (lock/)
libstmpi_device_la_SOURCES += \
	src/device/rma/rma.cc \
	src/device/rma/accumulate.cc \
	src/device/rma/cma_rma.cc \
	src/device/rma/am_rma.cc \
	src/device/rma/window_segment.cc \
	src/device/rma/window.cc \
	src/device/rma/lock/passive_lock.cc
noinst_HEADERS += \
	src/device/rma/region.h \
	src/device/rma/rma.h \
	src/device/rma/accumulate.h \
	src/device/rma/shm_rma.h \
	src/device/rma/cma_rma.h \
	src/device/rma/am_rma.h \
	src/device/rma/window_segment.h \
	src/device/rma/window.h \
	src/device/rma/net_rma.h \
	src/device/rma/lock/lock_word.h \
	src/device/rma/lock/passive_lock.h
EXTRA_DIST += src/device/rma/README.md src/device/rma/lock/README.md
