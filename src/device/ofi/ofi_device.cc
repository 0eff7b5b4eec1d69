// The libfabric module as the device sees it (netmod::Module): probe for
// STMPI_NETMOD=auto, init from the peer table and PMI, capabilities and
// statistics; errors as MPI errors, fatal completions through the launcher.
#include <mpi.h>

#include <string>
#include <vector>

#include "device/device.h"
#include "device/ofi/ofi.h"
#include "device/ofi/settings.h"
#include "pmi/client.h"
#include "util/error.h"

namespace stmpi::dev::ofi {
namespace {

void abort_job(const std::string& message) {
  pmi::client().abort(
      1, "STMPI network module (rank " + std::to_string(dev::world_rank()) + "): " + message);
}

// How much `auto` prefers this module when it can run (netmod::Probe).
constexpr int kScore = 10;

}  // namespace

int Ofi::probe(int /*my_rank*/, std::span<const PeerInfo> /*table*/, netmod::Probe* out) {
  const Settings& s = settings();
  std::string address;
  std::string error;
  ProviderChoice choice;
  const fi_progress want = s.data_progress == "manual" ? FI_PROGRESS_MANUAL : FI_PROGRESS_AUTO;
  if (resolve_iface(s.iface, &address, &error) != 0 ||
      select_provider(s.provider, address, want, &choice, &error) != 0) {
    *out = netmod::Probe{false, 0, "libfabric: " + error};
    return MPI_SUCCESS;
  }
  *out = netmod::Probe{true, kScore, "libfabric provider " + choice.description};
  fi_freeinfo(choice.info);
  return MPI_SUCCESS;
}

int Ofi::init(int my_rank, std::span<const PeerInfo> table, pmi::Client& pmi) {
  std::vector<int> remote;
  for (std::size_t peer = 0; peer < table.size(); ++peer)
    if (table[peer].transport == PeerTransport::kNet) remote.push_back(static_cast<int>(peer));
  // The table says the same on every rank whether the job needs the
  // network, so ranks that skip here skip together (no PMI barrier).
  if (remote.empty()) return MPI_SUCCESS;
  set_fatal_handler(abort_job);
  auto allgather = [&](const std::string& mine, std::vector<std::string>* all, std::string* error) {
    if (pmi.put("ofi-" + std::to_string(my_rank), mine) != 0 || pmi.barrier() != 0) {
      *error = "PMI exchange of network addresses failed: " + pmi.error();
      return -1;
    }
    all->assign(table.size(), std::string());
    for (int peer : remote) {
      if (pmi.get("ofi-" + std::to_string(peer), &(*all)[peer]) != 0) {
        *error =
            "PMI get of rank " + std::to_string(peer) + "'s network address failed: " + pmi.error();
        return -1;
      }
    }
    (*all)[my_rank] = mine;
    return 0;
  };
  return init(my_rank, static_cast<int>(table.size()), allgather, dev::verbose());
}

netmod::Capabilities Ofi::capabilities() const {
  netmod::Capabilities caps;
  if (!initialized_) return caps;
  caps.rma = true;
  caps.atomics64 = atomics64_;
  caps.accumulate = true;  // where fi_query_atomic says so (OfiRma::accumulate)
  caps.triggered = true;   // where the provider has the path (TriggeredNic::open)
  caps.progress_thread = progress_thread_.running() || fabric_.choice().auto_progress;
  return caps;
}

netmod::Stats Ofi::stats() const {
  netmod::Stats st;
  st.credit_waits = credit_waits_;
  st.reordered = reordered_;
  st.thread_polls = progress_thread_.polls();
  st.thread_sleeps = progress_thread_.sleeps();
  st.thread_wakeups = progress_thread_.wakeups();
  return st;
}

}  // namespace stmpi::dev::ofi
