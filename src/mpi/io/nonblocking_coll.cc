// Nonblocking collective access (MPI_File_iread_all, iwrite_all and their
// _at forms): the two-phase path of collective.cc as a collective schedule
// (src/mpi/coll/sched) that grows as it learns what to do.
//
//   ranges      every process sends its file range [lo, hi) to every other
//   decide      the same answer everywhere (aggregate(), make_plan()): a
//               direct access goes to the I/O thread as this process's own
//               read_at / write_at; otherwise the rounds follow
//   round r     sizes of the round's messages, then the messages (pieces'
//               descriptors, and the data of a write); the aggregator's
//               write_window / read_window runs on the I/O thread while the
//               schedule waits for it (a deferred poll, so other schedules
//               and the device progress meanwhile); a read sends the answers
//               back and copies them into the stream
//   agree       every process sends its error class to every other
//   finish      a read converts the stream into the user's buffer; the
//               user's request completes with the exact count
// The exchanges advance whenever the process polls MPI (MPI_Test, MPI_Wait,
// any other call that progresses); the file-system work needs no polling.
// The request the user holds is an I/O request completed by the last step;
// the schedule runs under its own internal request, freed when it ends.
#include <atomic>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include <mpi.h>

#include "mpi/coll/coll.h"
#include "mpi/coll/sched/engine.h"
#include "mpi/coll/sched/schedule.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/io/collective.h"
#include "mpi/io/file.h"
#include "mpi/io/internal.h"
#include "mpi/io/nonblocking.h"
#include "mpi/io/nonblocking_coll.h"
#include "mpi/io/two_phase.h"
#include "mpi/request/request.h"

namespace stmpi::mpi::io {
namespace {

using coll::Schedule;
using errhan::make_error;

struct Op {
  File* file = nullptr;
  bool write = false;
  const char* function = nullptr;
  Request* user = nullptr;  // the request the program waits on
  void* buf = nullptr;
  MPI_Count count = 0;
  Datatype* type = nullptr;  // held by `user`
  MPI_Offset offset = 0;
  const Datarep* rep = nullptr;
  std::shared_ptr<const FlatType> view_flat;  // keeps the view's runs alive
  int me = 0, n = 1;

  int err = MPI_SUCCESS;  // this process's first error in the schedule
  // A process whose own access is one contiguous run of at least
  // direct_min_bytes() does it at once on the I/O thread (`direct`) and takes
  // part in the schedule with no data; the request completes when both parts
  // have ended.
  bool direct = false;
  int direct_err = MPI_SUCCESS;
  std::atomic<int> parts{1};
  Access acc;
  std::vector<char> stream;  // write: packed data; read: what came back
  RangeWords mine{kNoAccess, 0, 0};
  std::vector<int64_t> ranges;
  bool aggregated = false;
  Plan plan;
  MPI_Count round = 0;
  Messages send, recv, answers, back;
  std::vector<std::vector<Piece>> sent;
  std::vector<MPI_Count> recv_sizes;
  std::vector<Incoming> incoming;
  std::vector<int32_t> classes;  // error classes of every process
  int32_t my_class = MPI_SUCCESS;
  // The I/O thread's part of a step.
  std::atomic<bool> task_done{false};
  int task_err = MPI_SUCCESS;
  MPI_Status direct_status{};
  MPI_Count bytes = 0;  // memory bytes for the status
};

using OpPtr = std::shared_ptr<Op>;
using Step = std::function<int(Schedule&)>;

void note(Op& op, int err) {
  if (op.err == MPI_SUCCESS) op.err = err;
}

// Appends a round that runs `fn`.
void then(Schedule& s, Step fn) {
  s.call(std::move(fn));
  s.fence();
}

// Runs `task` on the I/O thread; `next` runs (in the schedule) once it is done.
void on_thread(Schedule& s, const OpPtr& op, std::function<int()> task, Step next) {
  op->task_done.store(false, std::memory_order_relaxed);
  post_task(*op->file, [op, task = std::move(task)](MPI_Status*) {
    op->task_err = task();
    op->task_done.store(true, std::memory_order_release);
    return MPI_SUCCESS;
  });
  auto poll = std::make_shared<Step>();
  *poll = [op, poll, next = std::move(next)](Schedule& sched) -> int {
    if (!op->task_done.load(std::memory_order_acquire)) {
      sched.defer();
      sched.fence();
      then(sched, *poll);
      return MPI_SUCCESS;
    }
    note(*op, op->task_err);
    // Breaks the cycle: this function holds itself through `poll`.
    Step last = std::move(next);
    *poll = nullptr;
    return last(sched);
  };
  then(s, [poll](Schedule& sched) { return (*poll)(sched); });
}

// Sends `bytes` at `out` to every other process and receives theirs into
// `in` (the same size per process); copies its own.
void all_to_all(Schedule& s, const Op& op, const void* out, void* in, MPI_Count bytes) {
  Datatype& byte = coll::byte_type();
  for (int p = 0; p < op.n; ++p) {
    char* slot = static_cast<char*>(in) + p * bytes;
    if (p == op.me) {
      std::memcpy(slot, out, static_cast<std::size_t>(bytes));
      continue;
    }
    s.send(out, bytes, byte, p);
    s.recv(slot, bytes, byte, p);
  }
  s.fence();
}

// Completes the program's request once the direct access (if any) and the
// schedule have both ended; whichever ends last publishes the status.
void complete_part(Op& o) {
  if (o.parts.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  const int err = o.direct_err != MPI_SUCCESS ? o.direct_err : o.err;
  Request* req = o.user;
  status_set_empty(&req->status);
  if (err == MPI_SUCCESS)
    status_set_bytes(&req->status, o.direct ? status_bytes(&o.direct_status) : o.bytes);
  req->status.MPI_ERROR = err;
  req->dev.done.store(true, std::memory_order_release);
}

int finish(Schedule&, const OpPtr& op) {
  Op& o = *op;
  int err = o.err;
  if (err == MPI_SUCCESS && !o.classes.empty())
    for (int p = 0; p < o.n; ++p)
      if (o.classes[static_cast<std::size_t>(p)] != MPI_SUCCESS) {
        err =
            make_error(o.classes[static_cast<std::size_t>(p)], "%s failed on rank %d (%s)",
                       o.function, p, errhan::class_string(o.classes[static_cast<std::size_t>(p)]));
        break;
      }
  if (err == MPI_SUCCESS && o.aggregated && !o.write && o.acc.bytes > 0) {
    MPI_Offset eof = 0;
    err = o.file->driver().size(&eof);
    const MPI_Count got = err == MPI_SUCCESS ? bytes_before_eof(o.acc, eof) : 0;
    if (err == MPI_SUCCESS && o.rep != nullptr)
      err = datarep_from_file(*o.rep, o.stream.data(), got, o.count, *o.type, o.buf);
    else if (err == MPI_SUCCESS && o.type->contiguous)
      std::memcpy(static_cast<char*>(o.buf) + o.type->true_lb, o.stream.data(),
                  static_cast<std::size_t>(got));
    else if (err == MPI_SUCCESS) o.type->unpack(o.stream.data(), got, o.count, o.buf);
    o.bytes = memory_bytes(o.rep, *o.type, got);
  } else if (o.aggregated) {
    o.bytes = memory_bytes(o.rep, *o.type, o.acc.bytes);
  } else {
    o.bytes = status_bytes(&o.direct_status);
  }
  o.err = err;
  complete_part(o);
  return MPI_SUCCESS;
}

void agree_step(Schedule& s, const OpPtr& op) {
  op->my_class = op->err == MPI_SUCCESS ? MPI_SUCCESS : errhan::error_class_of(op->err);
  op->classes.assign(static_cast<std::size_t>(op->n), MPI_SUCCESS);
  all_to_all(s, *op, &op->my_class, op->classes.data(), sizeof(int32_t));
  then(s, [op](Schedule& sched) { return finish(sched, op); });
}

int round_start(Schedule& s, const OpPtr& op);

// A read's answers back to the requesters, then into the stream.
int round_back(Schedule& s, const OpPtr& op) {
  Op& o = *op;
  const auto n = static_cast<std::size_t>(o.n);
  o.back.counts.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (const Piece& p : o.sent[i]) o.back.counts[i] += p.length;
  o.back.layout();
  Datatype& byte = coll::byte_type();
  for (std::size_t p = 0; p < n; ++p) {
    if (static_cast<int>(p) == o.me) {
      std::memcpy(o.back.at(p), o.answers.at(p), static_cast<std::size_t>(o.back.counts[p]));
      continue;
    }
    if (o.answers.counts[p] > 0) s.send(o.answers.at(p), o.answers.counts[p], byte, int(p));
    if (o.back.counts[p] > 0) s.recv(o.back.at(p), o.back.counts[p], byte, int(p));
  }
  s.fence();
  then(s, [op](Schedule& sched) {
    Op& x = *op;
    for (std::size_t i = 0; i < x.sent.size(); ++i) {
      const char* from = x.back.at(i);
      for (const Piece& p : x.sent[i]) {
        std::memcpy(x.stream.data() + p.pos, from, static_cast<std::size_t>(p.length));
        from += p.length;
      }
    }
    ++x.round;
    return round_start(sched, op);
  });
  return MPI_SUCCESS;
}

// The aggregator's file work of the round (on the I/O thread).
int round_file(Schedule& s, const OpPtr& op) {
  Op& o = *op;
  o.incoming = parse(o.recv, o.write);
  if (o.write) {
    Step next = [op](Schedule& sched) {
      ++op->round;
      return round_start(sched, op);
    };
    if (o.incoming.empty()) return next(s);
    on_thread(
        s, op, [op] { return write_window(*op->file, op->incoming); }, std::move(next));
    return MPI_SUCCESS;
  }
  o.answers.counts.assign(static_cast<std::size_t>(o.n), 0);
  Step next = [op](Schedule& sched) { return round_back(sched, op); };
  if (o.incoming.empty()) {
    note(o, read_window(*o.file, o.incoming, o.answers));
    return next(s);
  }
  on_thread(
      s, op, [op] { return read_window(*op->file, op->incoming, op->answers); }, std::move(next));
  return MPI_SUCCESS;
}

// The round's messages, once their sizes are known.
int round_data(Schedule& s, const OpPtr& op) {
  Op& o = *op;
  const auto n = static_cast<std::size_t>(o.n);
  o.recv.counts.assign(o.recv_sizes.begin(), o.recv_sizes.end());
  o.recv.layout();
  Datatype& byte = coll::byte_type();
  for (std::size_t p = 0; p < n; ++p) {
    if (static_cast<int>(p) == o.me) {
      std::memcpy(o.recv.at(p), o.send.at(p), static_cast<std::size_t>(o.send.counts[p]));
      continue;
    }
    if (o.send.counts[p] > 0) s.send(o.send.at(p), o.send.counts[p], byte, int(p));
    if (o.recv.counts[p] > 0) s.recv(o.recv.at(p), o.recv.counts[p], byte, int(p));
  }
  s.fence();
  then(s, [op](Schedule& sched) { return round_file(sched, op); });
  return MPI_SUCCESS;
}

int round_start(Schedule& s, const OpPtr& op) {
  Op& o = *op;
  if (o.round == o.plan.rounds) {
    agree_step(s, op);
    return MPI_SUCCESS;
  }
  build_requests(o.acc, o.plan, o.round, o.write ? o.stream.data() : nullptr, o.send, o.sent);
  o.recv_sizes.assign(static_cast<std::size_t>(o.n), 0);
  for (int p = 0; p < o.n; ++p) {
    const auto i = static_cast<std::size_t>(p);
    if (p == o.me) {
      o.recv_sizes[i] = o.send.counts[i];
      continue;
    }
    s.send(&o.send.counts[i], 1, int64_type(), p);
    s.recv(&o.recv_sizes[i], 1, int64_type(), p);
  }
  s.fence();
  then(s, [op](Schedule& sched) { return round_data(sched, op); });
  return MPI_SUCCESS;
}

int decide(Schedule& s, const OpPtr& op) {
  Op& o = *op;
  bool anyone = false;
  for (std::size_t i = 0; i < o.ranges.size(); i += kRangeWords)
    anyone = anyone || o.ranges[i] != kNoAccess;
  if (!anyone) return finish(s, op);  // every access went direct (or moves nothing)
  const Switch mode = o.write ? o.file->hints().cb_write : o.file->hints().cb_read;
  o.aggregated = mode != Switch::kDisable && aggregate(mode, o.ranges, o.n);
  if (!o.aggregated) {
    // Each process's own access, on the I/O thread, errors still agreed.
    if (o.err != MPI_SUCCESS || o.direct || o.acc.bytes == 0) {
      agree_step(s, op);
      return MPI_SUCCESS;
    }
    on_thread(
        s, op,
        [op] {
          Op& x = *op;
          return x.write ? write_at(*x.file, x.offset, x.buf, x.count, *x.type, &x.direct_status)
                         : read_at(*x.file, x.offset, x.buf, x.count, *x.type, &x.direct_status);
        },
        [op](Schedule& sched) {
          agree_step(sched, op);
          return MPI_SUCCESS;
        });
    return MPI_SUCCESS;
  }
  if (!make_plan(*o.file, o.ranges, &o.plan)) {
    agree_step(s, op);
    return MPI_SUCCESS;
  }
  o.sent.assign(static_cast<std::size_t>(o.n), {});
  if (!o.write) o.stream.assign(static_cast<std::size_t>(o.acc.bytes), 0);
  return round_start(s, op);
}

}  // namespace

int start_nonblocking_collective(File& file, bool write, MPI_Offset offset, void* buf,
                                 MPI_Count count, const Datatype& type, const char* function,
                                 MPI_Request* request) {
  auto op = std::make_shared<Op>();
  Op& o = *op;
  o.file = &file;
  o.write = write;
  o.function = function;
  o.buf = buf;
  o.count = count;
  o.type = const_cast<Datatype*>(&type);
  o.offset = offset;
  o.rep = file.view().rep;
  o.view_flat = file.view().flat;
  o.me = file.comm().rank;
  o.n = file.comm().size;
  // This process's side, as the blocking call computes it; a failure here
  // still takes part in every exchange, with no data.
  MPI_Count file_bytes = 0;
  o.err = check_offset(offset, function);
  if (o.err == MPI_SUCCESS) o.err = stream_bytes(o.rep, type, count, &file_bytes);
  if (o.err == MPI_SUCCESS) o.acc.map(file, offset, file_bytes);
  const Switch mode = write ? file.hints().cb_write : file.hints().cb_read;
  // With aggregation off, or alone, there is nothing to exchange at all.
  const bool alone = mode == Switch::kDisable || (o.n == 1 && mode != Switch::kEnable);
  o.direct = o.err == MPI_SUCCESS && o.acc.bytes > 0 &&
             (alone || (mode == Switch::kAutomatic && o.acc.runs.size() == 1 &&
                        o.acc.bytes >= direct_min_bytes()));
  if (o.direct) o.acc = Access{};
  if (o.err == MPI_SUCCESS && write && o.acc.bytes > 0) {
    o.stream.resize(static_cast<std::size_t>(o.acc.bytes));
    if (o.rep != nullptr) o.err = datarep_to_file(*o.rep, buf, count, *o.type, o.stream.data());
    else type.pack(buf, count, o.stream.data());
  }
  if (o.err != MPI_SUCCESS) o.acc = Access{};
  o.mine = o.acc.range_words();
  o.ranges.assign(kRangeWords * static_cast<std::size_t>(o.n), 0);

  // The program's request: completed by finish().
  Request* user = request_create(Request::Kind::kDone);
  datatype_retain(o.type);
  user->user_type = o.type;
  user->file = file.handle();
  o.user = user;

  *request = user->handle;
  if (o.direct) {
    if (!alone) o.parts.store(2, std::memory_order_relaxed);
    post_task(file, [op](MPI_Status*) {
      Op& x = *op;
      x.direct_err = x.write
                         ? write_at(*x.file, x.offset, x.buf, x.count, *x.type, &x.direct_status)
                         : read_at(*x.file, x.offset, x.buf, x.count, *x.type, &x.direct_status);
      complete_part(x);
      return MPI_SUCCESS;
    });
  }
  if (alone) {
    if (!o.direct) complete_part(o);  // nothing to move, or a local error
    return MPI_SUCCESS;
  }
  auto schedule = std::make_unique<Schedule>(file.comm(), /*nonblocking=*/true);
  all_to_all(*schedule, o, o.mine.data(), o.ranges.data(), sizeof o.mine);
  then(*schedule, [op](Schedule& sched) { return decide(sched, op); });
  Request* internal = request_create(Request::Kind::kColl);
  internal->schedule = schedule.release();
  internal->comm = &file.comm();
  comm_retain(&file.comm());
  internal->freed_by_user = true;  // released when the schedule ends
  coll::engine_start(internal);
  return MPI_SUCCESS;
}

}  // namespace stmpi::mpi::io
