#include "device/ofi/mr_cache.h"

#include <unistd.h>

#include <algorithm>

#include "device/ofi/fabric.h"

namespace stmpi::dev::ofi {

uint64_t Registration::remote_address(const void* p) const {
  const uintptr_t at = reinterpret_cast<uintptr_t>(p);
  return virt_addr ? at : at - start;
}

void MrCache::init(Fabric* fabric, int capacity) {
  fabric_ = fabric;
  capacity_ = capacity;
}

int MrCache::register_range(const void* p, std::size_t bytes, Registration* out,
                            std::string* error) {
  const int mode = fabric_->info()->domain_attr->mr_mode;
  const uint64_t access = FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
  const uint64_t requested_key = (mode & FI_MR_PROV_KEY) ? 0 : next_key_++;
  if (bytes == 0) bytes = 1;
  fid_mr* mr = nullptr;
  long rc = fi_mr_reg(fabric_->domain(), p, bytes, access, 0, requested_key, 0, &mr, nullptr);
  if (rc != 0) {
    *error = fi_error("fi_mr_reg", rc) + " (" + std::to_string(bytes) + " bytes)";
    return -1;
  }
  if (mode & FI_MR_ENDPOINT) {
    for (Endpoint* e : {&fabric_->msg(), &fabric_->rma()}) {
      rc = fi_mr_bind(mr, &e->ep->fid, 0);
      if (rc != 0) break;
    }
    if (rc == 0) rc = fi_mr_enable(mr);
    if (rc != 0) {
      fi_close(&mr->fid);
      *error = fi_error("fi_mr_bind/fi_mr_enable", rc);
      return -1;
    }
  }
  out->mr = mr;
  out->desc = fi_mr_desc(mr);
  out->key = fi_mr_key(mr);
  out->start = reinterpret_cast<uintptr_t>(p);
  out->bytes = bytes;
  out->virt_addr = (mode & FI_MR_VIRT_ADDR) != 0;
  return 0;
}

void MrCache::deregister(Registration* r) {
  if (r->mr) fi_close(&r->mr->fid);
  r->mr = nullptr;
}

int MrCache::acquire(const void* p, std::size_t bytes, Registration** out, std::string* error) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p);
  const uintptr_t end = begin + std::max<std::size_t>(bytes, 1);
  for (Registration* r : entries_) {
    if (r->start <= begin && end <= r->start + r->bytes) {
      ++r->refs;
      r->last_use = ++tick_;
      ++hits_;
      *out = r;
      return 0;
    }
  }
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t first = begin & ~(page - 1);
  const uintptr_t last = (end + page - 1) & ~(page - 1);
  auto* r = new Registration;
  if (register_range(reinterpret_cast<void*>(first), last - first, r, error) != 0) {
    delete r;
    return -1;
  }
  r->refs = 1;
  r->last_use = ++tick_;
  entries_.push_back(r);
  evict();
  *out = r;
  return 0;
}

void MrCache::release(Registration* r) {
  --r->refs;
  evict();
}

Registration* MrCache::find_key(uint64_t key) {
  for (Registration* r : entries_)
    if (r->key == key) return r;
  return nullptr;
}

void MrCache::evict() {
  while (entries_.size() > static_cast<std::size_t>(capacity_)) {
    auto victim = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if ((*it)->refs == 0 && (victim == entries_.end() || (*it)->last_use < (*victim)->last_use))
        victim = it;
    if (victim == entries_.end()) return;  // all in use
    deregister(*victim);
    delete *victim;
    entries_.erase(victim);
  }
}

void MrCache::clear() {
  for (Registration* r : entries_) {
    deregister(r);
    delete r;
  }
  entries_.clear();
}

}  // namespace stmpi::dev::ofi
