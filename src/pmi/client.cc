#include "pmi/client.h"
#include "pmi/wire.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>

#include "util/launcher_env.h"

namespace stmpi::pmi {

namespace {

// Guards against a peer that never sends a newline.
constexpr std::size_t kMaxLineLength = 1 << 20;
// Prefix of the value stored under a key whose value is split over `key#0`, `key#1`, ...
// Escaped values never start with a literal '#', so the marker cannot be mistaken for data.
constexpr std::string_view kChunkMarker = "#chunks=";

bool parse_int(std::string_view text, int* out) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return false;
  *out = value;
  return true;
}

// '#' is reserved for the keys that hold the pieces of long values.
bool valid_key_characters(std::string_view key) {
  for (unsigned char c : key) {
    if (c <= ' ' || c >= 0x7f || c == '=' || c == '#') return false;
  }
  return !key.empty();
}

std::string errno_text(int error) { return std::strerror(error); }

}  // namespace

Client::~Client() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t Client::max_key_length() const { return key_limit_ > 1 ? key_limit_ - 1 : 0; }

int Client::fail(std::string message) {
  error_ = "PMI: " + std::move(message);
  return -1;
}

int Client::check_connected(const char* operation) {
  if (mode_ == Mode::connected || mode_ == Mode::singleton) return 0;
  return fail(std::string(operation) + " called " +
              (mode_ == Mode::finalized ? "after finalize" : "before init"));
}

int Client::init() {
  std::lock_guard lock(mutex_);
  if (mode_ == Mode::connected || mode_ == Mode::singleton) return 0;
  if (mode_ == Mode::finalized) return fail("init called after finalize");

  const char* fd_text = util::launcher_env("PMI_FD");
  const char* port_text = util::launcher_env("PMI_PORT");
  if (fd_text == nullptr && port_text == nullptr) {
    rank_ = 0;
    size_ = 1;
    appnum_ = 0;
    kvsname_ = "singleton_" + std::to_string(::getpid());
    mode_ = Mode::singleton;
    return 0;
  }

  const char* size_text = util::launcher_env("PMI_SIZE");
  const char* rank_text = util::launcher_env("PMI_RANK");
  if (size_text != nullptr && (!parse_int(size_text, &size_) || size_ < 1)) {
    return fail(std::string("PMI_SIZE='") + size_text + "' is not a positive integer");
  }
  if (rank_text != nullptr && (!parse_int(rank_text, &rank_) || rank_ < 0)) {
    return fail(std::string("PMI_RANK='") + rank_text + "' is not a non-negative integer");
  }
  if (connect_to_server() != 0) return -1;
  const char* pmi_id = util::launcher_env("PMI_ID");
  bool ok = (pmi_id == nullptr || fd_text != nullptr || initack_handshake(pmi_id) == 0);
  if (ok && rank_ >= size_) {
    fail("rank " + std::to_string(rank_) + " is not below the job size " + std::to_string(size_));
    ok = false;
  }
  ok = ok && version_handshake() == 0 && query_job() == 0;
  if (!ok) {
    // A later init() starts from scratch.
    ::close(fd_);
    fd_ = -1;
    received_.clear();
    return -1;
  }
  mode_ = Mode::connected;
  return 0;
}

int Client::connect_to_server() {
  if (const char* fd_text = util::launcher_env("PMI_FD"); fd_text != nullptr) {
    int fd = -1;
    if (!parse_int(fd_text, &fd) || fd < 0) {
      return fail(std::string("PMI_FD='") + fd_text + "' is not a file descriptor number");
    }
    int flags = ::fcntl(fd, F_GETFD);
    if (flags < 0) return fail("PMI_FD=" + std::to_string(fd) + " is not open");
    // Programs the rank starts (system(), popen()) must not inherit the PMI connection.
    ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    fd_ = fd;
    return 0;
  }
  return connect_to_port(util::launcher_env("PMI_PORT"));
}

int Client::connect_to_port(const char* host_port) {
  std::string_view text(host_port);
  std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == text.size()) {
    return fail(std::string("PMI_PORT='") + host_port + "' is not of the form host:port");
  }
  std::string host(text.substr(0, colon));
  std::string port(text.substr(colon + 1));
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* addresses = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &addresses); rc != 0) {
    return fail("cannot resolve PMI_PORT='" + std::string(host_port) + "': " + gai_strerror(rc));
  }
  int last_errno = 0;
  for (addrinfo* a = addresses; a != nullptr && fd_ < 0; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last_errno = errno;
      continue;
    }
    int rc;
    do {
      rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
    } while (rc != 0 && errno == EINTR);
    if (rc == 0) {
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      fd_ = fd;
    } else {
      last_errno = errno;
      ::close(fd);
    }
  }
  ::freeaddrinfo(addresses);
  if (fd_ < 0) {
    return fail("cannot connect to PMI_PORT='" + std::string(host_port) +
                "': " + errno_text(last_errno));
  }
  return 0;
}

// With PMI_PORT the server identifies the process by PMI_ID and tells it rank and size.
int Client::initack_handshake(const char* pmi_id) {
  std::string reply;
  if (request(std::string("cmd=initack pmiid=") + pmi_id, "initack", &reply) != 0) return -1;
  for (int i = 0; i < 3; ++i) {
    if (receive_line(&reply) != 0) return -1;
    if (wire_field(reply, "cmd") != "set")
      return fail("unexpected reply '" + reply + "' to initack");
    if (auto v = wire_field(reply, "size"); v && !parse_int(*v, &size_)) {
      return fail("bad size in '" + reply + "'");
    }
    if (auto v = wire_field(reply, "rank"); v && !parse_int(*v, &rank_)) {
      return fail("bad rank in '" + reply + "'");
    }
  }
  return 0;
}

int Client::version_handshake() {
  std::string reply;
  if (request("cmd=init pmi_version=1 pmi_subversion=1", "response_to_init", &reply) != 0) {
    return -1;
  }
  if (wire_field(reply, "rc") != "0") {
    return fail("the process manager refused PMI version 1.1: '" + reply + "'");
  }
  // Our mpiexec prints the abort message itself; other servers drop it, so the client prints it.
  server_prints_abort_ = wire_field(reply, "stmpi_abort_message") == "1";
  return 0;
}

int Client::query_job() {
  std::string reply;
  if (request("cmd=get_maxes", "maxes", &reply) != 0) return -1;
  int key_max = 0;
  int value_max = 0;
  auto key_field = wire_field(reply, "keylen_max");
  auto value_field = wire_field(reply, "vallen_max");
  if (!key_field || !value_field || !parse_int(*key_field, &key_max) ||
      !parse_int(*value_field, &value_max) || key_max < 8 || value_max < 64) {
    return fail("bad reply to get_maxes: '" + reply + "'");
  }
  key_limit_ = static_cast<std::size_t>(key_max);
  value_limit_ = static_cast<std::size_t>(value_max);

  if (request("cmd=get_appnum", "appnum", &reply) != 0) return -1;
  if (auto v = wire_field(reply, "appnum"); !v || !parse_int(*v, &appnum_)) {
    return fail("bad reply to get_appnum: '" + reply + "'");
  }

  if (request("cmd=get_my_kvsname", "my_kvsname", &reply) != 0) return -1;
  auto name = wire_field(reply, "kvsname");
  if (!name || name->empty()) return fail("bad reply to get_my_kvsname: '" + reply + "'");
  kvsname_ = std::string(*name);
  return 0;
}

int Client::put(const std::string& key, const std::string& value) {
  std::lock_guard lock(mutex_);
  if (check_connected("put") != 0) return -1;
  if (!valid_key_characters(key) || key.size() > max_key_length()) {
    return fail("invalid key '" + key + "': 1 to " + std::to_string(max_key_length()) +
                " printable characters without spaces, '=' or '#'");
  }
  if (mode_ == Mode::singleton) {
    local_store_[key] = value;
    return 0;
  }
  std::string wire = wire_escape(value);
  std::size_t piece = value_limit_ - 1;
  if (wire.size() <= piece) return put_wire(key, wire);

  std::size_t pieces = (wire.size() + piece - 1) / piece;
  std::string last_piece_key = key + "#" + std::to_string(pieces - 1);
  if (last_piece_key.size() > max_key_length()) {
    return fail("key '" + key + "' is too long for a " + std::to_string(value.size()) +
                "-byte value: its pieces need keys like '" + last_piece_key + "'");
  }
  for (std::size_t i = 0; i < pieces; ++i) {
    if (put_wire(key + "#" + std::to_string(i), wire.substr(i * piece, piece)) != 0) return -1;
  }
  return put_wire(key, std::string(kChunkMarker) + std::to_string(pieces));
}

int Client::put_wire(const std::string& key, const std::string& value) {
  std::string reply;
  if (request("cmd=put kvsname=" + kvsname_ + " key=" + key + " value=" + value, "put_result",
              &reply) != 0) {
    return -1;
  }
  if (wire_field(reply, "rc") != "0") {
    return fail("put of key '" + key +
                "' failed: " + std::string(wire_field(reply, "msg").value_or("")));
  }
  return 0;
}

int Client::get(const std::string& key, std::string* value) {
  std::lock_guard lock(mutex_);
  if (check_connected("get") != 0) return -1;
  if (!valid_key_characters(key)) return fail("invalid key '" + key + "'");
  if (mode_ == Mode::singleton) {
    auto it = local_store_.find(key);
    if (it == local_store_.end()) return fail("key '" + key + "' not found");
    *value = it->second;
    return 0;
  }
  std::string wire;
  if (get_wire(key, &wire) != 0) return -1;
  if (wire.starts_with(kChunkMarker)) {
    int pieces = 0;
    if (!parse_int(std::string_view(wire).substr(kChunkMarker.size()), &pieces) || pieces < 1) {
      return fail("key '" + key + "' holds a damaged piece count: '" + wire + "'");
    }
    std::string joined;
    for (int i = 0; i < pieces; ++i) {
      std::string piece;
      if (get_wire(key + "#" + std::to_string(i), &piece) != 0) return -1;
      joined += piece;
    }
    wire = std::move(joined);
  }
  *value = wire_unescape(wire);
  return 0;
}

int Client::get_wire(const std::string& key, std::string* value) {
  std::string reply;
  if (request("cmd=get kvsname=" + kvsname_ + " key=" + key, "get_result", &reply) != 0) {
    return -1;
  }
  if (wire_field(reply, "rc") != "0") {
    return fail("key '" + key + "' not found (" +
                std::string(wire_field(reply, "msg").value_or("")) + ")");
  }
  *value = std::string(wire_field(reply, "value").value_or(""));
  return 0;
}

int Client::barrier() {
  std::lock_guard lock(mutex_);
  if (check_connected("barrier") != 0) return -1;
  if (mode_ == Mode::singleton) return 0;
  std::string reply;
  return request("cmd=barrier_in", "barrier_out", &reply);
}

int Client::finalize() {
  std::lock_guard lock(mutex_);
  if (check_connected("finalize") != 0) return -1;
  int rc = 0;
  if (mode_ == Mode::connected) {
    std::string reply;
    rc = request("cmd=finalize", "finalize_ack", &reply);
    ::close(fd_);
    fd_ = -1;
  }
  mode_ = Mode::finalized;
  return rc;
}

void Client::abort(int exit_code, const std::string& message) {
  // No lock: abort may be called while another thread waits inside a request. A short line is
  // written by one send() call, so it reaches the server whole.
  int status = exit_code & 0xff;
  if (status == 0) status = 1;
  std::fflush(stdout);
  if (mode_ != Mode::connected || !server_prints_abort_) {
    std::fprintf(stderr, "rank %d called MPI_Abort(errorcode=%d): %s\n", rank_, exit_code,
                 message.c_str());
  }
  std::fflush(stderr);
  if (mode_ == Mode::connected) {
    std::string line = "cmd=abort exitcode=" + std::to_string(exit_code);
    // Only a server that prints the message gets it: others may limit the line length.
    if (server_prints_abort_ && !message.empty()) {
      line += " message=" + wire_escape(message.substr(0, 512));
    } else {
      // Hydra tears the job down on abort without draining the ranks' pipes: give it time to
      // forward the message printed above.
      ::usleep(200 * 1000);
    }
    (void)send_line(line);
  }
  ::_exit(status);
}

int Client::request(const std::string& line, const char* expected_cmd, std::string* reply) {
  if (send_line(line) != 0 || receive_line(reply) != 0) return -1;
  if (wire_field(*reply, "cmd") != std::string_view(expected_cmd)) {
    std::string sent = line.substr(0, line.find(' '));
    return fail("unexpected reply '" + reply->substr(0, 200) + "' to '" + sent + "'");
  }
  return 0;
}

int Client::send_line(const std::string& line) {
  std::string data = line + "\n";
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::send(fd_, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = ::write(fd_, data.data() + done, data.size() - done);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd_, POLLOUT, 0};
      ::poll(&p, 1, -1);
    } else {
      return fail("cannot write to the process manager: " + errno_text(n < 0 ? errno : EPIPE));
    }
  }
  return 0;
}

int Client::receive_line(std::string* line) {
  for (;;) {
    std::size_t newline = received_.find('\n');
    if (newline != std::string::npos) {
      line->assign(received_, 0, newline);
      received_.erase(0, newline + 1);
      return 0;
    }
    if (received_.size() > kMaxLineLength) {
      return fail("the process manager sent a line longer than " + std::to_string(kMaxLineLength) +
                  " bytes");
    }
    char buffer[4096];
    ssize_t n = ::read(fd_, buffer, sizeof buffer);
    if (n > 0) {
      received_.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0) {
      return fail("the process manager closed the connection");
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      pollfd p{fd_, POLLIN, 0};
      ::poll(&p, 1, -1);
    } else if (errno != EINTR) {
      return fail("cannot read from the process manager: " + errno_text(errno));
    }
  }
}

Client& client() {
  // Never destroyed: ranks may still call into it from atexit handlers and other threads.
  static Client* instance = new Client;
  return *instance;
}

}  // namespace stmpi::pmi
