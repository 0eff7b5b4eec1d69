// The selection point's cold half (modules.h): STMPI_NETMOD, the choice of
// module at init and its finalize.
#include "device/netmod/modules.h"

#include <cstdio>
#include <string>

#include "device/netmod/net_api.h"
#include "pmi/client.h"
#include "stream/host_wait.h"
#include "util/error.h"
#include "util/param.h"

namespace stmpi::dev::netmod {
namespace {

std::string g_netmod;

const char* const kNetmodChoices[] = {"auto", "ofi", "ucx", "none"};

util::Param with_choices(util::Param param, std::span<const char* const> choices) {
  param.choices = choices;
  return param;
}

// The device's choice of network module (STMPI_NETMOD: module "netmod",
// parameter ""): no module registers it.
const util::Param kParams[] = {
    with_choices({"", util::Param::Type::kString, &g_netmod, "auto",
                  "network module for peers on other nodes (and for every peer with "
                  "STMPI_DEVICE_NOLOCAL=yes): auto (the built module that can reach the peers "
                  "and is preferred where both can: STMPI_DEVICE_VERBOSE=yes says which and "
                  "why), ofi (libfabric), ucx (UCX) or none (a job that needs the network stops "
                  "at init)"},
                 kNetmodChoices),
};
const util::ParamTable kTable{"netmod", kParams};
const util::ParamRegistration kRegistration{&kTable};

std::string built_list() {
  std::string list;
  for (Kind kind : kKinds) {
    if (kind == Kind::kNone || !Modules::built(kind)) continue;
    if (!list.empty()) list += ", ";
    list += kind_name(kind);
  }
  return list.empty() ? "none" : list;
}

}  // namespace

int Modules::choose(int my_rank, std::span<const PeerInfo> table, pmi::Client& pmi,
                    int nolocal_peer) {
  const std::string built_names = built_list();
  if (built_names == "none") {
    kind_ = Kind::kNone;
    why_ = "this build has no network module";
    if (nolocal_peer >= 0)
      none_.set_reason("STMPI_DEVICE_NOLOCAL=yes routes rank " + std::to_string(nolocal_peer) +
                       " through the network module, which this build does not have");
    return MPI_SUCCESS;
  }
  if (g_netmod == "none") {
    kind_ = Kind::kNone;
    why_ = "STMPI_NETMOD=none";
    none_.set_reason("STMPI_NETMOD=none, so no network module reaches it (built: " + built_names +
                     ")");
    return MPI_SUCCESS;
  }
  if (g_netmod != "auto") {
    for (Kind kind : kKinds) {
      if (g_netmod != kind_name(kind)) continue;
      if (!built(kind))
        return util::make_error(MPI_ERR_OTHER,
                                "STMPI_NETMOD=%s: this build has no %s network module (built: %s)",
                                g_netmod.c_str(), g_netmod.c_str(), built_names.c_str());
      kind_ = kind;
      why_ = "STMPI_NETMOD=" + g_netmod;
      return MPI_SUCCESS;
    }
  }
  // auto with one module built: that one (its init says why it cannot run).
  int count = 0;
  for (Kind kind : kKinds)
    if (kind != Kind::kNone && built(kind)) {
      kind_ = kind;
      ++count;
    }
  if (count == 1) {
    why_ = "auto: the only network module built";
    return MPI_SUCCESS;
  }
  // auto: rank 0 asks every built module and tells the others, so that the
  // job agrees even where a probe would answer differently on another node.
  std::string answer;
  if (my_rank == 0) {
    Kind best = Kind::kNone;
    Probe best_probe;
    std::string refused;
    for (Kind kind : kKinds) {
      if (kind == Kind::kNone || !built(kind)) continue;
      Probe probe;
      kind_ = kind;
      if (int err = transport([&](auto& m) { return m.probe(my_rank, table, &probe); })) return err;
      if (!probe.usable) {
        refused += std::string(refused.empty() ? "" : "; ") + kind_name(kind) + ": " + probe.why;
        continue;
      }
      if (best == Kind::kNone || probe.score > best_probe.score) {
        best = kind;
        best_probe = probe;
      }
    }
    // No module can run here: the first built one reports why at its init.
    if (best == Kind::kNone) best = kind_;
    answer =
        std::string(kind_name(best)) + "|auto: " +
        (best_probe.usable ? best_probe.why + " (score " + std::to_string(best_probe.score) + ")"
                           : refused);
    if (pmi.put("netmod-choice", answer) != 0 || pmi.barrier() != 0)
      return util::make_error(MPI_ERR_OTHER, "PMI exchange of the network module failed: %s",
                              pmi.error().c_str());
  } else if (pmi.barrier() != 0 || pmi.get("netmod-choice", &answer) != 0) {
    return util::make_error(MPI_ERR_OTHER, "PMI get of the network module failed: %s",
                            pmi.error().c_str());
  }
  const std::string name = answer.substr(0, answer.find('|'));
  why_ = answer.substr(name.size() + 1);
  for (Kind kind : kKinds)
    if (name == kind_name(kind)) kind_ = kind;
  return MPI_SUCCESS;
}

int Modules::init(int my_rank, std::span<const PeerInfo> table, pmi::Client& pmi, bool verbose,
                  int nolocal_peer) {
  bool remote = false;
  for (const PeerInfo& info : table) remote = remote || info.transport == PeerTransport::kNet;
  kind_ = Kind::kNone;
  if (!remote) {
    why_ = "no rank is reached through the network";
    return MPI_SUCCESS;
  }
  if (int err = choose(my_rank, table, pmi, nolocal_peer)) return err;
  if (int err = transport([&](auto& m) { return m.init(my_rank, table, pmi); })) {
    kind_ = Kind::kNone;
    return err;
  }
  stream::set_wait_poll(&serve);  // host streams waiting for other nodes drive the module
  if (verbose && my_rank == 0)
    std::fprintf(stderr, "STMPI device: network module %s (%s)\n", kind_name(kind_), why_.c_str());
  return MPI_SUCCESS;
}

void Modules::finalize() {
  stream::set_wait_poll(nullptr);
  rma([](auto& r) { r.finalize(); });
  transport([](auto& m) { m.finalize(); });
  kind_ = Kind::kNone;
}

}  // namespace stmpi::dev::netmod
