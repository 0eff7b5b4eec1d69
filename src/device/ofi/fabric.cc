#include "device/ofi/fabric.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>

#include <cstdlib>
#include <cstring>
#include <set>

namespace stmpi::dev::ofi {
namespace {

constexpr uint64_t kRequiredCaps = FI_MSG | FI_RMA | FI_ATOMIC;
constexpr uint32_t kApiVersion = FI_VERSION(1, 9);

// Hints for one attempt; `provider` empty means any.
fi_info* make_hints(const std::string& provider, uint64_t caps, fi_progress progress,
                    fi_threading threading) {
  fi_info* hints = fi_allocinfo();
  hints->ep_attr->type = FI_EP_RDM;
  hints->caps = caps;
  hints->mode = FI_CONTEXT | FI_CONTEXT2;
  // Every registration mode we can honour; the provider's answer says which apply.
  hints->domain_attr->mr_mode =
      FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
  hints->domain_attr->data_progress = progress;
  hints->domain_attr->control_progress = progress;
  hints->domain_attr->threading = threading;
  // The protocol needs messages to one peer in order.
  hints->tx_attr->msg_order = FI_ORDER_SAS;
  hints->rx_attr->msg_order = FI_ORDER_SAS;
  if (!provider.empty()) hints->fabric_attr->prov_name = strdup(provider.c_str());
  return hints;
}

int getinfo(const std::string& node, fi_info* hints, fi_info** out) {
  return fi_getinfo(kApiVersion, node.empty() ? nullptr : node.c_str(), nullptr,
                    node.empty() ? 0 : FI_SOURCE, hints, out);
}

// "sockets (FI_MSG|FI_RMA|FI_ATOMIC), shm (FI_MSG|FI_RMA)" for FI_EP_RDM,
// restricted to `provider` when given.
std::string available(const std::string& provider, const std::string& node) {
  std::string text;
  std::set<std::string> seen;
  for (const std::string& where : {node, std::string()}) {
    fi_info* hints = fi_allocinfo();
    hints->ep_attr->type = FI_EP_RDM;
    if (!provider.empty()) hints->fabric_attr->prov_name = strdup(provider.c_str());
    fi_info* list = nullptr;
    const int rc = getinfo(where, hints, &list);
    fi_freeinfo(hints);
    if (rc != 0) continue;
    for (fi_info* i = list; i != nullptr; i = i->next) {
      const std::string name = i->fabric_attr->prov_name;
      if (!seen.insert(name).second) continue;
      if (!text.empty()) text += ", ";
      text += name + " (" + caps_text(i->caps & (kRequiredCaps | FI_MULTI_RECV)) + ")";
    }
    fi_freeinfo(list);
  }
  return text.empty() ? "none" : text;
}

}  // namespace

std::string fi_error(const char* call, long rc) {
  return std::string(call) + " failed: " + fi_strerror(static_cast<int>(rc < 0 ? -rc : rc));
}

std::string caps_text(uint64_t caps) {
  static const struct {
    uint64_t bit;
    const char* name;
  } kNames[] = {{FI_MSG, "FI_MSG"},
                {FI_RMA, "FI_RMA"},
                {FI_ATOMIC, "FI_ATOMIC"},
                {FI_TAGGED, "FI_TAGGED"},
                {FI_MULTI_RECV, "FI_MULTI_RECV"},
                {FI_TRIGGER, "FI_TRIGGER"}};
  std::string text;
  for (const auto& n : kNames) {
    if ((caps & n.bit) == 0) continue;
    if (!text.empty()) text += '|';
    text += n.name;
  }
  return text.empty() ? "none of FI_MSG, FI_RMA, FI_ATOMIC" : text;
}

void apply_provider_defaults() {
  // The sockets provider's progress thread otherwise sleeps between polls
  // (20-120 ms per passive-target operation). overwrite=0: the user wins.
  setenv("FI_SOCKETS_PE_WAITTIME", "0", 0);
}

int resolve_iface(const std::string& iface, std::string* address, std::string* error) {
  address->clear();
  if (iface == "none") return 0;
  in_addr parsed{};
  if (inet_pton(AF_INET, iface.c_str(), &parsed) == 1) {
    *address = iface;
    return 0;
  }
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) {
    *error = std::string("STMPI_OFI_IFACE=") + iface + ": getifaddrs failed: " + strerror(errno);
    return -1;
  }
  std::string names;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    const bool up = (a->ifa_flags & IFF_UP) != 0;
    const bool loopback = (a->ifa_flags & IFF_LOOPBACK) != 0;
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof text);
    if (!names.empty()) names += ", ";
    names += std::string(a->ifa_name) + " " + text + (up ? "" : " (down)");
    const bool wanted = iface == "auto" ? up && !loopback : iface == a->ifa_name;
    if (wanted && address->empty()) *address = text;
  }
  freeifaddrs(list);
  if (!address->empty()) return 0;
  if (iface == "auto") {
    *address = "127.0.0.1";  // loopback only: every rank is on this host
    return 0;
  }
  *error = "STMPI_OFI_IFACE=" + iface + " is neither an IPv4 address nor an interface with one (" +
           "interfaces: " + (names.empty() ? "none" : names) + ")";
  return -1;
}

int select_provider(const std::string& provider, const std::string& bind_address,
                    fi_progress progress, ProviderChoice* choice, std::string* error) {
  // Most wanted first: multi-receive buffers, the progress asked for, thread safety.
  struct Attempt {
    uint64_t extra_caps;
    fi_progress progress;
    fi_threading threading;
  };
  static const Attempt kAttempts[] = {
      {FI_MULTI_RECV, FI_PROGRESS_AUTO, FI_THREAD_SAFE},
      {0, FI_PROGRESS_AUTO, FI_THREAD_SAFE},
      {FI_MULTI_RECV, FI_PROGRESS_UNSPEC, FI_THREAD_SAFE},
      {0, FI_PROGRESS_UNSPEC, FI_THREAD_SAFE},
      {FI_MULTI_RECV, FI_PROGRESS_UNSPEC, FI_THREAD_UNSPEC},
      {0, FI_PROGRESS_UNSPEC, FI_THREAD_UNSPEC},
  };
  for (const Attempt& attempt : kAttempts) {
    const fi_progress want = attempt.progress == FI_PROGRESS_AUTO ? progress : attempt.progress;
    fi_info* hints =
        make_hints(provider, kRequiredCaps | attempt.extra_caps, want, attempt.threading);
    fi_info* list = nullptr;
    const int rc = getinfo(bind_address, hints, &list);
    fi_freeinfo(hints);
    if (rc != 0 || list == nullptr) continue;
    // The first entry is the provider's preference; keep only it.
    fi_info* best = fi_dupinfo(list);
    fi_freeinfo(list);
    if (best->domain_attr->mr_key_size > sizeof(uint64_t)) {
      *error = std::string("libfabric provider ") + best->fabric_attr->prov_name +
               " uses memory keys of " + std::to_string(best->domain_attr->mr_key_size) +
               " bytes; this module handles up to 8 (choose another with STMPI_OFI_PROVIDER)";
      fi_freeinfo(best);
      return -1;
    }
    choice->info = best;
    choice->multi_recv = (best->caps & FI_MULTI_RECV) != 0;
    choice->auto_progress = best->domain_attr->data_progress == FI_PROGRESS_AUTO;
    choice->thread_safe = best->domain_attr->threading == FI_THREAD_SAFE;
    choice->bind_address = bind_address;
    choice->description =
        std::string(best->fabric_attr->prov_name) + " (fabric " + best->fabric_attr->name +
        ", domain " + best->domain_attr->name + ", caps " + caps_text(best->caps) + ", mr_mode 0x" +
        [&] {
          char hex[16];
          snprintf(hex, sizeof hex, "%x", static_cast<unsigned>(best->domain_attr->mr_mode));
          return std::string(hex);
        }() +
        ", " + (choice->auto_progress ? "automatic" : "manual") + " progress, " +
        (bind_address.empty() ? std::string("address chosen by the provider")
                              : "bound to " + bind_address) +
        ")";
    return 0;
  }
  const std::string asked =
      provider.empty() ? std::string("any provider") : "provider '" + provider + "'";
  *error =
      "libfabric has no endpoint for " + asked + " with FI_EP_RDM and " + caps_text(kRequiredCaps) +
      (bind_address.empty() ? std::string() : " bound to " + bind_address) +
      "; available for FI_EP_RDM: " + available(provider, bind_address) +
      (provider.empty() ? std::string() : " (all providers: " + available("", bind_address) + ")") +
      ". Set STMPI_OFI_PROVIDER to a provider with these capabilities"
      ", STMPI_OFI_IFACE to another address, or STMPI_NETMOD=none to run without the network";
  return -1;
}

int Fabric::open_endpoint(Endpoint* e, uint64_t cntr_events, std::string* error) {
  fi_info* info = choice_.info;
  // One-sided writes and atomics complete when they are visible in the
  // target's memory (FI_DELIVERY_COMPLETE), not when the data has left: after
  // a flush, another process (e.g. the next lock holder, on the target's
  // node) must see them.
  fi_info* rma_info = nullptr;
  if (cntr_events & FI_WRITE) {
    rma_info = fi_dupinfo(info);
    if (rma_info == nullptr) return *error = "fi_dupinfo: out of memory", -1;
    rma_info->tx_attr->op_flags =
        (rma_info->tx_attr->op_flags & ~(FI_INJECT_COMPLETE | FI_TRANSMIT_COMPLETE)) |
        FI_DELIVERY_COMPLETE;
    info = rma_info;
  }
  long rc = fi_endpoint(domain_, info, &e->ep, nullptr);
  if (rma_info != nullptr) fi_freeinfo(rma_info);
  if (rc != 0) return *error = fi_error("fi_endpoint", rc), -1;
  fi_av_attr av_attr{};
  av_attr.type = FI_AV_TABLE;
  rc = fi_av_open(domain_, &av_attr, &e->av, nullptr);
  if (rc != 0) return *error = fi_error("fi_av_open", rc), -1;
  fi_cq_attr cq_attr{};
  cq_attr.format = FI_CQ_FORMAT_DATA;
  cq_attr.wait_obj = FI_WAIT_NONE;
  cq_attr.size = info->rx_attr->size + info->tx_attr->size;
  rc = fi_cq_open(domain_, &cq_attr, &e->cq, nullptr);
  if (rc != 0) return *error = fi_error("fi_cq_open", rc), -1;
  fi_cntr_attr cntr_attr{};
  cntr_attr.events = FI_CNTR_EVENTS_COMP;
  cntr_attr.wait_obj = wait_set_ != nullptr ? FI_WAIT_SET : FI_WAIT_UNSPEC;
  cntr_attr.wait_set = wait_set_;
  rc = fi_cntr_open(domain_, &cntr_attr, &e->cntr, nullptr);
  if (rc != 0) return *error = fi_error("fi_cntr_open", rc), -1;
  rc = fi_ep_bind(e->ep, &e->av->fid, 0);
  if (rc != 0) return *error = fi_error("fi_ep_bind(av)", rc), -1;
  const uint64_t cq_flags =
      FI_TRANSMIT | FI_RECV | (cntr_events & FI_WRITE ? FI_SELECTIVE_COMPLETION : 0);
  rc = fi_ep_bind(e->ep, &e->cq->fid, cq_flags);
  if (rc != 0) return *error = fi_error("fi_ep_bind(cq)", rc), -1;
  rc = fi_ep_bind(e->ep, &e->cntr->fid, cntr_events);
  if (rc != 0) return *error = fi_error("fi_ep_bind(cntr)", rc), -1;
  rc = fi_enable(e->ep);
  if (rc != 0) return *error = fi_error("fi_enable", rc), -1;
  return 0;
}

int Fabric::open(ProviderChoice choice, bool want_wait_set, std::string* error) {
  choice_ = std::move(choice);
  long rc = fi_fabric(choice_.info->fabric_attr, &fabric_, nullptr);
  if (rc != 0) return *error = fi_error("fi_fabric", rc), -1;
  rc = fi_domain(fabric_, choice_.info, &domain_, nullptr);
  if (rc != 0) return *error = fi_error("fi_domain", rc), -1;
  if (want_wait_set) {
    // A wait set of descriptors that both counters join: the provider adds
    // its sockets (and the sockets of connections made later), so the set is
    // readable whenever there is something to progress. Not every provider
    // offers one; the progress thread then looks at timed intervals.
    fi_wait_attr wait_attr{};
    wait_attr.wait_obj = FI_WAIT_FD;
    fid_wait* set = nullptr;
    rc = fi_wait_open(fabric_, &wait_attr, &set);
    int fd = -1;
    if (rc == 0) rc = fi_control(&set->fid, FI_GETWAIT, &fd);
    if (rc == 0 && fd >= 0) {
      wait_set_ = set;
      wait_fd_ = fd;
    } else if (set != nullptr) {
      fi_close(&set->fid);
    }
  }
  if (open_endpoint(&msg_, FI_READ, error) != 0) return -1;
  if (open_endpoint(&rma_, FI_READ | FI_WRITE, error) != 0) return -1;
  return 0;
}

int Fabric::local_names(std::string* names, std::string* error) const {
  names->clear();
  for (const Endpoint* e : {&msg_, &rma_}) {
    char buf[256];
    size_t len = sizeof buf;
    const int rc = fi_getname(&e->ep->fid, buf, &len);
    if (rc != 0) return *error = fi_error("fi_getname", rc), -1;
    const uint32_t n = static_cast<uint32_t>(len);
    names->append(reinterpret_cast<const char*>(&n), sizeof n);
    names->append(buf, len);
  }
  return 0;
}

int Fabric::insert_peers(const std::vector<std::string>& names, std::string* error) {
  msg_.peers.assign(names.size(), FI_ADDR_UNSPEC);
  rma_.peers.assign(names.size(), FI_ADDR_UNSPEC);
  for (std::size_t rank = 0; rank < names.size(); ++rank) {
    const std::string& all = names[rank];
    if (all.empty()) continue;  // not reached through the network
    std::size_t at = 0;
    for (Endpoint* e : {&msg_, &rma_}) {
      uint32_t n = 0;
      if (all.size() < at + sizeof n)
        return *error = "bad endpoint name of rank " + std::to_string(rank), -1;
      std::memcpy(&n, all.data() + at, sizeof n);
      at += sizeof n;
      if (all.size() < at + n)
        return *error = "bad endpoint name of rank " + std::to_string(rank), -1;
      const int rc = fi_av_insert(e->av, all.data() + at, 1, &e->peers[rank], 0, nullptr);
      if (rc != 1) {
        *error = fi_error("fi_av_insert", rc < 0 ? rc : -FI_EINVAL) + " (rank " +
                 std::to_string(rank) + ")";
        return -1;
      }
      at += n;
    }
  }
  return 0;
}

int Fabric::trywait() {
  if (wait_set_ == nullptr) return -FI_ENOSYS;
  fid* fids[] = {&wait_set_->fid};
  return fi_trywait(fabric_, fids, 1);
}

void Fabric::close() {
  for (Endpoint* e : {&rma_, &msg_}) {
    if (e->ep) fi_close(&e->ep->fid);
    if (e->cntr) fi_close(&e->cntr->fid);
    if (e->cq) fi_close(&e->cq->fid);
    if (e->av) fi_close(&e->av->fid);
    *e = Endpoint{};
  }
  if (wait_set_) fi_close(&wait_set_->fid);
  wait_set_ = nullptr;
  wait_fd_ = -1;
  if (domain_) fi_close(&domain_->fid);
  if (fabric_) fi_close(&fabric_->fid);
  domain_ = nullptr;
  fabric_ = nullptr;
  if (choice_.info) fi_freeinfo(choice_.info);
  choice_.info = nullptr;
}

}  // namespace stmpi::dev::ofi
