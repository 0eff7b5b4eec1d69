// MPI_Info_create_env (MPI 4.1 section 11.2.2): an info describing how this
// process was started, with the keys the standard reserves for it. Keys
// whose value is not known are left out, as the standard allows; the info
// is the same before MPI_Init, during and after MPI_Finalize.
#include <limits.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <string>

#include <mpi.h>

#include "mpi/info/impl_info.h"
#include "mpi/info/info.h"
#include "util/launcher_env.h"

namespace stmpi::impl {
int info_create_env(int argc, char* argv[], MPI_Info* info) {
  mpi::Info* env = mpi::info_create();
  // argv may be NULL (and argc 0) in C: then command and argv are unknown.
  if (argv != nullptr && argc > 0) {
    if (argv[0] != nullptr) env->set("command", argv[0]);
    std::string args;
    for (int i = 1; i < argc && argv[i] != nullptr; ++i) {
      if (i > 1) args += ' ';
      args += argv[i];
    }
    if (argc > 1) env->set("argv", args);
  }
  // The launcher's job size (PMI_SIZE), else a singleton.
  const char* size = util::launcher_env("PMI_SIZE");
  env->set("maxprocs", size != nullptr ? size : "1");
  if (char host[HOST_NAME_MAX + 1] = {}; gethostname(host, sizeof(host) - 1) == 0)
    env->set("host", host);
  if (struct utsname names{}; uname(&names) == 0) env->set("arch", names.machine);
  if (char dir[PATH_MAX] = {}; getcwd(dir, sizeof(dir)) != nullptr) env->set("wdir", dir);
  // thread_level is "the requested level of thread support, if requested
  // before the program started execution": the launcher has no way to
  // request one, so the key is absent, before MPI_Init and after it alike.
  *info = env->handle;
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
