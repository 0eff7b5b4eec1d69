// Process creation and management (MPI 4.1 chapter 11.8-11.10): spawning,
// ports, name publishing and MPI_Comm_join are not provided yet. The calls
// exist so that programs link; each returns MPI_ERR_SPAWN (spawn) or
// MPI_ERR_UNSUPPORTED_OPERATION (the others) with a message saying so.
// MPI_Comm_get_parent is MPI_COMM_NULL: no process was spawned.
// MPI_Comm_disconnect works on any communicator: it waits for the pending
// operations of the process on it (none may be left, as MPI requires of a
// correct program) and frees it.
#include <mpi.h>

#include "mpi/coll/impl_coll.h"
#include "mpi/comm/comm.h"
#include "mpi/comm/impl_comm_group.h"
#include "mpi/dynamic/impl_dynamic.h"
#include "mpi/errhan/error.h"

namespace stmpi::impl {
namespace {

using mpi::errhan::make_error;

int unsupported(const char* function) {
  return make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                    "%s: dynamic process management (ports, connect/accept, name publishing, "
                    "join) is not provided by this MPI library yet",
                    function);
}

int no_spawn(const char* function, int maxprocs, int* errcodes) {
  const int code = make_error(
      MPI_ERR_SPAWN, "%s: spawning processes is not provided by this MPI library yet", function);
  if (errcodes != MPI_ERRCODES_IGNORE)
    for (int i = 0; i < maxprocs; ++i) errcodes[i] = code;
  return code;
}

}  // namespace

int comm_spawn(const char* /*command*/, char** /*argv*/, int maxprocs, MPI_Info /*info*/,
               int /*root*/, mpi::Comm& /*comm*/, MPI_Comm* intercomm, int array_of_errcodes[]) {
  *intercomm = MPI_COMM_NULL;
  return no_spawn("MPI_Comm_spawn", maxprocs, array_of_errcodes);
}

int comm_spawn_multiple(int count, char** /*array_of_commands*/, char** /*array_of_argv*/[],
                        const int array_of_maxprocs[], const MPI_Info /*array_of_info*/[],
                        int /*root*/, mpi::Comm& /*comm*/, MPI_Comm* intercomm,
                        int array_of_errcodes[]) {
  int total = 0;
  for (int i = 0; array_of_maxprocs != nullptr && i < count; ++i)
    if (array_of_maxprocs[i] > 0) total += array_of_maxprocs[i];
  *intercomm = MPI_COMM_NULL;
  return no_spawn("MPI_Comm_spawn_multiple", total, array_of_errcodes);
}

int comm_get_parent(MPI_Comm* parent) {
  *parent = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int open_port(MPI_Info /*info*/, char* /*port_name*/) { return unsupported("MPI_Open_port"); }
int close_port(const char* /*port_name*/) { return unsupported("MPI_Close_port"); }
int comm_accept(const char* /*port_name*/, MPI_Info /*info*/, int /*root*/, mpi::Comm& /*comm*/,
                MPI_Comm* newcomm) {
  *newcomm = MPI_COMM_NULL;
  return unsupported("MPI_Comm_accept");
}
int comm_connect(const char* /*port_name*/, MPI_Info /*info*/, int /*root*/, mpi::Comm& /*comm*/,
                 MPI_Comm* newcomm) {
  *newcomm = MPI_COMM_NULL;
  return unsupported("MPI_Comm_connect");
}
int publish_name(const char* /*service_name*/, MPI_Info /*info*/, const char* /*port_name*/) {
  return unsupported("MPI_Publish_name");
}
int unpublish_name(const char* /*service_name*/, MPI_Info /*info*/, const char* /*port_name*/) {
  return unsupported("MPI_Unpublish_name");
}
int lookup_name(const char* /*service_name*/, MPI_Info /*info*/, char* /*port_name*/) {
  return unsupported("MPI_Lookup_name");
}
int comm_join(int /*fd*/, MPI_Comm* intercomm) {
  *intercomm = MPI_COMM_NULL;
  return unsupported("MPI_Comm_join");
}

int comm_disconnect(MPI_Comm* comm) {
  // Collective in MPI; a barrier gives the same "everyone is done" point
  // before the communicator goes away.
  mpi::Comm* object = mpi::comm_get(*comm);
  if (object != nullptr && !object->is_inter() && !object->predefined) {
    if (int err = barrier_any(*object, mpi::coll::Mode::kBlocking, nullptr); err != MPI_SUCCESS)
      return err;
  }
  return comm_free(comm);
}

}  // namespace stmpi::impl
