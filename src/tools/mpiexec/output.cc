#include "tools/mpiexec/output.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace stmpi::tools::mpiexec {

namespace {

// A rank that writes this much without a newline gets it forwarded as a partial line.
constexpr std::size_t kMaxPendingLine = 64 * 1024;
constexpr std::size_t kStdinBufferLimit = 64 * 1024;

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n > 0) {
      data += n;
      size -= static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, -1);
    } else {
      return false;
    }
  }
  return true;
}

bool write_available(int fd, std::string* pending, bool socket) {
  std::size_t done = 0;
  bool ok = true;
  while (done < pending->size()) {
    const char* data = pending->data() + done;
    const std::size_t left = pending->size() - done;
    const ssize_t n = socket ? ::send(fd, data, left, MSG_NOSIGNAL) : ::write(fd, data, left);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      break;
    } else {
      ok = false;
      break;
    }
  }
  pending->erase(0, done);
  return ok;
}

LineForwarder::LineForwarder(int fd, int target_fd, std::string prefix, bool complete_last_line)
    : fd_(fd),
      target_fd_(target_fd),
      prefix_(std::move(prefix)),
      complete_last_line_(complete_last_line) {
  set_nonblocking(fd_);
}

LineForwarder::LineForwarder(LineForwarder&& other) noexcept { *this = std::move(other); }

LineForwarder& LineForwarder::operator=(LineForwarder&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
    target_fd_ = other.target_fd_;
    prefix_ = std::move(other.prefix_);
    pending_ = std::move(other.pending_);
    at_line_start_ = other.at_line_start_;
    complete_last_line_ = other.complete_last_line_;
    target_closed_ = other.target_closed_;
  }
  return *this;
}

LineForwarder::~LineForwarder() { close(); }

void LineForwarder::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void LineForwarder::on_readable(int max_reads) {
  for (int i = 0; i < max_reads && fd_ >= 0; ++i) {
    char buffer[16384];
    ssize_t n = ::read(fd_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n <= 0) {
      forward_lines(true, true);
      close();
      return;
    }
    pending_.append(buffer, static_cast<std::size_t>(n));
    forward_lines(pending_.size() > kMaxPendingLine, false);
  }
}

void LineForwarder::forward_lines(bool flush_partial, bool at_eof) {
  std::string out;
  std::size_t start = 0;
  for (std::size_t newline; (newline = pending_.find('\n', start)) != std::string::npos;) {
    if (at_line_start_) out += prefix_;
    out.append(pending_, start, newline + 1 - start);
    at_line_start_ = true;
    start = newline + 1;
  }
  if (flush_partial && start < pending_.size()) {
    if (at_line_start_) out += prefix_;
    out.append(pending_, start);
    at_line_start_ = false;
    start = pending_.size();
  }
  if (at_eof && !at_line_start_ && complete_last_line_) {
    out += '\n';
    at_line_start_ = true;
  }
  pending_.erase(0, start);
  // A closed stdout is reported through target_closed(); the job decides what to do.
  if (!out.empty() && !target_closed_ && !write_all(target_fd_, out.data(), out.size())) {
    target_closed_ = errno == EPIPE;
  }
}

StdinForwarder::~StdinForwarder() { close_sink(); }

void StdinForwarder::start(int source_fd, int sink_fd) {
  source_fd_ = source_fd;
  sink_fd_ = sink_fd;
  set_nonblocking(sink_fd_);
  if (::fcntl(source_fd_, F_GETFD) < 0) {
    source_done_ = true;
    close_sink();
  }
}

bool StdinForwarder::wants_read() const {
  return !source_done_ && sink_fd_ >= 0 && buffer_.size() < kStdinBufferLimit;
}

void StdinForwarder::on_source_readable() {
  // mpiexec's stdin stays blocking (it may be a terminal shared with the shell): poll() said
  // it is readable, so one read() does not block.
  char buffer[16384];
  ssize_t n = ::read(source_fd_, buffer, sizeof buffer);
  if (n > 0) {
    buffer_.append(buffer, static_cast<std::size_t>(n));
  } else if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) {
    return;
  } else {
    // EOF, or EIO when mpiexec runs in the background of a terminal (SIGTTIN is ignored).
    source_done_ = true;
  }
  flush();
}

void StdinForwarder::on_sink_writable() { flush(); }

void StdinForwarder::flush() {
  if (sink_fd_ >= 0 && !write_available(sink_fd_, &buffer_)) {
    close_sink();
    return;
  }
  if (source_done_ && buffer_.empty()) close_sink();
}

void StdinForwarder::close_sink() {
  if (sink_fd_ >= 0) ::close(sink_fd_);
  sink_fd_ = -1;
  buffer_.clear();
  source_done_ = true;
}

}  // namespace stmpi::tools::mpiexec
