// Memory registration honouring the provider's mr_mode, with a cache so
// repeated sends (or puts) from one buffer register once.
//
// mr_mode bits handled: FI_MR_VIRT_ADDR (remote addresses are virtual
// addresses, else offsets from the registration's start), FI_MR_PROV_KEY
// (the provider picks keys, else we number them), FI_MR_LOCAL (local buffers
// need a descriptor too), FI_MR_ENDPOINT (registrations are bound to both
// endpoints and enabled).
//
// Registrations are widened to whole pages and reused for any buffer inside
// them. An entry in use (refs > 0) is never released; unused ones are
// released least-recently-used first once more than `capacity` exist.
// Software providers (sockets, tcp) do not pin memory, so a cached range
// that the program frees and maps again stays correct; hardware providers
// with pinning would need the provider's own memory monitor.
#pragma once

#include <rdma/fi_domain.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace stmpi::dev::ofi {

class Fabric;

struct Registration {
  fid_mr* mr = nullptr;
  void* desc = nullptr;  // local descriptor (FI_MR_LOCAL), else nullptr
  uint64_t key = 0;      // remote key
  uintptr_t start = 0;   // first byte registered
  std::size_t bytes = 0;
  // Address a remote peer uses for `p` inside this registration.
  uint64_t remote_address(const void* p) const;
  bool virt_addr = false;
  int refs = 0;
  uint64_t last_use = 0;
};

class MrCache {
 public:
  MrCache() = default;
  MrCache(const MrCache&) = delete;
  MrCache& operator=(const MrCache&) = delete;
  ~MrCache() { clear(); }

  void init(Fabric* fabric, int capacity);
  // A registration covering [p, p + bytes), its use count raised. MPI error
  // code 0, else -1 and *error holds the provider's text.
  [[nodiscard]] int acquire(const void* p, std::size_t bytes, Registration** out,
                            std::string* error);
  void release(Registration* r);
  // The registration whose remote key is `key` (for unexpose), or nullptr.
  Registration* find_key(uint64_t key);
  // Registers without caching (window memory): the caller frees it.
  [[nodiscard]] int register_range(const void* p, std::size_t bytes, Registration* out,
                                   std::string* error);
  void deregister(Registration* r);
  void clear();

  std::size_t hits() const { return hits_; }

 private:
  void evict();

  Fabric* fabric_ = nullptr;
  int capacity_ = 0;
  uint64_t next_key_ = 1;
  uint64_t tick_ = 0;
  std::size_t hits_ = 0;
  std::vector<Registration*> entries_;
};

}  // namespace stmpi::dev::ofi
