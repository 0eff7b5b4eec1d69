// MPI_Init/Finalize and the environment queries of the MPI chapter
// "Environmental management".
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "config.h"
#include "device/device.h"
#include "mpi/coll/impl_coll.h"
#include "mpi/coll/op.h"
#include "mpi/comm/attr.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/enqueue/channel.h"
#include "mpi/errhan/errhandler.h"
#include "mpi/errhan/error.h"
#include "mpi/init/impl_env.h"
#include "mpi/init/state.h"
#include "mpi/io/io.h"
#include "mpi/mpix/mpis.h"
#include "mpi/request/request.h"
#include "mpi/rma/rma.h"
#include "pmi/client.h"
#include "stream/settings.h"
#include "stream/staging.h"
#include "util/param.h"

namespace stmpi::mpi {
namespace {

std::thread::id g_main_thread;

}  // namespace

int library_start(int required) {
  ProcessState& state = g_process_state;
  const int level = required < MPI_THREAD_SINGLE     ? MPI_THREAD_SINGLE
                    : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                                     : required;
  if (state.library_up) {
    if (level > state.thread_level) state.thread_level = level;
    util::set_lock_shared_by_threads(state.thread_level == MPI_THREAD_MULTIPLE);
    return MPI_SUCCESS;
  }
  std::string param_error;
  if (!util::load_all(&param_error)) {
    fprintf(stderr, "STMPI: %s\n", param_error.c_str());
    return errhan::make_error(MPI_ERR_OTHER, "%s", param_error.c_str());
  }
  pmi::Client& pmi = pmi::client();
  if (pmi.init() != 0) {
    fprintf(stderr, "STMPI: cannot reach the process manager: %s\n", pmi.error().c_str());
    return errhan::make_error(MPI_ERR_OTHER, "PMI init failed: %s", pmi.error().c_str());
  }
  datatype_init_predefined();
  op_init_predefined();
  errhan::init_predefined();
  if (int err = dev::init(pmi); err != MPI_SUCCESS) {
    fprintf(stderr, "STMPI: rank %d: %s\n", pmi.rank(), errhan::error_string(err).c_str());
    return err;
  }
  util::set_yield(&wait_yield);
  comm_init_world(pmi.rank(), pmi.size());
  attr_set_appnum(pmi.appnum());
  stream::set_ranks_on_node(dev::ranks_on_node());
  state.thread_level = level;
  util::set_lock_shared_by_threads(level == MPI_THREAD_MULTIPLE);
  state.library_up = true;
  return MPI_SUCCESS;
}

int library_stop_if_unused() {
  ProcessState& state = g_process_state;
  if (!state.library_up || state.initialized || state.sessions > 0) return MPI_SUCCESS;
  // Every rank arrives before anyone tears down shared memory.
  if (int err = impl::barrier_any(*comm_world(), coll::Mode::kBlocking, nullptr);
      err != MPI_SUCCESS)
    return err;
  rma::finalize();
  io::finalize();
  request_reap_detached();
  if (int err = dev::finalize(); err != MPI_SUCCESS) return err;
  request_release_detached();
  comm_finalize_world();
  request_pool_release();
  stream::free_staging_pool();
  enqueue::free_channels();
  (void)pmi::client().finalize();
  state.library_up = false;
  return MPI_SUCCESS;
}

std::mutex& global_mutex() {
  // Never destroyed: a thread may still be inside MPI while the process exits.
  static std::mutex* const mutex = new std::mutex;
  return *mutex;
}

void wait_yield() {
  // Calls hold the lock under MPI_THREAD_MULTIPLE (or once an MPIX_Stream
  // exists), in the World and the Sessions Model alike; a thread that waits
  // outside a call (a host stream's synchronize) holds nothing to release.
  if (g_process_state.library_up && t_holds_global_lock) {
    std::mutex& lock = global_mutex();
    lock.unlock();
    sched_yield();
    lock.lock();
  } else {
    sched_yield();
  }
}

}  // namespace stmpi::mpi

namespace stmpi::impl {
namespace {

mpi::ProcessState& g_state = mpi::g_process_state;

}  // namespace

// MPI_Init (required MPI_THREAD_SINGLE, provided null) and MPI_Init_thread.
int init_any(int* /*argc*/, char*** /*argv*/, int required, int* provided) {
  if (g_state.initialized || g_state.finalized)
    return mpi::errhan::make_error(MPI_ERR_OTHER, g_state.finalized
                                                      ? "MPI was already finalized"
                                                      : "MPI was already initialized");
  if (int err = mpi::library_start(required); err != MPI_SUCCESS) return err;
  mpi::g_main_thread = std::this_thread::get_id();
  g_state.initialized = true;
  if (provided != nullptr) *provided = g_state.thread_level;
  return MPI_SUCCESS;
}

int finalize() {
  // MPI runs COMM_SELF's attribute delete callbacks first, while MPI still works.
  if (int err = mpi::comm_delete_self_attributes(); err != MPI_SUCCESS) return err;
  if (int err = mpis_finalize(); err != MPI_SUCCESS) return err;
  g_state.finalized = true;
  g_state.initialized = false;
  return mpi::library_stop_if_unused();
}

int initialized(int* flag) {
  *flag = g_state.initialized || g_state.finalized;
  return MPI_SUCCESS;
}

int finalized(int* flag) {
  *flag = g_state.finalized;
  return MPI_SUCCESS;
}

int abort(mpi::Comm& comm, int errorcode) {
  char message[128];
  snprintf(message, sizeof message, "MPI_Abort(comm=0x%x, errorcode=%d) on rank %d",
           static_cast<unsigned>(comm.handle), errorcode, dev::world_rank());
  pmi::client().abort(errorcode, message);
}

int query_thread(int* provided) {
  *provided = g_state.thread_level;
  return MPI_SUCCESS;
}

int is_thread_main(int* flag) {
  *flag = std::this_thread::get_id() == mpi::g_main_thread;
  return MPI_SUCCESS;
}

int get_version(int* version, int* subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

int get_library_version(char* version, int* resultlen) {
  const int n =
      snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "STMPI %s (MPI %d.%d, MPICH ABI; %s)",
               PACKAGE_VERSION, MPI_VERSION, MPI_SUBVERSION, STMPI_BUILD_OPTIONS);
  *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
  return MPI_SUCCESS;
}

int get_processor_name(char* name, int* resultlen) {
  if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0)
    return mpi::errhan::make_error(MPI_ERR_OTHER, "gethostname failed: %s", strerror(errno));
  name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
  *resultlen = static_cast<int>(strlen(name));
  return MPI_SUCCESS;
}

double wtime() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

double wtick() {
  timespec resolution;
  clock_getres(CLOCK_MONOTONIC, &resolution);
  return static_cast<double>(resolution.tv_sec) + 1e-9 * static_cast<double>(resolution.tv_nsec);
}

namespace {

// Blocks handed out by MPI_Alloc_mem, so that MPI_Free_mem can refuse any
// other pointer instead of passing it to free(). Guarded by the global lock.
std::unordered_set<void*>& allocated_memory() {
  static auto* blocks = new std::unordered_set<void*>;
  return *blocks;
}

}  // namespace

int alloc_mem(MPI_Aint size, MPI_Info /*info*/, void* baseptr) {
  if (size < 0)
    return mpi::errhan::make_error(MPI_ERR_SIZE, "size=%ld must be non-negative",
                                   static_cast<long>(size));
  void* memory = std::malloc(size == 0 ? 1 : static_cast<std::size_t>(size));
  if (memory == nullptr)
    return mpi::errhan::make_error(MPI_ERR_NO_MEM, "cannot allocate %ld bytes",
                                   static_cast<long>(size));
  *static_cast<void**>(baseptr) = memory;
  allocated_memory().insert(memory);
  return MPI_SUCCESS;
}

int free_mem(void* base) {
  if (base == nullptr) return MPI_SUCCESS;
  if (allocated_memory().erase(base) == 0)
    return mpi::errhan::make_error(MPI_ERR_BASE, "base=%p was not returned by MPI_Alloc_mem", base);
  std::free(base);
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
