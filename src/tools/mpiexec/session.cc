#include "tools/mpiexec/session.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "tools/mpiexec/launcher.h"
#include "tools/mpiexec/output.h"

namespace stmpi::tools::mpiexec {

namespace {

// The signals mpiexec passes on to the launcher; job.cc ends the job on each of them.
constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// Sets the nice value of the calling process's autogroup. False only when the kernel refuses
// it for want of privilege; without autogroups there is nothing to set (true).
// Without CAP_SYS_ADMIN the kernel takes one autogroup nice change per 100 ms, machine-wide,
// and answers EAGAIN in between (two jobs started together, or a check just before): retry
// for up to half a second.
bool set_group_nice(int nice) {
  if (nice == 0) return true;
  const int fd = ::open("/proc/self/autogroup", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return true;
  char text[16];
  const int length = std::snprintf(text, sizeof text, "%d", nice);
  bool done = false;
  for (int attempt = 0; attempt < 25; ++attempt) {
    done = ::write(fd, text, static_cast<std::size_t>(length)) == length;
    if (done || errno != EAGAIN) break;
    ::usleep(20 * 1000);
  }
  const bool refused = !done && (errno == EPERM || errno == EACCES);
  ::close(fd);
  return !refused;
}

// In the launcher: joins the new session and takes the relay pipe as stdin.
int become_launcher(Options* options, pid_t mpiexec_pid, int relay_read, int relay_write,
                    const sigset_t& mask) {
  // mpiexec killed with SIGKILL: the launcher ends the job as on SIGTERM (the ranks get
  // SIGTERM, then SIGKILL, and their segments are removed).
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != mpiexec_pid) ::_exit(1);
  ::setsid();  // cannot fail: a fresh child leads no process group
  const int nice = options->session_nice.value_or(session_nice_for(options->nprocs));
  if (!set_group_nice(nice) && !options->session_nice.has_value()) options->session_per_rank = true;
  ::close(relay_write);
  if (relay_read != STDIN_FILENO) {
    ::dup2(relay_read, STDIN_FILENO);
    ::close(relay_read);
  }
  ::sigprocmask(SIG_SETMASK, &mask, nullptr);
  return kRunJobHere;
}

// The status mpiexec reports for the launcher's end.
int launcher_status(pid_t launcher, int status, pid_t job_id) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  const int signal = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
  // The ranks die with the launcher (their parent-death signal); their segments remain.
  remove_shm_segments(kvsname_of(job_id));
  const char* name = ::strsignal(signal);
  std::fprintf(stderr,
               "mpiexec: the launcher (pid %d) was killed by signal %d (%s); the ranks end "
               "with it\n",
               static_cast<int>(launcher), signal, name != nullptr ? name : "unknown signal");
  return 128 + signal;
}

// In mpiexec: forwards signals and stdin until the launcher ends.
int serve_launcher(pid_t launcher, int signal_fd, int relay_write, pid_t job_id) {
  // Writing to a launcher that is gone must not kill mpiexec; reading stdin in the background
  // of a terminal fails with EIO (the relay ends) instead of stopping mpiexec.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGPIPE, &ignore, nullptr);
  ::sigaction(SIGTTIN, &ignore, nullptr);
  StdinForwarder relay;
  relay.start(STDIN_FILENO, relay_write);
  while (true) {
    pollfd fds[3];
    nfds_t count = 0;
    fds[count++] = pollfd{signal_fd, POLLIN, 0};
    const nfds_t source = relay.wants_read() ? count++ : 0;
    if (source != 0) fds[source] = pollfd{relay.source_fd(), POLLIN, 0};
    const nfds_t sink = relay.wants_write() ? count++ : 0;
    if (sink != 0) fds[sink] = pollfd{relay.sink_fd(), POLLOUT, 0};
    if (::poll(fds, count, -1) < 0 && errno != EINTR) {
      // Without poll() nothing can be relayed; the launcher still ends the job.
      relay.close_sink();
      int status = 0;
      while (::waitpid(launcher, &status, 0) < 0 && errno == EINTR) {
      }
      return launcher_status(launcher, status, job_id);
    }
    if (source != 0 && fds[source].revents != 0) relay.on_source_readable();
    if (sink != 0 && (fds[sink].revents & (POLLERR | POLLHUP)) != 0) {
      relay.close_sink();
    } else if (sink != 0 && fds[sink].revents != 0) {
      relay.on_sink_writable();
    }
    if (fds[0].revents == 0) continue;
    signalfd_siginfo info;
    while (::read(signal_fd, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      if (info.ssi_signo != SIGCHLD) ::kill(launcher, static_cast<int>(info.ssi_signo));
    }
    int status = 0;
    if (::waitpid(launcher, &status, WNOHANG) == launcher) {
      relay.close_sink();
      return launcher_status(launcher, status, job_id);
    }
  }
}

}  // namespace

int session_nice_for(int nprocs) {
  if (nprocs <= 1) return 0;
  const long nice = std::lround(std::log(static_cast<double>(nprocs)) / std::log(1.25));
  return static_cast<int>(-std::min(nice, 20L));
}

int start_job_session(Options* options, pid_t job_id) {
  sigset_t watched;
  sigemptyset(&watched);
  sigaddset(&watched, SIGCHLD);
  for (int signal : kForwardedSignals) sigaddset(&watched, signal);
  sigset_t inherited;
  if (::sigprocmask(SIG_BLOCK, &watched, &inherited) != 0) {
    std::fprintf(stderr, "mpiexec: cannot block signals: %s\n", std::strerror(errno));
    return 1;
  }
  int relay[2];
  if (::pipe2(relay, O_CLOEXEC) != 0) {
    std::fprintf(stderr, "mpiexec: cannot create the stdin pipe: %s\n", std::strerror(errno));
    return 1;
  }
  const pid_t mpiexec_pid = ::getpid();
  std::fflush(nullptr);
  const pid_t launcher = ::fork();
  if (launcher < 0) {
    std::fprintf(stderr, "mpiexec: cannot fork the launcher: %s\n", std::strerror(errno));
    return 1;
  }
  if (launcher == 0) return become_launcher(options, mpiexec_pid, relay[0], relay[1], inherited);
  ::close(relay[0]);
  const int signal_fd = ::signalfd(-1, &watched, SFD_CLOEXEC | SFD_NONBLOCK);
  if (signal_fd < 0) {
    // Signals cannot be forwarded; the launcher is not left behind.
    std::fprintf(stderr, "mpiexec: cannot create a signalfd: %s\n", std::strerror(errno));
    ::kill(launcher, SIGTERM);
    ::close(relay[1]);
    int status = 0;
    while (::waitpid(launcher, &status, 0) < 0 && errno == EINTR) {
    }
    return 1;
  }
  return serve_launcher(launcher, signal_fd, relay[1], job_id);
}

}  // namespace stmpi::tools::mpiexec
