// The UCX network module (src/device/ucx/): its transport ucx::Ucx and its
// RMA class ucx::UcxRma, as the selection point (device/netmod/modules.h)
// includes them. README.md in this folder maps the files.
#pragma once

#include "device/netmod/netmod.h"
#include "device/ucx/ucx_rma.h"
#include "device/ucx/ucx_transport.h"

namespace stmpi::dev::ucx {
static_assert(netmod::Module<Ucx>);
static_assert(netmod::RmaModule<UcxRma>);
}  // namespace stmpi::dev::ucx
