#include "tools/mpiexec/pmi_server.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>

#include "pmi/wire.h"
#include "tools/mpiexec/output.h"

namespace stmpi::tools::mpiexec {

using pmi::wire_field;
using pmi::wire_unescape;

namespace {

// Same limits as Hydra, so that clients exercise the same paths under both launchers.
constexpr int kKvsnameMax = 256;
constexpr int kKeyMax = 64;
constexpr int kValueMax = 1024;

// Text from a rank made safe for mpiexec's stderr: a rank must not be able to
// move the cursor, recolour or retitle the user's terminal, so every byte
// outside printable ASCII (control bytes, DEL, and all bytes >= 0x80, which
// include the C1 controls) is written as \xNN.
std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    }
  }
  return out;
}

// The STMPI client sends the abort message %XX-escaped; other clients send none.
// Line breaks become spaces (the report is one line), the rest is made printable.
std::string unescape_message(std::string_view text) {
  std::string out = wire_unescape(text);
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  return printable(out);
}

}  // namespace

PmiServer::PmiServer(std::string kvsname, int size, std::size_t kvs_limit, std::vector<int> appnums)
    : kvsname_(std::move(kvsname)),
      size_(size),
      appnums_(std::move(appnums)),
      connections_(static_cast<std::size_t>(size)),
      kvs_limit_(kvs_limit) {
  // MPICH-derived clients read the node layout from this key: all ranks on node 0.
  store_["PMI_process_mapping"] = "(vector,(0,1," + std::to_string(size) + "))";
}

PmiServer::~PmiServer() {
  for (int rank = 0; rank < size_; ++rank) close(rank);
}

void PmiServer::attach(int rank, int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  connections_[rank].fd = fd;
}

void PmiServer::close(int rank) {
  Connection& c = connections_[rank];
  if (c.fd < 0) return;
  ::close(c.fd);
  c.fd = -1;
  c.outgoing.clear();
  if (c.in_barrier) {
    c.in_barrier = false;
    --ranks_in_barrier_;
  }
}

std::optional<AbortRequest> PmiServer::take_abort() {
  if (aborts_.empty()) return std::nullopt;
  AbortRequest first = std::move(aborts_.front());
  aborts_.erase(aborts_.begin());
  return first;
}

std::optional<ProtocolError> PmiServer::take_error() {
  if (errors_.empty()) return std::nullopt;
  ProtocolError first = std::move(errors_.front());
  errors_.erase(errors_.begin());
  return first;
}

void PmiServer::on_readable(int rank) {
  Connection& c = connections_[rank];
  while (c.fd >= 0) {
    char buffer[8192];
    ssize_t n = ::read(c.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n <= 0) {
      close(rank);
      return;
    }
    c.incoming.append(buffer, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t newline; (newline = c.incoming.find('\n', start)) != std::string::npos;) {
      std::string line = c.incoming.substr(start, newline - start);
      start = newline + 1;
      if (line.size() > kMaxRequestLength) {
        errors_.push_back(ProtocolError{
            rank, true,
            "sent a PMI request line of " + std::to_string(line.size()) + " bytes (limit " +
                std::to_string(kMaxRequestLength) + ", starting '" +
                printable(std::string_view(line).substr(0, 40)) + "'); closed its PMI connection"});
        close(rank);
        return;
      }
      handle_request(rank, line);
      if (c.fd < 0) return;
    }
    c.incoming.erase(0, start);
    if (c.incoming.size() > kMaxRequestLength) {
      errors_.push_back(ProtocolError{rank, true,
                                      "sent a PMI request line longer than " +
                                          std::to_string(kMaxRequestLength) + " bytes (starting '" +
                                          printable(std::string_view(c.incoming).substr(0, 40)) +
                                          "'); closed its PMI connection"});
      close(rank);
      return;
    }
  }
}

void PmiServer::on_writable(int rank) { flush(rank); }

void PmiServer::reply(int rank, std::string line) {
  Connection& c = connections_[rank];
  if (c.fd < 0) return;
  c.outgoing += line;
  c.outgoing += '\n';
  flush(rank);
}

void PmiServer::flush(int rank) {
  Connection& c = connections_[rank];
  if (c.fd >= 0 && !write_available(c.fd, &c.outgoing, true))
    close(rank);  // the rank is gone; its exit status tells the story
}

void PmiServer::handle_request(int rank, std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::string_view cmd = wire_field(line, "cmd").value_or("");
  if (cmd == "init") {
    if (wire_field(line, "pmi_version") != "1") {
      reply(rank, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1");
      return;
    }
    Connection& c = connections_[rank];
    if (c.phase == PmiPhase::unconnected) {
      c.phase = PmiPhase::initialized;
      ++connected_ranks_;
    }
    // stmpi_abort_message=1 tells STMPI clients that mpiexec prints their abort message.
    reply(rank, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0 stmpi_abort_message=1");
  } else if (cmd == "get_maxes") {
    reply(rank, "cmd=maxes kvsname_max=" + std::to_string(kKvsnameMax) + " keylen_max=" +
                    std::to_string(kKeyMax) + " vallen_max=" + std::to_string(kValueMax));
  } else if (cmd == "get_appnum") {
    const int appnum = static_cast<std::size_t>(rank) < appnums_.size() ? appnums_[rank] : 0;
    reply(rank, "cmd=appnum appnum=" + std::to_string(appnum));
  } else if (cmd == "get_my_kvsname") {
    reply(rank, "cmd=my_kvsname kvsname=" + kvsname_);
  } else if (cmd == "get_universe_size") {
    reply(rank, "cmd=universe_size size=" + std::to_string(size_));
  } else if (cmd == "put") {
    handle_put(rank, line);
  } else if (cmd == "get") {
    handle_get(rank, line);
  } else if (cmd == "barrier_in") {
    handle_barrier(rank);
  } else if (cmd == "finalize") {
    if (connections_[rank].phase == PmiPhase::unconnected) ++connected_ranks_;
    connections_[rank].phase = PmiPhase::finalized;
    reply(rank, "cmd=finalize_ack");
  } else if (cmd == "abort") {
    AbortRequest request;
    request.rank = rank;
    std::string_view code = wire_field(line, "exitcode").value_or("1");
    if (std::from_chars(code.data(), code.data() + code.size(), request.exit_code).ec !=
        std::errc()) {
      request.exit_code = 1;
    }
    std::string_view message = wire_field(line, "message").value_or("");
    request.message = message.empty() ? "(no message)" : unescape_message(message);
    aborts_.push_back(std::move(request));
  } else if (cmd == "publish_name" || cmd == "unpublish_name" || cmd == "lookup_name" ||
             cmd == "spawn") {
    reply(rank, "cmd=" + std::string(cmd == "lookup_name" ? "lookup" : cmd) +
                    "_result rc=-1 msg=not_supported_by_stmpi_mpiexec");
  } else {
    reply(rank, "cmd=error rc=-1 msg=unknown_command_" + printable(cmd.substr(0, 64)));
  }
}

void PmiServer::handle_put(int rank, std::string_view line) {
  auto kvsname = wire_field(line, "kvsname");
  auto key = wire_field(line, "key");
  auto value = wire_field(line, "value");
  if (kvsname != kvsname_) {
    reply(rank, "cmd=put_result rc=-1 msg=unknown_kvsname");
  } else if (!key || key->empty() || !value) {
    reply(rank, "cmd=put_result rc=-1 msg=missing_key_or_value");
  } else {
    // The store lives in mpiexec's memory: a runaway job must not take the node's memory.
    auto it = store_.find(std::string(*key));
    std::size_t old_bytes = it == store_.end() ? 0 : it->first.size() + it->second.size();
    std::size_t new_bytes = key->size() + value->size();
    if (kvs_bytes_ - old_bytes + new_bytes > kvs_limit_) {
      reply(rank, "cmd=put_result rc=-1 msg=key-value_store_full:_the_job_may_store_" +
                      std::to_string(kvs_limit_) + "_bytes_(mpiexec_-kvs-limit)");
      if (!reported_kvs_full_) {
        reported_kvs_full_ = true;
        errors_.push_back(ProtocolError{
            rank, false,
            "PMI put of key '" + printable(key->substr(0, 64)) + "' (" + std::to_string(new_bytes) +
                " bytes) refused: the job's key-value store holds " + std::to_string(kvs_bytes_) +
                " of at most " + std::to_string(kvs_limit_) + " bytes (raise it with -kvs-limit)"});
      }
      return;
    }
    kvs_bytes_ = kvs_bytes_ - old_bytes + new_bytes;
    store_[std::string(*key)] = std::string(*value);
    reply(rank, "cmd=put_result rc=0 msg=success");
  }
}

void PmiServer::handle_get(int rank, std::string_view line) {
  auto kvsname = wire_field(line, "kvsname");
  auto key = wire_field(line, "key");
  if (kvsname != kvsname_) {
    reply(rank, "cmd=get_result rc=-1 msg=unknown_kvsname");
    return;
  }
  auto it = key ? store_.find(std::string(*key)) : store_.end();
  if (it == store_.end()) {
    reply(rank, "cmd=get_result rc=-1 msg=key_not_found");
  } else {
    reply(rank, "cmd=get_result rc=0 msg=success value=" + it->second);
  }
}

void PmiServer::handle_barrier(int rank) {
  Connection& c = connections_[rank];
  if (!c.in_barrier) {
    c.in_barrier = true;
    ++ranks_in_barrier_;
  }
  if (ranks_in_barrier_ < size_) return;
  ranks_in_barrier_ = 0;
  for (int r = 0; r < size_; ++r) {
    connections_[r].in_barrier = false;
    reply(r, "cmd=barrier_out");
  }
}

}  // namespace stmpi::tools::mpiexec
