#include "tools/mpiexec/launcher.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "config.h"
#include "util/shm_segment.h"

#ifdef STMPI_HAVE_HWLOC
#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#endif

extern char** environ;

namespace stmpi::tools::mpiexec {

namespace {

constexpr const char* default_path = "/usr/local/bin:/usr/bin:/bin";

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

void set_variable(std::vector<std::string>* environment, const std::string& name,
                  const std::string& value) {
  std::string prefix = name + "=";
  for (std::string& entry : *environment) {
    if (entry.starts_with(prefix)) {
      entry = prefix + value;
      return;
    }
  }
  environment->push_back(prefix + value);
}

// Closes the descriptors it holds unless released: spawn() has many early exits.
class FdGuard {
 public:
  FdGuard() = default;
  FdGuard(const FdGuard&) = delete;
  FdGuard& operator=(const FdGuard&) = delete;
  ~FdGuard() {
    for (int fd : fds_) ::close(fd);
  }
  int add(int fd) {
    if (fd >= 0) fds_.push_back(fd);
    return fd;
  }
  void release() { fds_.clear(); }

 private:
  std::vector<int> fds_;
};

// Each CPU mpiexec may run on, as one slot. Without hwloc, hardware threads of one core are
// not told apart, so -bind-to core and hwthread behave the same.
bool affinity_slots(std::vector<cpu_set_t>* slots) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return false;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    slots->push_back(one);
  }
  return !slots->empty();
}

#ifdef STMPI_HAVE_HWLOC
bool hwloc_slots(BindPolicy policy, std::vector<cpu_set_t>* slots) {
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) != 0) return false;
  if (hwloc_topology_load(topology) == 0) {
    hwloc_obj_type_t type = policy == BindPolicy::core ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
    int count = hwloc_get_nbobjs_by_type(topology, type);
    for (int i = 0; i < count; ++i) {
      hwloc_obj_t object = hwloc_get_obj_by_type(topology, type, static_cast<unsigned>(i));
      cpu_set_t set;
      CPU_ZERO(&set);
      if (object != nullptr &&
          hwloc_cpuset_to_glibc_sched_affinity(topology, object->cpuset, &set, sizeof set) == 0 &&
          CPU_COUNT(&set) > 0) {
        slots->push_back(set);
      }
    }
  }
  hwloc_topology_destroy(topology);
  return !slots->empty();
}
#endif

}  // namespace

Launcher::Launcher(const Options& options, const ChildSignalState& child_signals)
    : options_(options), child_signals_(child_signals), launcher_pid_(::getpid()) {}

bool Launcher::prepare(std::string* error) {
  // mpiexec is a launcher, not the library: passing its environment on is its job. PMI_*
  // variables of an enclosing job would confuse the ranks, so they are not passed on.
  std::vector<std::string> common;
  if (options_.inherit_env) {
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      if (!std::string_view(*entry).starts_with("PMI_")) common.emplace_back(*entry);
    }
  }
  for (const auto& [name, value] : options_.env) set_variable(&common, name, value);
  programs_.resize(options_.apps.size());
  for (std::size_t i = 0; i < options_.apps.size(); ++i) {
    programs_[i].environment = common;
    if (!prepare_program(options_.apps[i], &programs_[i], error)) return false;
  }
  return find_cpu_slots(error);
}

bool Launcher::prepare_program(const App& app, Program* program, std::string* error) {
  for (const auto& [name, value] : app.env) set_variable(&program->environment, name, value);
  program->wdir = app.wdir.empty() ? options_.wdir : app.wdir;
  if (!program->wdir.empty()) {
    struct stat st {};
    if (::stat(program->wdir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      *error =
          "-wdir '" + program->wdir + "': " +
          (::access(program->wdir.c_str(), F_OK) == 0 ? "not a directory" : std::strerror(errno));
      return false;
    }
    // The shell variable follows the directory, as under Hydra.
    char resolved[PATH_MAX];
    if (::realpath(program->wdir.c_str(), resolved) != nullptr)
      set_variable(&program->environment, "PWD", resolved);
  }
  return find_program(app, program, error);
}

// Looks the program up in the PATH the ranks will see, as execvp() in the rank would; a
// relative path with a '/' starts from the program's working directory.
bool Launcher::find_program(const App& app, Program* program, std::string* error) {
  const std::string& name = app.command.front();
  if (name.find('/') != std::string::npos) {
    const std::string seen_from_here =
        name.front() == '/' || program->wdir.empty() ? name : program->wdir + "/" + name;
    if (!is_executable_file(seen_from_here)) {
      *error =
          "cannot execute '" + name + "'" +
          (seen_from_here != name ? " in -wdir '" + program->wdir + "'" : "") + ": " +
          (::access(seen_from_here.c_str(), F_OK) == 0 ? "not an executable file" : "no such file");
      return false;
    }
    program->path = name;  // exec'd after chdir(wdir)
    return true;
  }
  std::string_view path = default_path;
  for (const std::string& entry : program->environment) {
    if (entry.starts_with("PATH=")) path = std::string_view(entry).substr(5);
  }
  while (true) {
    std::size_t colon = path.find(':');
    std::string dir(path.substr(0, colon));
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (is_executable_file(candidate)) {
      // A relative PATH entry was found from mpiexec's directory: keep it absolute.
      char resolved[PATH_MAX];
      program->path = candidate.front() != '/' && ::realpath(candidate.c_str(), resolved)
                          ? std::string(resolved)
                          : candidate;
      return true;
    }
    if (colon == std::string_view::npos) break;
    path.remove_prefix(colon + 1);
  }
  *error = "program '" + name + "' not found in PATH";
  return false;
}

// Without -bind-to, ranks are bound to cores when each gets a core of its own: a rank
// that stays on its core keeps its caches and its peer's messages warm, and two ranks
// polling each other are never queued on one core while another sits idle. One rank gains
// nothing from binding, and oversubscribed ranks must be free to move.
bool Launcher::find_cpu_slots(std::string* error) {
  if (options_.bind == BindPolicy::none) return true;
  const bool automatic = options_.bind == BindPolicy::automatic;
  if (automatic && options_.nprocs < 2) return true;
  const BindPolicy policy = automatic ? BindPolicy::core : options_.bind;
  bool found = false;
#ifdef STMPI_HAVE_HWLOC
  found = hwloc_slots(policy, &cpu_slots_);
#endif
  if (!found) found = affinity_slots(&cpu_slots_);
  if (automatic) {
    if (!found || cpu_slots_.size() < static_cast<std::size_t>(options_.nprocs)) cpu_slots_.clear();
    return true;
  }
  if (found) return true;
  *error = "cannot determine the CPUs to bind to: " + std::string(std::strerror(errno));
  return false;
}

bool Launcher::spawn(int rank, SpawnedRank* spawned, std::string* error) {
  FdGuard parent_ends;
  FdGuard child_ends;
  auto channel_error = [&](const char* channel) {
    *error = "cannot create the " + std::string(channel) + " of rank " + std::to_string(rank) +
             ": " + std::strerror(errno);
    return false;
  };
  int pmi[2];
  int out[2];
  int err[2];
  int in[2] = {-1, -1};
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pmi) != 0) {
    return channel_error("PMI socket");
  }
  parent_ends.add(pmi[0]);
  child_ends.add(pmi[1]);
  if (::pipe2(out, O_CLOEXEC) != 0) return channel_error("stdout pipe");
  parent_ends.add(out[0]);
  child_ends.add(out[1]);
  if (::pipe2(err, O_CLOEXEC) != 0) return channel_error("stderr pipe");
  parent_ends.add(err[0]);
  child_ends.add(err[1]);
  if (rank == 0) {
    if (::pipe2(in, O_CLOEXEC) != 0) return channel_error("stdin pipe");
    parent_ends.add(in[1]);
  } else {
    in[0] = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in[0] < 0) return channel_error("stdin (/dev/null)");
  }
  child_ends.add(in[0]);

  // Everything the child needs is built before fork().
  const int app = options_.app_of(rank);
  const Program& program = programs_[static_cast<std::size_t>(app)];
  std::vector<std::string> environment = program.environment;
  set_variable(&environment, "PMI_RANK", std::to_string(rank));
  set_variable(&environment, "PMI_SIZE", std::to_string(options_.nprocs));
  set_variable(&environment, "PMI_FD", std::to_string(pmi[1]));
  std::vector<char*> envp;
  for (std::string& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<std::string> arguments = options_.apps[static_cast<std::size_t>(app)].command;
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  const cpu_set_t* cpus = cpu_slots_.empty()
                              ? nullptr
                              : &cpu_slots_[static_cast<std::size_t>(rank) % cpu_slots_.size()];
  char exec_failure[512];
  std::snprintf(exec_failure, sizeof exec_failure, "mpiexec: rank %d: cannot execute '%s': ", rank,
                program.path.c_str());
  char chdir_failure[512];
  std::snprintf(chdir_failure, sizeof chdir_failure,
                "mpiexec: rank %d: cannot enter -wdir '%s': ", rank, program.wdir.c_str());
  const char* wdir = program.wdir.empty() ? nullptr : program.wdir.c_str();
  const char* path = program.path.c_str();
  const bool per_rank_session = options_.session_per_rank;

  pid_t pid = ::fork();
  if (pid < 0) {
    *error = "cannot fork rank " + std::to_string(rank) + ": " + std::strerror(errno);
    return false;
  }
  if (pid == 0) {
    // A rank must not outlive the launcher, even one killed with SIGKILL (and the launcher
    // does not outlive mpiexec: session.h).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != launcher_pid_) ::_exit(127);
    // Its own process group inside the job's session (session.h), or a session of its own
    // where the job's group could not be weighted: ending the job reaches what the rank
    // started too (job.cc signals the group). Both sides set the group, so that it exists
    // before either goes on (not for setsid(), which a group leader may not call).
    if (per_rank_session) {
      ::setsid();
    } else {
      ::setpgid(0, 0);
    }
    if (::dup2(in[0], 0) < 0 || ::dup2(out[1], 1) < 0 || ::dup2(err[1], 2) < 0) ::_exit(127);
    ::fcntl(pmi[1], F_SETFD, 0);  // the only descriptor besides 0-2 that survives exec
    ::sigaction(SIGPIPE, &child_signals_.pipe_action, nullptr);
    ::sigaction(SIGTTIN, &child_signals_.ttin_action, nullptr);
    ::sigprocmask(SIG_SETMASK, &child_signals_.mask, nullptr);
    if (cpus != nullptr) ::sched_setaffinity(0, sizeof *cpus, cpus);
    const bool entered = wdir == nullptr || ::chdir(wdir) == 0;
    if (entered) ::execve(path, argv.data(), envp.data());
    int saved = errno;
    const char* reason = std::strerror(saved);
    const char* failure = entered ? exec_failure : chdir_failure;
    (void)!::write(2, failure, std::strlen(failure));
    (void)!::write(2, reason, std::strlen(reason));
    (void)!::write(2, "\n", 1);
    ::_exit(127);
  }

  if (!per_rank_session) ::setpgid(pid, pid);  // EACCES after exec: the rank set it itself
  spawned->pid = pid;
  spawned->pmi_fd = pmi[0];
  spawned->stdout_fd = out[0];
  spawned->stderr_fd = err[0];
  spawned->stdin_fd = rank == 0 ? in[1] : -1;
  parent_ends.release();
  return true;
}

std::string kvsname_of(pid_t job_id) { return "kvs_" + std::to_string(job_id) + "_0"; }

int remove_shm_segments(const std::string& kvsname) {
  const std::string prefix = util::shm_segment_prefix(kvsname);
  DIR* dir = ::opendir("/dev/shm");
  if (dir == nullptr) return 0;
  int removed = 0;
  while (dirent* entry = ::readdir(dir)) {
    if (std::string_view(entry->d_name).starts_with(prefix) &&
        ::unlinkat(::dirfd(dir), entry->d_name, 0) == 0) {
      ++removed;
    }
  }
  ::closedir(dir);
  return removed;
}

}  // namespace stmpi::tools::mpiexec
