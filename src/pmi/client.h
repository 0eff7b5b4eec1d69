#pragma once

// PMI-1 client ("simple PMI" wire protocol): newline-terminated `cmd=... key=value` lines over the
// socket a process manager passes in PMI_FD (or PMI_PORT), as spoken by MPICH's Hydra and by our
// mpiexec. Without a process manager the process runs as a singleton with a local key-value store.

#include <cstddef>
#include <map>
#include <mutex>
#include <string>

namespace stmpi::pmi {

class Client {
 public:
  Client() = default;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client();

  // Connects to the process manager and learns rank, size and the job's kvsname.
  // 0 on success, else -1 and error() says why. Calling it again after success is a no-op.
  [[nodiscard]] int init();

  int rank() const { return rank_; }
  int size() const { return size_; }
  int appnum() const { return appnum_; }
  bool singleton() const { return mode_ == Mode::singleton; }
  // Job-unique name; the library derives shared-memory segment names from it.
  const std::string& kvsname() const { return kvsname_; }

  // Keys: up to max_key_length() characters, no spaces, '=', '#' or control characters.
  // Values: any bytes, any length. They are escaped for the line protocol and, when longer than
  // the server's value limit (1023 characters under Hydra), split over several keys.
  [[nodiscard]] int put(const std::string& key, const std::string& value);
  // Blocks only for the server's reply: a key put by another rank is visible after a barrier.
  [[nodiscard]] int get(const std::string& key, std::string* value);
  // Collective over all ranks of the job; also commits this rank's puts.
  [[nodiscard]] int barrier();
  // Tells the process manager to kill the job, then _exit()s with exit_code (1 when it is 0:
  // an abort never reports success).
  [[noreturn]] void abort(int exit_code, const std::string& message);
  [[nodiscard]] int finalize();

  const std::string& error() const { return error_; }
  std::size_t max_key_length() const;

 private:
  enum class Mode { uninitialized, singleton, connected, finalized };

  int connect_to_server();
  int connect_to_port(const char* host_port);
  int initack_handshake(const char* pmi_id);
  int version_handshake();
  int query_job();
  int put_wire(const std::string& key, const std::string& value);
  int get_wire(const std::string& key, std::string* value);
  // Sends one request line and waits for the reply whose cmd is expected_cmd.
  int request(const std::string& line, const char* expected_cmd, std::string* reply);
  int send_line(const std::string& line);
  int receive_line(std::string* line);
  int fail(std::string message);
  int check_connected(const char* operation);

  Mode mode_ = Mode::uninitialized;
  int fd_ = -1;
  int rank_ = 0;
  int size_ = 1;
  int appnum_ = 0;
  std::string kvsname_;
  std::string error_;
  std::string received_;            // bytes read from the socket but not yet consumed as a line
  std::size_t key_limit_ = 64;      // server's keylen_max, including the terminating NUL
  std::size_t value_limit_ = 1024;  // server's vallen_max, including the terminating NUL
  bool server_prints_abort_ = false;
  std::map<std::string, std::string> local_store_;
  std::mutex mutex_;
};

// Process-wide instance.
Client& client();

}  // namespace stmpi::pmi
