// The process's TriggeredOps (triggered_op_executor.h, process_triggered_ops):
// the network module's native or deferred path, or the software engine.
#include <memory>
#include <mutex>
#include <string>

#include <mpi.h>

#include "device/netmod/net_api.h"
#include "device/rma/st/settings.h"
#include "device/rma/st/software_triggers.h"
#include "device/rma/st/triggered_op_executor.h"
#include "util/error.h"

namespace stmpi::dev::rma::st {
namespace {

std::once_flag g_choose_once;
TriggeredOps* g_ops = nullptr;
int g_choose_error = MPI_SUCCESS;
std::unique_ptr<SoftwareTriggers> g_software;

void choose() {
  const std::string& want = settings().trigger;
  auto from_module = [](TriggerMode mode) {
    TriggeredOps* ops = nullptr;
    const int err = netmod::triggered_ops(mode, &ops);
    if (err == MPI_SUCCESS) g_ops = ops;
    return err;
  };
  if (want == "native" || want == "deferred") {
    const int err = from_module(want == "native" ? TriggerMode::kNative : TriggerMode::kDeferred);
    if (err != MPI_SUCCESS)
      g_choose_error = util::make_error(
          MPI_ERR_UNSUPPORTED_OPERATION,
          "STMPI_ST_TRIGGER=%s: the network provider cannot post %s triggered operations "
          "(use auto or software)",
          want.c_str(), want.c_str());
    return;
  }
  if (want == "auto") {
    if (from_module(TriggerMode::kNative) == MPI_SUCCESS) return;
    if (from_module(TriggerMode::kDeferred) == MPI_SUCCESS) return;
  }
  g_software = std::make_unique<SoftwareTriggers>(settings().counters, settings().fault_inject);
  g_ops = g_software.get();
}

}  // namespace

int process_triggered_ops(TriggeredOps** out) {
  std::call_once(g_choose_once, choose);
  *out = g_ops;
  return g_ops != nullptr ? MPI_SUCCESS : g_choose_error;
}

}  // namespace stmpi::dev::rma::st
