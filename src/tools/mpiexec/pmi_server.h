#pragma once

// Server side of the PMI-1 line protocol for the ranks of one job: key-value store, barrier,
// abort and finalize. It never blocks: sockets are non-blocking, replies that do not fit into
// the socket are queued until the event loop reports the socket writable.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stmpi::tools::mpiexec {

struct AbortRequest {
  int rank = -1;
  int exit_code = 1;
  std::string message;  // printable: control and non-ASCII bytes arrive as \xNN
};

// A rank that broke the protocol or a limit of the server; mpiexec reports it.
struct ProtocolError {
  int rank = -1;
  bool fatal = false;  // the connection was closed: the job cannot go on
  std::string message;
};

// How far a rank has come through the PMI life cycle.
enum class PmiPhase { unconnected, initialized, finalized };

class PmiServer {
 public:
  // kvs_limit: bytes of keys and values the job may store in all; appnums: each rank's
  // program (the reply to get_appnum, MPI_APPNUM in the library).
  PmiServer(std::string kvsname, int size, std::size_t kvs_limit, std::vector<int> appnums);
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
  // The first protocol error not yet taken, if any.
  std::optional<ProtocolError> take_error();

  PmiPhase phase(int rank) const { return connections_[rank].phase; }
  // Ranks that have sent "init" (and maybe "finalize").
  int connected_ranks() const { return connected_ranks_; }

  // Longest request line a rank may send; Hydra-sized values need about 1.2 KB.
  static constexpr std::size_t kMaxRequestLength = 16384;

 private:
  struct Connection {
    int fd = -1;
    std::string incoming;
    std::string outgoing;
    bool in_barrier = false;
    PmiPhase phase = PmiPhase::unconnected;
  };

  void handle_request(int rank, std::string_view line);
  void handle_put(int rank, std::string_view line);
  void handle_get(int rank, std::string_view line);
  void handle_barrier(int rank);
  void reply(int rank, std::string line);
  void flush(int rank);

  std::string kvsname_;
  int size_;
  std::vector<int> appnums_;
  std::vector<Connection> connections_;
  std::unordered_map<std::string, std::string> store_;
  std::size_t kvs_limit_;
  std::size_t kvs_bytes_ = 0;
  bool reported_kvs_full_ = false;
  int ranks_in_barrier_ = 0;
  int connected_ranks_ = 0;
  std::vector<AbortRequest> aborts_;
  std::vector<ProtocolError> errors_;
};

}  // namespace stmpi::tools::mpiexec
