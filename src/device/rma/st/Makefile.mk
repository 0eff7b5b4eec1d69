# src/device/rma/st: stream-triggered epochs: plans, executors, per-window state
libstmpi_device_la_SOURCES += \
	src/device/rma/st/settings.cc \
	src/device/rma/st/epoch_plan.cc \
	src/device/rma/st/merged_kernel_executor.cc \
	src/device/rma/st/software_triggers.cc \
	src/device/rma/st/triggered_op_executor.cc \
	src/device/rma/st/trigger_select.cc \
	src/device/rma/st/stream_window.cc \
	src/device/rma/st/persistent_epoch.cc
noinst_HEADERS += \
	src/device/rma/st/settings.h \
	src/device/rma/st/epoch_plan.h \
	src/device/rma/st/executor.h \
	src/device/rma/st/merged_kernel_executor.h \
	src/device/rma/st/triggered_op_executor.h \
	src/device/rma/st/triggered_ops.h \
	src/device/rma/st/software_triggers.h \
	src/device/rma/st/stream_window.h \
	src/device/rma/st/persistent_epoch.h
EXTRA_DIST += src/device/rma/st/README.md
