// Performance variables and their sessions: the statistics modules register
// (util/pvar.h), as MPI_UNSIGNED_LONG_LONG, bound to no object.
//   counter                  readonly=0 continuous=0 atomic=1: a handle counts
//                            only while started (it starts stopped), reset
//                            sets it to 0, write to a value; the library's
//                            own counter is never changed, so sessions and
//                            handles do not disturb each other
//   level, highwatermark     readonly=1 continuous=1: the value now (the
//                            highest so far); start/stop is
//                            MPI_T_ERR_PVAR_NO_STARTSTOP, reset and write
//                            MPI_T_ERR_PVAR_NO_WRITE
#include <cstdint>
#include <memory>
#include <unordered_set>
#include <vector>

#include "mpi/tools/impl_tools.h"
#include "mpi/tools/tools.h"

struct STMPI_T_pvar_handle_s {
  int index = 0;
  MPI_T_pvar_session session = nullptr;
  bool started = false;
  uint64_t counted = 0;    // while started before the last start
  uint64_t start_raw = 0;  // the library's value at the last start (or reset/write)
};

struct STMPI_T_pvar_session_s {
  std::vector<std::unique_ptr<STMPI_T_pvar_handle_s>> handles;
};

namespace {
STMPI_T_pvar_handle_s g_all_handles_marker;
}  // namespace

extern "C" __attribute__((visibility("default")))
STMPI_T_pvar_handle_s* const MPI_T_PVAR_ALL_HANDLES = &g_all_handles_marker;

namespace stmpi::mpi::tools {
namespace {

std::unordered_set<MPI_T_pvar_session>& sessions() {
  static std::unordered_set<MPI_T_pvar_session> all;
  return all;
}

const Pvar* pvar_at(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= pvars().size()) return nullptr;
  return &pvars()[static_cast<std::size_t>(index)];
}

bool is_counter(const Pvar& pvar) { return pvar.pvar->var_class == util::Pvar::Class::kCounter; }

int class_of(const util::Pvar& pvar) {
  switch (pvar.var_class) {
    case util::Pvar::Class::kLevel: return MPI_T_PVAR_CLASS_LEVEL;
    case util::Pvar::Class::kCounter: return MPI_T_PVAR_CLASS_COUNTER;
    case util::Pvar::Class::kHighwatermark: return MPI_T_PVAR_CLASS_HIGHWATERMARK;
  }
  return MPI_T_PVAR_CLASS_INVALID;
}

uint64_t raw(const STMPI_T_pvar_handle_s& handle) {
  return pvars()[static_cast<std::size_t>(handle.index)].pvar->read();
}

uint64_t value(const STMPI_T_pvar_handle_s& handle) {
  if (!is_counter(pvars()[static_cast<std::size_t>(handle.index)])) return raw(handle);
  return handle.counted + (handle.started ? raw(handle) - handle.start_raw : 0);
}

// The session's handle, or nullptr (also for MPI_T_PVAR_ALL_HANDLES).
STMPI_T_pvar_handle_s* handle_in(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  if (handle == nullptr || handle == MPI_T_PVAR_ALL_HANDLES) return nullptr;
  for (const std::unique_ptr<STMPI_T_pvar_handle_s>& h : session->handles)
    if (h.get() == handle) return h.get();
  return nullptr;
}

// What start, stop and reset share: the checks, and MPI_T_PVAR_ALL_HANDLES
// (which skips the handles the operation does not apply to).
template <class Apply>
int for_handles(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int refused, Apply&& apply) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (session == nullptr || !sessions().contains(session)) return MPI_T_ERR_INVALID_SESSION;
  if (handle == MPI_T_PVAR_ALL_HANDLES) {
    for (const std::unique_ptr<STMPI_T_pvar_handle_s>& h : session->handles)
      if (is_counter(pvars()[static_cast<std::size_t>(h->index)])) apply(*h);
    return MPI_SUCCESS;
  }
  STMPI_T_pvar_handle_s* h = handle_in(session, handle);
  if (h == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  if (!is_counter(pvars()[static_cast<std::size_t>(h->index)])) return refused;
  apply(*h);
  return MPI_SUCCESS;
}

// The checks of read, write and readreset; the handle or an error code.
int one_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void* buf,
               STMPI_T_pvar_handle_s** out) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (session == nullptr || !sessions().contains(session)) return MPI_T_ERR_INVALID_SESSION;
  *out = handle_in(session, handle);
  if (*out == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  if (buf == nullptr) return MPI_T_ERR_INVALID;
  return MPI_SUCCESS;
}

void set_value(STMPI_T_pvar_handle_s& h, uint64_t to) {
  h.counted = to;
  h.start_raw = raw(h);
}

}  // namespace

void free_pvar_sessions() {
  for (MPI_T_pvar_session session : sessions()) delete session;
  sessions().clear();
}

}  // namespace stmpi::mpi::tools

namespace stmpi::impl {

using mpi::tools::initialized;
using mpi::tools::mutex;
namespace tools = mpi::tools;

int t_pvar_get_num(int* num_pvar) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (num_pvar == nullptr) return MPI_T_ERR_INVALID;
  *num_pvar = static_cast<int>(tools::pvars().size());
  return MPI_SUCCESS;
}

int t_pvar_get_info(int pvar_index, char* name, int* name_len, int* verbosity, int* var_class,
                    MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len,
                    int* bind, int* readonly, int* continuous, int* atomic) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  const tools::Pvar* pvar = tools::pvar_at(pvar_index);
  if (pvar == nullptr) return MPI_T_ERR_INVALID_INDEX;
  const bool counter = tools::is_counter(*pvar);
  tools::copy_string(pvar->name, name, name_len);
  if (verbosity != nullptr) *verbosity = MPI_T_VERBOSITY_TUNER_BASIC;
  if (var_class != nullptr) *var_class = tools::class_of(*pvar->pvar);
  if (datatype != nullptr) *datatype = MPI_UNSIGNED_LONG_LONG;
  if (enumtype != nullptr) *enumtype = MPI_T_ENUM_NULL;
  tools::copy_string(pvar->pvar->description, desc, desc_len);
  if (bind != nullptr) *bind = MPI_T_BIND_NO_OBJECT;
  if (readonly != nullptr) *readonly = counter ? 0 : 1;
  if (continuous != nullptr) *continuous = counter ? 0 : 1;
  if (atomic != nullptr) *atomic = counter ? 1 : 0;
  return MPI_SUCCESS;
}

int t_pvar_get_index(const char* name, int var_class, int* pvar_index) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (name == nullptr || pvar_index == nullptr) return MPI_T_ERR_INVALID;
  const std::vector<tools::Pvar>& all = tools::pvars();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].name == name && tools::class_of(*all[i].pvar) == var_class) {
      *pvar_index = static_cast<int>(i);
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}

int t_pvar_session_create(MPI_T_pvar_session* session) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (session == nullptr) return MPI_T_ERR_INVALID;
  auto* created = new (std::nothrow) STMPI_T_pvar_session_s;
  if (created == nullptr) return MPI_T_ERR_OUT_OF_SESSIONS;
  tools::sessions().insert(created);
  *session = created;
  return MPI_SUCCESS;
}

int t_pvar_session_free(MPI_T_pvar_session* session) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (session == nullptr) return MPI_T_ERR_INVALID;
  if (*session == nullptr || !tools::sessions().contains(*session))
    return MPI_T_ERR_INVALID_SESSION;
  tools::sessions().erase(*session);
  delete *session;  // and its handles
  *session = MPI_T_PVAR_SESSION_NULL;
  return MPI_SUCCESS;
}

int t_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index,
                        void* /*obj_handle: no pvar is bound to an object*/,
                        MPI_T_pvar_handle* handle, int* count) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (session == nullptr || !tools::sessions().contains(session)) return MPI_T_ERR_INVALID_SESSION;
  if (tools::pvar_at(pvar_index) == nullptr) return MPI_T_ERR_INVALID_INDEX;
  if (handle == nullptr || count == nullptr) return MPI_T_ERR_INVALID;
  auto created = std::unique_ptr<STMPI_T_pvar_handle_s>(new (std::nothrow) STMPI_T_pvar_handle_s);
  if (created == nullptr) return MPI_T_ERR_OUT_OF_HANDLES;
  created->index = pvar_index;
  created->session = session;
  *handle = created.get();
  *count = 1;
  session->handles.push_back(std::move(created));
  return MPI_SUCCESS;
}

int t_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  std::lock_guard<std::mutex> lock(mutex());
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (session == nullptr || !tools::sessions().contains(session)) return MPI_T_ERR_INVALID_SESSION;
  if (handle == nullptr) return MPI_T_ERR_INVALID;
  if (tools::handle_in(session, *handle) == nullptr) return MPI_T_ERR_INVALID_HANDLE;
  std::erase_if(session->handles, [handle](const std::unique_ptr<STMPI_T_pvar_handle_s>& h) {
    return h.get() == *handle;
  });
  *handle = MPI_T_PVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}

int t_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  std::lock_guard<std::mutex> lock(mutex());
  return tools::for_handles(session, handle, MPI_T_ERR_PVAR_NO_STARTSTOP,
                            [](STMPI_T_pvar_handle_s& h) {
                              if (h.started) return;
                              h.started = true;
                              h.start_raw = tools::raw(h);
                            });
}

int t_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  std::lock_guard<std::mutex> lock(mutex());
  return tools::for_handles(session, handle, MPI_T_ERR_PVAR_NO_STARTSTOP,
                            [](STMPI_T_pvar_handle_s& h) {
                              if (!h.started) return;
                              h.counted = tools::value(h);
                              h.started = false;
                            });
}

int t_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  std::lock_guard<std::mutex> lock(mutex());
  return tools::for_handles(session, handle, MPI_T_ERR_PVAR_NO_WRITE,
                            [](STMPI_T_pvar_handle_s& h) { tools::set_value(h, 0); });
}

int t_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  std::lock_guard<std::mutex> lock(mutex());
  STMPI_T_pvar_handle_s* h = nullptr;
  if (int err = tools::one_handle(session, handle, buf, &h)) return err;
  *static_cast<unsigned long long*>(buf) = tools::value(*h);
  return MPI_SUCCESS;
}

int t_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void* buf) {
  std::lock_guard<std::mutex> lock(mutex());
  STMPI_T_pvar_handle_s* h = nullptr;
  if (int err = tools::one_handle(session, handle, buf, &h)) return err;
  if (!tools::is_counter(tools::pvars()[static_cast<std::size_t>(h->index)]))
    return MPI_T_ERR_PVAR_NO_WRITE;
  tools::set_value(*h, *static_cast<const unsigned long long*>(buf));
  return MPI_SUCCESS;
}

int t_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  std::lock_guard<std::mutex> lock(mutex());
  STMPI_T_pvar_handle_s* h = nullptr;
  if (int err = tools::one_handle(session, handle, buf, &h)) return err;
  if (!tools::is_counter(tools::pvars()[static_cast<std::size_t>(h->index)]))
    return MPI_T_ERR_PVAR_NO_WRITE;
  // One read of the library's counter for both: nothing counted in between
  // is lost.
  const uint64_t now = tools::raw(*h);
  *static_cast<unsigned long long*>(buf) = h->counted + (h->started ? now - h->start_raw : 0);
  h->counted = 0;
  h->start_raw = now;
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
