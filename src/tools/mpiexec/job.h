#pragma once

// One job: the ranks, the PMI server, output and input forwarding, and the event loop that
// watches them, the signals and the deadlines until every rank is gone.

#include <sys/types.h>

#include <chrono>
#include <string>
#include <unordered_map>
#include <vector>

#include "tools/mpiexec/launcher.h"
#include "tools/mpiexec/options.h"
#include "tools/mpiexec/output.h"
#include "tools/mpiexec/pmi_server.h"

namespace stmpi::tools::mpiexec {

class Job {
 public:
  // job_id: the number in the kvsname (kvsname_of()).
  Job(const Options& options, pid_t job_id);
  ~Job();
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  // Starts the ranks and serves them until all have exited; returns mpiexec's exit status.
  int run();

 private:
  using Clock = std::chrono::steady_clock;

  struct Rank {
    pid_t pid = -1;
    bool alive = false;
    LineForwarder out;
    LineForwarder err;
  };

  bool install_signal_handling(ChildSignalState* child_signals);
  void print_rank_map();
  bool start_ranks(Launcher* launcher);
  void event_loop();
  int poll_timeout_ms() const;
  void check_deadlines();
  void handle_signals();
  // Acts on protocol errors, and on abort requests once their grace time is over.
  void handle_aborts();
  bool has_pending_abort(int rank) const;
  bool other_rank_dying(int rank) const;
  void check_unconnected_exit();
  void check_output_closed();
  void reap();
  void on_rank_exit(int rank, int status);
  // Records the first failure, reports it and starts stopping the ranks that are still alive.
  // culprit: the rank that caused it, or -1.
  void begin_termination(const std::string& cause, int exit_code, int culprit);
  void print_report();
  void abandon_loop(const std::string& reason);
  void signal_ranks(int signal);
  int live_ranks_except(int rank) const;
  void finish();

  const Options& options_;
  std::string kvsname_;
  PmiServer server_;
  std::vector<Rank> ranks_;
  std::unordered_map<pid_t, int> rank_of_pid_;
  StdinForwarder stdin_;
  int signal_fd_ = -1;
  int live_ = 0;
  bool terminating_ = false;
  bool sent_kill_ = false;
  int exit_code_ = 0;
  std::string report_;  // the failure message, until it is printed
  int culprit_ = -1;
  int unconnected_exit_ = -1;
  struct PendingAbort {
    AbortRequest request;
    Clock::time_point due;  // when it is acted on
    Clock::time_point received;
  };
  std::vector<PendingAbort> pending_aborts_;  // first rank that exited 0 without ever speaking PMI
  Clock::time_point kill_deadline_;
  Clock::time_point timeout_deadline_;
};

}  // namespace stmpi::tools::mpiexec
