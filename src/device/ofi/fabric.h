// libfabric objects of the network module: provider selection (with the
// error text a user needs when it fails), fabric, domain, and the two
// endpoints with their address vectors, completion queues and counters.
//
// Two endpoints: `msg` carries the device protocol (FI_MSG sends into
// pre-posted receive buffers, rendezvous fi_read) and reports every
// completion to its CQ; `rma` carries one-sided operations, counted by its
// counter (flush waits for it), with errors on its own CQ. Keeping them apart
// lets a blocking remote atomic wait without consuming protocol arrivals.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>

#include <cstdint>
#include <string>
#include <vector>

namespace stmpi::dev::ofi {

// What select_provider found, and how it will be used.
struct ProviderChoice {
  fi_info* info = nullptr;     // owned by Fabric once opened
  bool multi_recv = false;     // FI_MULTI_RECV receive buffers
  bool auto_progress = false;  // data_progress == FI_PROGRESS_AUTO
  bool thread_safe = false;    // FI_THREAD_SAFE domain (a progress thread may poll)
  std::string bind_address;    // node passed with FI_SOURCE ("" for none)
  std::string description;     // for STMPI_DEVICE_VERBOSE and errors
};

// Sets the provider environment defaults we know are needed (only where the
// user has not set them), e.g. FI_SOCKETS_PE_WAITTIME=0.
void apply_provider_defaults();

// Resolves STMPI_OFI_IFACE ("auto", "none", an interface name, an IPv4
// address) to the address to bind to; "" for none. 0, or -1 with *error.
[[nodiscard]] int resolve_iface(const std::string& iface, std::string* address, std::string* error);

// fi_getinfo for FI_EP_RDM with FI_MSG|FI_RMA|FI_ATOMIC on `provider` (empty:
// the first offered), asking for FI_MULTI_RECV and `progress` (automatic, or
// manual: the module drives the provider) where offered. 0, or -1 with
// *error naming what was asked, what is available and the parameter to change.
[[nodiscard]] int select_provider(const std::string& provider, const std::string& bind_address,
                                  fi_progress progress, ProviderChoice* choice, std::string* error);

// "FI_MSG|FI_RMA" for a capability mask (the bits this module cares about).
std::string caps_text(uint64_t caps);

struct Endpoint {
  fid_ep* ep = nullptr;
  fid_av* av = nullptr;
  fid_cq* cq = nullptr;
  fid_cntr* cntr = nullptr;
  std::vector<fi_addr_t> peers;  // by world rank
};

class Fabric {
 public:
  Fabric() = default;
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;
  ~Fabric() { close(); }

  // Opens fabric, domain and both endpoints. Takes ownership of choice.info.
  // With want_wait_set, both endpoints' counters share one wait set of file
  // descriptors (where the provider offers FI_WAIT_FD wait sets; else each
  // has its own wait object and wait_fd() is -1).
  [[nodiscard]] int open(ProviderChoice choice, bool want_wait_set, std::string* error);
  // This process's endpoint names, msg then rma, as one byte string.
  [[nodiscard]] int local_names(std::string* names, std::string* error) const;
  // Inserts every rank's names (from local_names) into the address vectors.
  [[nodiscard]] int insert_peers(const std::vector<std::string>& names, std::string* error);
  void close();

  const fi_info* info() const { return choice_.info; }
  const ProviderChoice& choice() const { return choice_; }
  fid_domain* domain() const { return domain_; }
  Endpoint& msg() { return msg_; }
  Endpoint& rma() { return rma_; }
  // The counters' wait set as a descriptor that poll(2) can watch (readable
  // when the provider has something to progress), or -1: not asked for, or
  // the provider has no FI_WAIT_FD wait set.
  int wait_fd() const { return wait_fd_; }
  // The wait set stays (the counters are bound to it), but nobody sleeps on it.
  void forget_wait_fd() { wait_fd_ = -1; }
  // fi_trywait on the wait set: 0 when the caller may block on wait_fd(),
  // -FI_EAGAIN when the provider has work to progress first.
  int trywait();

 private:
  int open_endpoint(Endpoint* e, uint64_t cntr_events, std::string* error);

  ProviderChoice choice_;
  fid_fabric* fabric_ = nullptr;
  fid_domain* domain_ = nullptr;
  fid_wait* wait_set_ = nullptr;
  int wait_fd_ = -1;
  Endpoint msg_;
  Endpoint rma_;
};

// "fi_xxx failed: <fi_strerror>" for a negative libfabric return code.
std::string fi_error(const char* call, long rc);

}  // namespace stmpi::dev::ofi
