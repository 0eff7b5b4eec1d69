// The UCX module as the device sees it: init from the peer table and PMI
// (worker addresses published with PMI put, read for the network peers),
// errors as MPI errors carrying UCX's text, fatal failures through the
// launcher.
//
// Endpoints are created on first use (worker.h): an endpoint from a worker
// address is local work, and UCX connects it with the first message, so a
// pair of ranks that never talk costs neither memory nor a connection; the
// addresses themselves are read at init, while every rank is in PMI.
#include <mpi.h>

#include <string>
#include <vector>

#include "device/device.h"
#include "device/ucx/ucx_transport.h"
#include "pmi/client.h"
#include "util/error.h"

namespace stmpi::dev::ucx {
namespace {

void abort_job(const std::string& message) {
  pmi::client().abort(
      1, "STMPI network module ucx (rank " + std::to_string(dev::world_rank()) + "): " + message);
}

struct PmiExchange {
  pmi::Client* pmi;
  std::span<const PeerInfo> table;
  int rank;
};

int exchange(void* arg, const std::string& mine, std::vector<std::string>* all,
             std::string* error) {
  auto* x = static_cast<PmiExchange*>(arg);
  // PMI values are text: the binary address travels as hex.
  static const char kHex[] = "0123456789abcdef";
  std::string text;
  for (unsigned char c : mine) {
    text += kHex[c >> 4];
    text += kHex[c & 15];
  }
  if (x->pmi->put("ucx-" + std::to_string(x->rank), text) != 0 || x->pmi->barrier() != 0) {
    *error = "PMI exchange of worker addresses failed: " + x->pmi->error();
    return -1;
  }
  all->assign(x->table.size(), std::string());
  for (std::size_t peer = 0; peer < x->table.size(); ++peer) {
    if (x->table[peer].transport != PeerTransport::kNet) continue;
    std::string value;
    if (x->pmi->get("ucx-" + std::to_string(peer), &value) != 0) {
      *error = "PMI get of rank " + std::to_string(peer) +
               "'s worker address failed: " + x->pmi->error();
      return -1;
    }
    std::string& bytes = (*all)[peer];
    for (std::size_t i = 0; i + 1 < value.size(); i += 2)
      bytes += static_cast<char>(std::stoi(value.substr(i, 2), nullptr, 16));
  }
  return 0;
}

}  // namespace

int Ucx::init(int my_rank, std::span<const PeerInfo> table, pmi::Client& pmi) {
  bool remote = false;
  for (const PeerInfo& info : table) remote = remote || info.transport == PeerTransport::kNet;
  // The table says the same on every rank whether the job needs the
  // network, so ranks that skip here skip together (no PMI barrier).
  if (!remote) return MPI_SUCCESS;
  set_fatal_handler(abort_job);
  PmiExchange x{&pmi, table, my_rank};
  std::string error;
  if (open(my_rank, static_cast<int>(table.size()), dev::verbose(), &exchange, &x, &error) != 0)
    return util::make_error(MPI_ERR_OTHER, "network module (ucx) init on rank %d: %s", my_rank,
                            error.c_str());
  return MPI_SUCCESS;
}

}  // namespace stmpi::dev::ucx
