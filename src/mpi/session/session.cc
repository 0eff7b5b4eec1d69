// The Sessions Model (MPI 4.1 chapter 11): MPI_Session_init/finalize, the
// process sets "mpi://WORLD" and "mpi://SELF", MPI_Group_from_session_pset,
// session info and error handlers. MPI_Comm_create_from_group is in
// ../comm/comm_group_ctor.cc.
//
// The first session brings the library up if MPI_Init has not (see
// library_start in ../init/state.h), the last MPI_Session_finalize takes it
// down if MPI_Init is not holding it; a program may use sessions with or
// without MPI_Init. The thread level of a session comes from the info key
// "thread_level" (MPI_THREAD_SINGLE ... MPI_THREAD_MULTIPLE; default
// MPI_THREAD_SINGLE) and never lowers the library's.
#include "mpi/session/session.h"

#include <strings.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "device/device.h"
#include "mpi/errhan/errhandler.h"
#include "mpi/errhan/error.h"
#include "mpi/group/group.h"
#include "mpi/info/info.h"
#include "mpi/init/state.h"
#include "mpi/session/impl_session.h"

namespace stmpi::mpi {
namespace {

HandleTable<Session, ObjectKind::kSession> g_sessions;

struct ProcessSet {
  const char* name;
};
const ProcessSet kProcessSets[] = {{"mpi://WORLD"}, {"mpi://SELF"}};
constexpr int kNumProcessSets = 2;

// Index of a process set name (case-insensitive), or -1.
int pset_index(const char* name) {
  for (int i = 0; i < kNumProcessSets; ++i)
    if (strcasecmp(name, kProcessSets[i].name) == 0) return i;
  return -1;
}

const char* kThreadLevels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                               "MPI_THREAD_MULTIPLE"};

}  // namespace

Session* session_get(int handle) { return g_sessions.get(handle); }

int session_raise(Session* session, int code, const char* function) {
  Errhandler* eh = session->errhandler;
  switch (eh->kind) {
    case Errhandler::Kind::kReturn: return code;
    case Errhandler::Kind::kUserSession: {
      MPI_Session handle = session->handle;
      eh->session_fn(&handle, &code, function);
      return code;
    }
    default: errhan::abort_job(code, function);
  }
}

}  // namespace stmpi::mpi

namespace stmpi::impl {
namespace {

using mpi::Session;
using mpi::errhan::make_error;

int lookup(MPI_Session handle, Session** out) {
  *out = mpi::session_get(handle);
  if (*out == nullptr)
    return make_error(MPI_ERR_SESSION, "session (0x%x) is not a valid session",
                      static_cast<unsigned>(handle));
  return MPI_SUCCESS;
}

// A valid session and the index of a known process set name.
int lookup_pset(MPI_Session session, const char* pset_name, int* index) {
  Session* object = nullptr;
  if (int err = lookup(session, &object); err != MPI_SUCCESS) return err;
  *index = mpi::pset_index(pset_name);
  if (*index < 0)
    return make_error(MPI_ERR_ARG,
                      "pset_name \"%s\" is not a process set (mpi://WORLD, "
                      "mpi://SELF)",
                      pset_name);
  return MPI_SUCCESS;
}

}  // namespace

int session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  int level = MPI_THREAD_SINGLE;
  const mpi::Info* info_object = nullptr;
  if (info != MPI_INFO_NULL) {
    info_object = mpi::info_get(info);
    if (info_object == nullptr)
      return make_error(MPI_ERR_INFO, "info (0x%x) is not a valid info object",
                        static_cast<unsigned>(info));
    if (auto value = info_object->find("thread_level")) {
      level = -1;
      for (int i = 0; i < 4; ++i)
        if (strcasecmp(std::string(*value).c_str(), mpi::kThreadLevels[i]) == 0) level = i;
      if (level < 0)
        return make_error(MPI_ERR_ARG, "info key thread_level = \"%.*s\" is not a thread level",
                          static_cast<int>(value->size()), value->data());
    }
  }
  mpi::ProcessState& state = mpi::g_process_state;
  if (state.finalized && !state.library_up)
    return make_error(MPI_ERR_OTHER,
                      "the library was shut down by MPI_Finalize and the last "
                      "MPI_Session_finalize; it cannot be started again");
  if (int err = mpi::library_start(level); err != MPI_SUCCESS) return err;
  // errhandler is checked once the predefined handlers exist.
  mpi::Errhandler* eh = errhandler == MPI_ERRHANDLER_NULL
                            ? mpi::errhandler_get(MPI_ERRORS_ARE_FATAL)
                            : mpi::errhandler_get(errhandler);
  if (eh == nullptr || (eh->kind != mpi::Errhandler::Kind::kUserSession && !eh->predefined)) {
    const int err = make_error(MPI_ERR_ARG, "errhandler (0x%x) is not a session error handler",
                               static_cast<unsigned>(errhandler));
    (void)mpi::library_stop_if_unused();
    return err;
  }
  auto* object = new Session;
  mpi::errhandler_retain(eh);
  object->errhandler = eh;
  object->thread_level = state.thread_level;
  if (info_object != nullptr) object->info = info_object->entries;
  object->handle = mpi::g_sessions.add(object);
  ++state.sessions;
  *session = object->handle;
  return MPI_SUCCESS;
}

int session_finalize(MPI_Session* session) {
  Session* object = nullptr;
  if (int err = lookup(*session, &object); err != MPI_SUCCESS) return err;
  mpi::g_sessions.remove(object->handle);
  mpi::errhandler_release(object->errhandler);
  delete object;
  *session = MPI_SESSION_NULL;
  --mpi::g_process_state.sessions;
  return mpi::library_stop_if_unused();
}

int session_get_num_psets(MPI_Session session, MPI_Info /*info*/, int* npset_names) {
  Session* object = nullptr;
  if (int err = lookup(session, &object); err != MPI_SUCCESS) return err;
  *npset_names = mpi::kNumProcessSets;
  return MPI_SUCCESS;
}

// MPI 4.1: with *pset_len == 0 only the length (including the NUL) is
// returned; otherwise up to *pset_len - 1 characters and a NUL are copied
// and *pset_len is set to the full length.
int session_get_nth_pset(MPI_Session session, MPI_Info /*info*/, int n, int* pset_len,
                         char* pset_name) {
  Session* object = nullptr;
  if (int err = lookup(session, &object); err != MPI_SUCCESS) return err;
  if (n < 0 || n >= mpi::kNumProcessSets)
    return make_error(MPI_ERR_ARG, "n = %d is not a process set index (0..%d)", n,
                      mpi::kNumProcessSets - 1);
  if (*pset_len < 0) return make_error(MPI_ERR_ARG, "*pset_len = %d is negative", *pset_len);
  const char* name = mpi::kProcessSets[n].name;
  const int length = static_cast<int>(strlen(name)) + 1;
  if (*pset_len > 0) {
    if (pset_name == nullptr) return make_error(MPI_ERR_ARG, "pset_name is NULL");
    const int copy = std::min(*pset_len - 1, length - 1);
    std::memcpy(pset_name, name, static_cast<std::size_t>(copy));
    pset_name[copy] = '\0';
  }
  *pset_len = length;
  return MPI_SUCCESS;
}

int session_get_pset_info(MPI_Session session, const char* pset_name, MPI_Info* info) {
  int index = -1;
  if (int err = lookup_pset(session, pset_name, &index); err != MPI_SUCCESS) return err;
  mpi::Info* result = mpi::info_create();
  result->set("mpi_size", std::to_string(index == 0 ? dev::world_size() : 1));
  *info = result->handle;
  return MPI_SUCCESS;
}

int session_get_info(MPI_Session session, MPI_Info* info_used) {
  Session* object = nullptr;
  if (int err = lookup(session, &object); err != MPI_SUCCESS) return err;
  mpi::Info* result = mpi::info_create();
  result->entries = object->info;
  result->set("thread_level", mpi::kThreadLevels[object->thread_level]);
  *info_used = result->handle;
  return MPI_SUCCESS;
}

int group_from_session_pset(MPI_Session session, const char* pset_name, MPI_Group* newgroup) {
  int index = -1;
  if (int err = lookup_pset(session, pset_name, &index); err != MPI_SUCCESS) return err;
  std::vector<int> members;
  if (index == 0) {
    for (int r = 0; r < dev::world_size(); ++r) members.push_back(r);
  } else {
    members.push_back(dev::world_rank());
  }
  *newgroup = mpi::group_create(std::move(members))->handle;
  return MPI_SUCCESS;
}

int session_create_errhandler(MPI_Session_errhandler_function* session_errhandler_fn,
                              MPI_Errhandler* errhandler) {
  // Callable before MPI_Init or any session: MPI_Session_init takes the
  // error handler as an argument.
  if (session_errhandler_fn == nullptr)
    return make_error(MPI_ERR_ARG, "session_errhandler_fn is NULL");
  auto* eh = new mpi::Errhandler;
  eh->kind = mpi::Errhandler::Kind::kUserSession;
  eh->session_fn = session_errhandler_fn;
  eh->handle = mpi::errhandler_table().add(eh);
  *errhandler = eh->handle;
  return MPI_SUCCESS;
}

int session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) {
  Session* object = nullptr;
  if (int err = lookup(session, &object); err != MPI_SUCCESS) return err;
  mpi::Errhandler* eh = mpi::errhandler_get(errhandler);
  if (eh == nullptr || (eh->kind != mpi::Errhandler::Kind::kUserSession && !eh->predefined))
    return make_error(MPI_ERR_ARG, "errhandler (0x%x) is not a session error handler",
                      static_cast<unsigned>(errhandler));
  mpi::errhandler_retain(eh);
  mpi::errhandler_release(object->errhandler);
  object->errhandler = eh;
  return MPI_SUCCESS;
}

int session_get_errhandler(MPI_Session session, MPI_Errhandler* errhandler) {
  Session* object = nullptr;
  if (int err = lookup(session, &object); err != MPI_SUCCESS) return err;
  mpi::errhandler_retain(object->errhandler);
  *errhandler = object->errhandler->handle;
  return MPI_SUCCESS;
}

int session_call_errhandler(MPI_Session session, int errorcode) {
  Session* object = nullptr;
  if (int err = lookup(session, &object); err != MPI_SUCCESS) return err;
  (void)mpi::session_raise(object, errorcode, "MPI_Session_call_errhandler");
  return MPI_SUCCESS;
}

}  // namespace stmpi::impl
