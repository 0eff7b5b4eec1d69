// mpiexec: starts the ranks of an MPI job on this node and serves them PMI-1.

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tools/mpiexec/job.h"
#include "tools/mpiexec/options.h"
#include "tools/mpiexec/session.h"

namespace {

// Descriptors 0-2 must be taken before any socket or pipe is created: a rank's channel that
// landed on one of them would be clobbered by the dup2() calls in the child.
void ensure_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) < 0) {
      int null_fd = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
      if (null_fd >= 0 && null_fd != fd) ::close(null_fd);
    }
  }
}

// Each rank costs mpiexec three or four descriptors; the default soft limit of 1024 would
// stop a job at about 250 ranks.
void raise_descriptor_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace stmpi::tools::mpiexec;
  ensure_standard_descriptors();
  // Debian's libfabric links libinfinipath (its psm provider), which installs crash handlers
  // in every rank at load time: a rank's SIGSEGV then printed "terminated with signal 11 ...
  // Backtrace" and left backtrace files in the working directory instead of dying by the
  // signal that mpiexec names. This variable (read by that library) turns them off, unless the
  // user set it.
  setenv("IPATH_NO_BACKTRACE", "1", 0);

  Options options;
  std::string error;
  // MPIEXEC_TIMEOUT: Hydra's variable for a job time limit, honoured the same way.
  switch (parse_options(argc, argv, std::getenv("MPIEXEC_TIMEOUT"), &options, &error)) {
    case ParseResult::help: print_usage(stdout); return 0;
    case ParseResult::version: print_version(stdout); return 0;
    case ParseResult::error:
      std::fprintf(stderr, "mpiexec: %s (see 'mpiexec --help')\n", error.c_str());
      return kUsageExitCode;
    case ParseResult::run: break;
  }
  raise_descriptor_limit();
  std::fflush(stdout);
  // The job runs in a session of its own (session.h); mpiexec's pid names it.
  const pid_t job_id = ::getpid();
  if (int status = start_job_session(&options, job_id); status != kRunJobHere) return status;
  Job job(options, job_id);
  return job.run();
}
