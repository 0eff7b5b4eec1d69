#pragma once

// Server side of the PMI-1 line protocol for the ranks of one job: key-value store, barrier,
// abort and finalize. It never blocks: sockets are non-blocking, replies that do not fit into
// the socket are queued until the event loop reports the socket writable.

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stmpi::tools::mpiexec {

struct AbortRequest {
  int rank = -1;
  int exit_code = 1;
  std::string message;
};

class PmiServer {
 public:
  PmiServer(std::string kvsname, int size);
  ~PmiServer();
  PmiServer(const PmiServer&) = delete;
  PmiServer& operator=(const PmiServer&) = delete;

  // Takes ownership of the server end of rank's socket (made non-blocking here).
  void attach(int rank, int fd);
  // -1 once the connection is closed.
  int fd(int rank) const { return connections_[rank].fd; }
  bool wants_write(int rank) const { return !connections_[rank].outgoing.empty(); }

  // Reads all available requests of rank and answers them. Closes the connection at EOF or error.
  void on_readable(int rank);
  void on_writable(int rank);
  void close(int rank);

  // The first abort request not yet taken, if any.
  std::optional<AbortRequest> take_abort();

 private:
  struct Connection {
    int fd = -1;
    std::string incoming;
    std::string outgoing;
    bool in_barrier = false;
  };

  void handle_request(int rank, std::string_view line);
  void handle_put(int rank, std::string_view line);
  void handle_get(int rank, std::string_view line);
  void handle_barrier(int rank);
  void reply(int rank, std::string line);
  void flush(int rank);

  std::string kvsname_;
  int size_;
  std::vector<Connection> connections_;
  std::unordered_map<std::string, std::string> store_;
  int ranks_in_barrier_ = 0;
  std::vector<AbortRequest> aborts_;
};

}  // namespace stmpi::tools::mpiexec
