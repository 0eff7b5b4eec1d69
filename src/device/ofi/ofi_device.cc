// The network module as the device sees it: init from the peer table and
// PMI (device.cc "Network module plug-in point"), errors as MPI errors,
// fatal completions through the launcher.
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

}  // namespace

int Ofi::init(int my_rank, std::span<const PeerInfo> table, pmi::Client& pmi) {
  std::vector<int> remote;
  for (std::size_t peer = 0; peer < table.size(); ++peer)
    if (table[peer].transport == PeerTransport::kNet) remote.push_back(static_cast<int>(peer));
  // The table says the same on every rank whether the job needs the
  // network, so ranks that skip here skip together (no PMI barrier).
  if (remote.empty()) return MPI_SUCCESS;
  const Settings& s = settings();
  if (s.netmod != "ofi")
    return util::make_error(
        MPI_ERR_OTHER,
        "rank %d reaches rank %d through the network (node %d vs %d), but "
        "STMPI_NETMOD=%s; set STMPI_NETMOD=ofi (the only network module of this build)",
        my_rank, remote.front(), table[my_rank].node, table[remote.front()].node, s.netmod.c_str());
  set_fatal_handler(abort_job);
  const bool verbose = dev::verbose();
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
  std::string error;
  if (init(my_rank, static_cast<int>(table.size()), allgather, verbose, &error) != 0)
    return util::make_error(MPI_ERR_OTHER, "network module (ofi) init on rank %d: %s", my_rank,
                            error.c_str());
  return MPI_SUCCESS;
}

}  // namespace stmpi::dev::ofi
