#include "tools/mpiexec/job.h"

#include <poll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace stmpi::tools::mpiexec {

namespace {

// Time the ranks get between SIGTERM and SIGKILL.
constexpr auto kKillGrace = std::chrono::seconds(2);
// An abort request waits this long before it is acted on: a rank that aborts because a
// peer died (its single-copy read failed) must not hide the peer's death, which mpiexec
// may learn of a moment later.
constexpr auto kAbortGrace = std::chrono::milliseconds(150);
constexpr auto kAbortGraceLimit = std::chrono::seconds(2);

// A process that is exiting has given up its memory: /proc/PID/statm reads all zeros.
bool process_dying(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/statm", static_cast<int>(pid));
  std::FILE* file = std::fopen(path, "r");
  if (file == nullptr) return false;
  unsigned long size = 1;
  unsigned long resident = 1;
  bool dying = std::fscanf(file, "%lu %lu", &size, &resident) == 2 && size == 0 && resident == 0;
  std::fclose(file);
  return dying;
}
// Reads allowed when draining the pipes of a rank that has exited.
constexpr int kDrainReads = 1024;
constexpr int kTimeoutExitCode = 124;
constexpr int kLaunchFailureExitCode = 127;

constexpr int kTerminationSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// Each rank's program (MPI_APPNUM), for the PMI server's get_appnum.
std::vector<int> appnums(const Options& options) {
  std::vector<int> result;
  for (std::size_t app = 0; app < options.apps.size(); ++app)
    result.insert(result.end(), static_cast<std::size_t>(options.apps[app].nprocs),
                  static_cast<int>(app));
  return result;
}

std::string plural(int count, const char* noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

std::string signal_text(int signal) {
  const char* name = ::strsignal(signal);
  return std::to_string(signal) + " (" + (name != nullptr ? name : "unknown signal") + ")";
}

// The status a shell would report for a process that ended with status.
int shell_status(int status) {
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

enum class Source { signals, stdin_source, stdin_sink, pmi, out, err };

struct Watched {
  Source source;
  int rank;
};

}  // namespace

Job::Job(const Options& options, pid_t job_id)
    : options_(options),
      kvsname_(kvsname_of(job_id)),
      server_(kvsname_, options.nprocs, options.kvs_limit, appnums(options)),
      ranks_(static_cast<std::size_t>(options.nprocs)) {}

Job::~Job() {
  if (signal_fd_ >= 0) ::close(signal_fd_);
}

int Job::run() {
  ChildSignalState child_signals;
  if (!install_signal_handling(&child_signals)) return 1;
  Launcher launcher(options_, child_signals);
  std::string error;
  if (!launcher.prepare(&error)) {
    std::fprintf(stderr, "mpiexec: %s\n", error.c_str());
    return kLaunchFailureExitCode;
  }
  if (options_.print_rank_map) print_rank_map();
  if (options_.timeout_seconds > 0) {
    timeout_deadline_ = Clock::now() + std::chrono::seconds(options_.timeout_seconds);
  }
  if (!start_ranks(&launcher) && live_ == 0) return 1;
  event_loop();
  // Every rank is gone; an abort request still in its grace time explains the end now.
  for (PendingAbort& pending : pending_aborts_) pending.due = Clock::time_point::min();
  handle_aborts();
  finish();
  return exit_code_;
}

// Hydra's -print-rank-map format: one "(host:ranks)" line per node; here, one node.
void Job::print_rank_map() {
  char host[256] = "localhost";
  if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "localhost");
  std::string line = "(" + std::string(host) + ":";
  for (int rank = 0; rank < options_.nprocs; ++rank)
    line += (rank == 0 ? "" : ",") + std::to_string(rank);
  std::printf("%s)\n", line.c_str());
  std::fflush(stdout);
}

// Signals reach the launcher through a signalfd, so the event loop sees them in order with the
// ranks' I/O. The ranks are in the job's session, not the terminal's foreground group: Ctrl-C
// reaches mpiexec, which forwards it here (session.cc), and the job is ended from here.
bool Job::install_signal_handling(ChildSignalState* child_signals) {
  sigset_t watched;
  sigemptyset(&watched);
  sigaddset(&watched, SIGCHLD);
  for (int signal : kTerminationSignals) sigaddset(&watched, signal);
  if (::sigprocmask(SIG_BLOCK, &watched, &child_signals->mask) != 0) return false;
  signal_fd_ = ::signalfd(-1, &watched, SFD_CLOEXEC | SFD_NONBLOCK);
  if (signal_fd_ < 0) {
    std::fprintf(stderr, "mpiexec: cannot create a signalfd: %s\n", std::strerror(errno));
    return false;
  }
  // A rank that closes its stdin or a reader of mpiexec's stdout that goes away must not kill
  // mpiexec; reading stdin in the background of a terminal must fail with EIO, not stop it.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGPIPE, &ignore, &child_signals->pipe_action);
  ::sigaction(SIGTTIN, &ignore, &child_signals->ttin_action);
  return true;
}

bool Job::start_ranks(Launcher* launcher) {
  for (int rank = 0; rank < options_.nprocs; ++rank) {
    SpawnedRank spawned;
    std::string error;
    if (!launcher->spawn(rank, &spawned, &error)) {
      if (live_ == 0) {
        std::fprintf(stderr, "mpiexec: %s\n", error.c_str());
        return false;
      }
      begin_termination(error + "; killing " + plural(live_, "rank"), 1, -1);
      return false;
    }
    Rank& r = ranks_[rank];
    r.pid = spawned.pid;
    r.alive = true;
    std::string prefix = options_.label ? "[" + std::to_string(rank) + "] " : "";
    // With one unlabelled rank the output passes unchanged, down to a missing last newline.
    bool complete_last_line = options_.nprocs > 1 || options_.label;
    r.out = LineForwarder(spawned.stdout_fd, STDOUT_FILENO, prefix, complete_last_line);
    r.err = LineForwarder(spawned.stderr_fd, STDERR_FILENO, prefix, complete_last_line);
    server_.attach(rank, spawned.pmi_fd);
    if (rank == 0) stdin_.start(STDIN_FILENO, spawned.stdin_fd);
    rank_of_pid_[spawned.pid] = rank;
    ++live_;
  }
  return true;
}

void Job::event_loop() {
  std::vector<pollfd> fds;
  std::vector<Watched> watched;
  auto watch = [&](int fd, short events, Source source, int rank) {
    fds.push_back(pollfd{fd, events, 0});
    watched.push_back(Watched{source, rank});
  };
  while (live_ > 0) {
    fds.clear();
    watched.clear();
    watch(signal_fd_, POLLIN, Source::signals, -1);
    if (stdin_.wants_read()) watch(stdin_.source_fd(), POLLIN, Source::stdin_source, 0);
    if (stdin_.wants_write()) watch(stdin_.sink_fd(), POLLOUT, Source::stdin_sink, 0);
    for (int rank = 0; rank < options_.nprocs; ++rank) {
      if (int fd = server_.fd(rank); fd >= 0) {
        short events = POLLIN;
        if (server_.wants_write(rank)) events |= POLLOUT;
        watch(fd, events, Source::pmi, rank);
      }
      if (ranks_[rank].out.fd() >= 0) watch(ranks_[rank].out.fd(), POLLIN, Source::out, rank);
      if (ranks_[rank].err.fd() >= 0) watch(ranks_[rank].err.fd(), POLLIN, Source::err, rank);
    }

    int ready = ::poll(fds.data(), fds.size(), poll_timeout_ms());
    if (ready < 0 && errno != EINTR) {
      abandon_loop("poll failed: " + std::string(std::strerror(errno)));
      return;
    }
    // Signals first: after Ctrl-C the ranks' deaths are a consequence, not the cause.
    for (std::size_t i = 0; ready > 0 && i < fds.size(); ++i) {
      short revents = fds[i].revents;
      if (revents == 0) continue;
      int rank = watched[i].rank;
      switch (watched[i].source) {
        case Source::signals: handle_signals(); break;
        case Source::stdin_source: stdin_.on_source_readable(); break;
        case Source::stdin_sink:
          if (revents & (POLLERR | POLLHUP)) {
            stdin_.close_sink();
          } else {
            stdin_.on_sink_writable();
          }
          break;
        case Source::pmi:
          if (revents & POLLOUT) server_.on_writable(rank);
          if (revents & (POLLIN | POLLHUP | POLLERR)) server_.on_readable(rank);
          handle_aborts();
          check_unconnected_exit();
          break;
        case Source::out:
          ranks_[rank].out.on_readable();
          check_output_closed();
          break;
        case Source::err:
          ranks_[rank].err.on_readable();
          check_output_closed();
          break;
      }
    }
    reap();
    check_deadlines();
  }
}

int Job::poll_timeout_ms() const {
  bool have_deadline = false;
  Clock::time_point deadline;
  if (terminating_ && !sent_kill_) {
    deadline = kill_deadline_;
    have_deadline = true;
  } else if (!terminating_ && options_.timeout_seconds > 0) {
    deadline = timeout_deadline_;
    have_deadline = true;
  }
  if (!terminating_ && !pending_aborts_.empty() &&
      (!have_deadline || pending_aborts_.front().due < deadline)) {
    deadline = pending_aborts_.front().due;
    have_deadline = true;
  }
  if (!have_deadline) return -1;
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

void Job::check_deadlines() {
  if (!pending_aborts_.empty()) handle_aborts();
  auto now = Clock::now();
  if (!terminating_ && options_.timeout_seconds > 0 && now >= timeout_deadline_) {
    const std::string source =
        options_.timeout_source == "MPIEXEC_TIMEOUT"
            ? " (MPIEXEC_TIMEOUT=" + std::to_string(options_.timeout_seconds) + ")"
            : "";
    begin_termination("job exceeded the timeout of " + plural(options_.timeout_seconds, "second") +
                          source + "; killing " + plural(live_, "rank"),
                      kTimeoutExitCode, -1);
  }
  if (terminating_ && !sent_kill_ && now >= kill_deadline_ && live_ > 0) {
    signal_ranks(SIGKILL);
    sent_kill_ = true;
  }
}

void Job::handle_signals() {
  signalfd_siginfo info;
  while (::read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    int signal = static_cast<int>(info.ssi_signo);
    if (signal == SIGCHLD) continue;  // reap() runs after every poll
    if (!terminating_) {
      begin_termination(
          "received signal " + signal_text(signal) + "; killing " + plural(live_, "rank"),
          128 + signal, -1);
    } else if (!sent_kill_) {
      // Asked again while the ranks are given time to exit: stop waiting.
      signal_ranks(SIGKILL);
      sent_kill_ = true;
    }
  }
}

void Job::handle_aborts() {
  while (auto error = server_.take_error()) {
    std::string text =
        "rank " + std::to_string(error->rank) + (error->fatal ? " " : ": ") + error->message;
    if (!error->fatal) {
      std::string line = "mpiexec: " + text + "\n";
      (void)write_all(STDERR_FILENO, line.data(), line.size());
    } else if (!terminating_) {
      int others = live_ranks_except(error->rank);
      if (others > 0) text += "; killing " + plural(others, "other rank");
      begin_termination(text, 1, -1);
    }
  }
  auto now = Clock::now();
  while (auto request = server_.take_abort()) {
    pending_aborts_.push_back(PendingAbort{std::move(*request), now + kAbortGrace, now});
  }
  while (!pending_aborts_.empty() && (terminating_ || pending_aborts_.front().due <= now)) {
    PendingAbort& first = pending_aborts_.front();
    // Under load a killed peer can take a while between losing its memory (which made
    // the single-copy read fail) and becoming a zombie mpiexec can reap.
    if (!terminating_ && now < first.received + kAbortGraceLimit &&
        other_rank_dying(first.request.rank)) {
      first.due = now + kAbortGrace / 4;
      break;
    }
    AbortRequest request = std::move(first.request);
    pending_aborts_.erase(pending_aborts_.begin());
    if (terminating_) continue;
    int code = request.exit_code & 0xff;
    std::string cause = "rank " + std::to_string(request.rank) +
                        " called MPI_Abort(errorcode=" + std::to_string(request.exit_code) +
                        "): " + request.message;
    int others = live_ranks_except(request.rank);
    if (others > 0) cause += "; killing " + plural(others, "other rank");
    begin_termination(cause, code != 0 ? code : 1, request.rank);
  }
}

bool Job::other_rank_dying(int rank) const {
  for (int i = 0; i < static_cast<int>(ranks_.size()); ++i) {
    if (i != rank && ranks_[i].alive && process_dying(ranks_[i].pid)) return true;
  }
  return false;
}

bool Job::has_pending_abort(int rank) const {
  for (const PendingAbort& pending : pending_aborts_) {
    if (pending.request.rank == rank) return true;
  }
  return false;
}

void Job::reap() {
  int status = 0;
  pid_t pid;
  while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
    auto it = rank_of_pid_.find(pid);
    if (it != rank_of_pid_.end()) on_rank_exit(it->second, status);
  }
}

void Job::on_rank_exit(int rank, int status) {
  Rank& r = ranks_[rank];
  r.alive = false;
  --live_;
  // What the rank sent before it died comes first: an abort request explains its exit status,
  // and its last words belong before mpiexec's report.
  if (server_.fd(rank) >= 0) server_.on_readable(rank);
  handle_aborts();
  server_.close(rank);
  r.out.on_readable(kDrainReads);
  r.err.on_readable(kDrainReads);
  if (rank == 0) stdin_.close_sink();
  if (rank == culprit_) print_report();

  // An abort request explains this exit; it is reported when its grace time is over.
  if (terminating_ || has_pending_abort(rank)) return;
  std::string cause = "rank " + std::to_string(rank) + " (pid " + std::to_string(r.pid) + ") ";
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    // Exiting 0 is success only for a rank that finalized, or for a program that does not
    // use MPI at all (mpiexec -n 2 hostname): its peers would wait for it forever.
    switch (server_.phase(rank)) {
      case PmiPhase::finalized: return;
      case PmiPhase::initialized: cause += "exited with code 0 without calling MPI_Finalize"; break;
      case PmiPhase::unconnected:
        if (unconnected_exit_ < 0) unconnected_exit_ = rank;
        check_unconnected_exit();
        return;
    }
    if (live_ > 0) cause += "; killing " + plural(live_, "other rank");
    begin_termination(cause, 1, rank);
    return;
  }
  if (WIFSIGNALED(status)) {
    cause += "killed by signal " + signal_text(WTERMSIG(status));
    if (WCOREDUMP(status)) cause += " (core dumped)";
  } else {
    cause += "exited with code " + std::to_string(WEXITSTATUS(status));
  }
  if (live_ > 0) cause += "; killing " + plural(live_, "other rank");
  begin_termination(cause, shell_status(status), rank);
}

// A rank that exited 0 before MPI_Init (it never spoke PMI) is fine in a job that does not use
// MPI; once another rank of the job starts MPI, the missing rank is a failure.
void Job::check_unconnected_exit() {
  if (terminating_ || unconnected_exit_ < 0 || server_.connected_ranks() == 0) return;
  std::string cause = "rank " + std::to_string(unconnected_exit_) + " (pid " +
                      std::to_string(ranks_[unconnected_exit_].pid) +
                      ") exited with code 0 before MPI_Init while other ranks use MPI";
  if (live_ > 0) cause += "; killing " + plural(live_, "other rank");
  begin_termination(cause, 1, -1);
}

// When mpiexec's stdout or stderr is closed (mpiexec -n 2 yes | head -1), the job's output
// has nowhere to go: stop the job as a program killed by SIGPIPE would stop, silently.
void Job::check_output_closed() {
  if (terminating_) return;
  for (const Rank& r : ranks_) {
    if (r.out.target_closed() || r.err.target_closed()) {
      begin_termination("", 128 + SIGPIPE, -1);
      return;
    }
  }
}

// Without a working poll() the ranks cannot be served: kill them and wait for them.
void Job::abandon_loop(const std::string& reason) {
  begin_termination(reason + "; killing " + plural(live_, "rank"), 1, -1);
  signal_ranks(SIGKILL);
  sent_kill_ = true;
  int status = 0;
  pid_t pid;
  while (live_ > 0 && (pid = ::waitpid(-1, &status, 0)) > 0) {
    if (auto it = rank_of_pid_.find(pid); it != rank_of_pid_.end()) {
      ranks_[it->second].alive = false;
      --live_;
    }
  }
}

void Job::begin_termination(const std::string& cause, int exit_code, int culprit) {
  if (terminating_) return;
  terminating_ = true;
  exit_code_ = exit_code;
  report_ = cause.empty() ? std::string() : "mpiexec: " + cause + "\n";
  culprit_ = culprit;
  if (culprit < 0 || !ranks_[culprit].alive) print_report();
  signal_ranks(SIGTERM);
  kill_deadline_ = Clock::now() + kKillGrace;
}

// A rank that aborts is still alive: its report waits until its last output is forwarded.
void Job::print_report() {
  if (report_.empty()) return;
  (void)write_all(STDERR_FILENO, report_.data(), report_.size());
  report_.clear();
}

// Each rank leads its own process group (launcher.cc): the signal reaches the
// processes the rank started as well.
void Job::signal_ranks(int signal) {
  for (const Rank& r : ranks_) {
    if (r.alive && ::kill(-r.pid, signal) != 0) ::kill(r.pid, signal);
  }
}

int Job::live_ranks_except(int rank) const {
  int count = 0;
  for (int i = 0; i < static_cast<int>(ranks_.size()); ++i) {
    if (ranks_[i].alive && i != rank) ++count;
  }
  return count;
}

void Job::finish() {
  for (Rank& r : ranks_) {
    r.out.on_readable(kDrainReads);
    r.err.on_readable(kDrainReads);
  }
  stdin_.close_sink();
  print_report();
  // A job that was stopped leaves nothing running: processes a rank started
  // may outlive it (its group survives it) and still create segments.
  if (terminating_)
    for (const Rank& r : ranks_) ::kill(-r.pid, SIGKILL);
  int removed = remove_shm_segments(kvsname_);
  if (removed > 0 && !terminating_) {
    std::fprintf(stderr, "mpiexec: removed %s left behind by the job\n",
                 plural(removed, "shared-memory segment").c_str());
  }
}

}  // namespace stmpi::tools::mpiexec
