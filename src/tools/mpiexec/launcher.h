#pragma once

// Starting the rank processes: program lookup, environment, CPU binding, fork and exec.

#include <sched.h>
#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "tools/mpiexec/options.h"

namespace stmpi::tools::mpiexec {

// What the ranks must get back from mpiexec's own signal setup before exec.
struct ChildSignalState {
  sigset_t mask;
  struct sigaction pipe_action;
  struct sigaction ttin_action;
};

// mpiexec's ends of one rank's channels; the caller owns the descriptors.
struct SpawnedRank {
  pid_t pid = -1;
  int pmi_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  int stdin_fd = -1;  // rank 0 only; the other ranks read /dev/null
};

class Launcher {
 public:
  Launcher(const Options& options, const ChildSignalState& child_signals);

  // Builds the ranks' environments, checks the working directories, finds the programs and
  // the CPU sets to bind to. False with *error set when the job cannot start.
  [[nodiscard]] bool prepare(std::string* error);
  [[nodiscard]] bool spawn(int rank, SpawnedRank* spawned, std::string* error);

 private:
  // What every rank of one program (Options::apps) gets.
  struct Program {
    std::string path;                      // the executable, as found
    std::string wdir;                      // working directory; empty: mpiexec's
    std::vector<std::string> environment;  // NAME=VALUE, without the per-rank PMI variables
  };

  bool prepare_program(const App& app, Program* program, std::string* error);
  bool find_program(const App& app, Program* program, std::string* error);
  bool find_cpu_slots(std::string* error);

  const Options& options_;
  ChildSignalState child_signals_;
  pid_t launcher_pid_;
  std::vector<Program> programs_;     // one per Options::apps entry
  std::vector<cpu_set_t> cpu_slots_;  // rank r binds to cpu_slots_[r % size]
};

// The job's kvsname, kvs_<job_id>_0; job_id is mpiexec's pid (main.cc).
std::string kvsname_of(pid_t job_id);

// Removes /dev/shm/stmpi-<kvsname>-* (segments the library leaves behind when a rank is
// killed; util/shm_segment.h names them). Returns how many were removed.
int remove_shm_segments(const std::string& kvsname);

}  // namespace stmpi::tools::mpiexec
