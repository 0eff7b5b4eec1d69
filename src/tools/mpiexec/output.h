#pragma once

// Forwarding of the ranks' standard streams: each rank's stdout and stderr pipe goes to
// mpiexec's stdout and stderr whole line by whole line, so that lines of different ranks never
// mix; mpiexec's stdin goes to rank 0.

#include <cstddef>
#include <string>

namespace stmpi::tools::mpiexec {

// Writes all of data to a possibly non-blocking fd, retrying on EINTR and EAGAIN.
// False when the reader is gone (EPIPE) or on another error.
bool write_all(int fd, const char* data, std::size_t size);

// Writes the front of *pending to the non-blocking fd until it would block
// (retrying on EINTR) and erases what went out. False when the fd failed (the
// other side is gone): the caller closes it. A socket is written with
// send(MSG_NOSIGNAL), so that a gone peer is an error, not a SIGPIPE.
bool write_available(int fd, std::string* pending, bool socket = false);

class LineForwarder {
 public:
  LineForwarder() = default;
  // Takes ownership of fd, the read end of a rank's pipe (made non-blocking here).
  // complete_last_line: end a trailing partial line with a newline at EOF, so that it does not
  // run into another rank's next line.
  LineForwarder(int fd, int target_fd, std::string prefix, bool complete_last_line);
  LineForwarder(LineForwarder&& other) noexcept;
  LineForwarder& operator=(LineForwarder&& other) noexcept;
  ~LineForwarder();

  int fd() const { return fd_; }
  // The reader of target_fd went away (EPIPE): nothing written there arrives any more.
  bool target_closed() const { return target_closed_; }
  // Reads what the pipe holds now (at most max_reads reads, so that one chatty rank cannot
  // starve the others) and forwards every complete line. At EOF it also forwards a trailing
  // partial line and closes the pipe.
  void on_readable(int max_reads = 16);

 private:
  void forward_lines(bool flush_partial, bool at_eof);
  void close();

  int fd_ = -1;
  int target_fd_ = -1;
  std::string prefix_;
  std::string pending_;  // bytes after the last forwarded newline
  bool at_line_start_ = true;
  bool complete_last_line_ = false;
  bool target_closed_ = false;
};

class StdinForwarder {
 public:
  StdinForwarder() = default;
  StdinForwarder(const StdinForwarder&) = delete;
  StdinForwarder& operator=(const StdinForwarder&) = delete;
  ~StdinForwarder();

  // sink_fd: the write end of rank 0's stdin pipe (made non-blocking here).
  void start(int source_fd, int sink_fd);
  int source_fd() const { return source_fd_; }
  int sink_fd() const { return sink_fd_; }
  bool wants_read() const;
  bool wants_write() const { return sink_fd_ >= 0 && !buffer_.empty(); }
  void on_source_readable();
  void on_sink_writable();
  // Rank 0 closed its stdin or exited.
  void close_sink();

 private:
  void flush();

  int source_fd_ = -1;
  int sink_fd_ = -1;
  bool source_done_ = false;
  std::string buffer_;
};

}  // namespace stmpi::tools::mpiexec
