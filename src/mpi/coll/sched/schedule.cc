#include "mpi/coll/sched/schedule.h"

#include "device/progress.h"
#include "mpi/coll/op.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/pt2pt/pt2pt.h"
#include "mpi/request/request.h"

namespace stmpi::mpi::coll {

namespace {
// Tags of collective messages: 2^27 + a sequence number (MPI_TAG_UB is
// 2^28 - 1). Comm::coll_seq holds two 16-bit counters: the low half numbers
// blocking collectives (tags 2^27 + n), the high half nonblocking and
// persistent ones (tags 2^27 + 2^26 + n). Other internal traffic on the
// collective context (intercommunicator leaders) uses tags below 2^27.
constexpr uint32_t kSeqBase = 1u << 27;
constexpr uint32_t kNonblockingBase = 1u << 26;

uint32_t next_sequence(uint32_t* packed, bool nonblocking) {
  const unsigned shift = nonblocking ? 16 : 0;
  const uint32_t n = (*packed >> shift) & 0xFFFFu;
  *packed = (*packed & ~(0xFFFFu << shift)) | (((n + 1) & 0xFFFFu) << shift);
  return n;
}
}  // namespace

int take_blocking_tag(Comm& comm) {
  return static_cast<int>(kSeqBase | next_sequence(&comm.coll_seq, false));
}

Schedule::Schedule(Comm& comm, bool nonblocking) : comm_(&comm) {
  comm_retain(comm_);
  const uint32_t n = next_sequence(&comm.coll_seq, nonblocking);
  // Unique among the communicator's collectives in flight (idup's agreement key).
  sequence_ = (nonblocking ? kNonblockingBase : 0) | n;
  tag_ = static_cast<int>(kSeqBase | sequence_);
}

Schedule::~Schedule() {
  for (Request* req : pending_) {
    request_wait(req);
    request_free(req);
  }
  for (Datatype* type : types_) datatype_release(type);
  for (Op* op : ops_) op_release(op);
  comm_release(comm_);
}

int Schedule::rank() const { return comm_->rank; }
int Schedule::size() const { return comm_->size; }

void Schedule::hold(Datatype* type) {
  if (type == nullptr) return;
  datatype_retain(type);
  types_.push_back(type);
}

void Schedule::hold(Op* op) {
  if (op == nullptr) return;
  op_retain(op);
  ops_.push_back(op);
}

void* Schedule::scratch(MPI_Count count, const Datatype& type) {
  scratch_.push_back(std::make_unique<ScratchBuffer>(count, type));
  return scratch_.back()->get();
}

char* Schedule::scratch_bytes(MPI_Count bytes) {
  return static_cast<char*>(scratch(bytes, byte_type()));
}

void Schedule::send(const void* buf, MPI_Count count, Datatype& type, int peer) {
  steps_.push_back({Kind::kSend, buf, nullptr, count, &type, 0, nullptr, peer});
}

void Schedule::recv(void* buf, MPI_Count count, Datatype& type, int peer) {
  steps_.push_back({Kind::kRecv, nullptr, buf, count, &type, 0, nullptr, peer});
}

void Schedule::copy(const void* src, MPI_Count scount, Datatype& stype, void* dst, MPI_Count rcount,
                    Datatype& rtype) {
  if (src == dst && scount == rcount && &stype == &rtype) return;
  steps_.push_back({Kind::kCopy, src, dst, scount, &stype, rcount, &rtype, -1});
}

void Schedule::reduce(const void* in, void* inout, MPI_Count count) {
  if (count == 0) return;
  steps_.push_back({Kind::kReduce, in, inout, count, nullptr, 0, nullptr, -1});
}

void Schedule::call(Call fn) {
  calls_.push_back(std::move(fn));
  steps_.push_back({Kind::kCall, nullptr, nullptr, static_cast<MPI_Count>(calls_.size() - 1),
                    nullptr, 0, nullptr, -1});
}

void Schedule::defer() {
  steps_.push_back({Kind::kDefer, nullptr, nullptr, 0, nullptr, 0, nullptr, -1});
}

void Schedule::fence() {
  if (steps_.size() == (round_end_.empty() ? 0 : round_end_.back())) return;  // empty round
  round_end_.push_back(steps_.size());
}

void Schedule::start() {
  fence();
  round_ = 0;
  error_ = MPI_SUCCESS;
  done_ = false;
  deferred_ = false;
  run_round();
}

void Schedule::run_round() {
  // Rounds without messages finish at once; keep going until one waits.
  while (round_ < round_end_.size()) {
    const std::size_t begin = round_ == 0 ? 0 : round_end_[round_ - 1];
    for (std::size_t i = begin; i < round_end_[round_]; ++i) {
      const Step s = steps_[i];  // a copy: a kCall step may append to steps_
      int err = MPI_SUCCESS;
      switch (s.kind) {
        case Kind::kSend: {
          Request* req = request_create(Request::Kind::kSend);
          err = pt2pt::start_send(req, s.src, s.count, *s.type, s.peer, tag_, *comm_,
                                  comm_->coll_context_id(), dev::SendMode::kStandard);
          if (err == MPI_SUCCESS) pending_.push_back(req);
          else request_free(req);
          break;
        }
        case Kind::kRecv: {
          Request* req = request_create(Request::Kind::kRecv);
          err = pt2pt::start_recv(req, s.dst, s.count, *s.type, s.peer, tag_, *comm_,
                                  comm_->coll_context_id());
          if (err == MPI_SUCCESS) pending_.push_back(req);
          else request_free(req);
          break;
        }
        case Kind::kCopy:
          err = copy_convert(s.src, s.count, *s.type, s.dst, s.count2, *s.type2);
          break;
        case Kind::kReduce: err = reduction_.apply(s.src, s.dst, s.count); break;
        case Kind::kCall: {
          const Call fn = calls_[static_cast<std::size_t>(s.count)];  // calls_ may grow
          err = fn(*this);
          break;
        }
        case Kind::kDefer: deferred_ = true; break;
      }
      if (err != MPI_SUCCESS && error_ == MPI_SUCCESS) error_ = err;
    }
    if (!pending_.empty() || deferred_) return;
    ++round_;
  }
  done_ = true;
}

void Schedule::finish_round() {
  for (Request* req : pending_) {
    const int err = request_retire(req, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS && error_ == MPI_SUCCESS) error_ = err;
  }
  pending_.clear();
  ++round_;
}

bool Schedule::advance() {
  bool resumed = false;
  while (!done_) {
    if (deferred_) {
      if (resumed) return false;  // deferred during this call: until the next one
      deferred_ = false;
    }
    resumed = true;
    for (Request* req : pending_)
      if (!request_test(req)) return false;
    finish_round();
    run_round();
  }
  return true;
}

int Schedule::run() {
  start();
  dev::wait_until([this] { return advance(); });
  return error_;
}

}  // namespace stmpi::mpi::coll
