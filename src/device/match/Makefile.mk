# src/device/match fragment: header-only hashed matching queues
noinst_HEADERS += \
	src/device/match/key.h \
	src/device/match/posted_queue.h \
	src/device/match/unexpected_queue.h
EXTRA_DIST += src/device/match/README.md
