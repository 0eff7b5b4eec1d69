// Two-phase collective I/O (collective.h says when it is used).
//
// One call:
//   1. each process maps its data onto file byte runs (map_view) and packs
//      it into one contiguous stream (run i holds stream bytes
//      [start_i, start_i + length_i));
//   2. the processes allgather the file range [lo, hi) each one touches;
//      the union [gmin, gmax) is cut into one domain per aggregator, of
//      equal size;
//   3. round r covers, in each domain, the r-th slice of cb_buffer_size
//      bytes (the "window"). Every process cuts its runs at the windows and
//      sends each aggregator its pieces: a write sends (offset, length)
//      descriptors followed by the data in one message; a read sends the
//      descriptors, the aggregator reads the union of all pieces it was
//      asked for and answers each process with its pieces' bytes;
//   4. an aggregator writes its window as the sorted pieces, adjacent ones
//      merged, through write_runs (holes are skipped, never read back and
//      rewritten, so no read-modify-write and no lock is needed; in atomic
//      mode the window is locked for the write);
//   5. an allreduce of the error classes makes a failure anywhere visible
//      everywhere.
// Every process runs the same number of rounds (computed from the
// allgathered ranges), so the exchanges stay matched.
#include "mpi/io/collective.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "mpi/coll/coll.h"
#include "mpi/coll/impl_coll.h"
#include "mpi/coll/node.h"
#include "mpi/coll/op.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/io/file.h"
#include "mpi/io/impl_io.h"
#include "mpi/io/internal.h"
#include "mpi/io/shared.h"
#include "mpi/io/two_phase.h"
#include "mpi/request/request.h"

namespace stmpi::mpi::io {
namespace {

using errhan::make_error;

}  // namespace

Datatype& int64_type() { return *datatype_get(MPI_INT64_T); }

// One per node (the lowest rank), or cb_nodes ranks taken from the nodes in
// turn so that they spread over the nodes.
std::vector<int> choose_aggregators(File& file) {
  Comm& comm = file.comm();
  const coll::NodeLayout& layout = coll::node_layout(comm);
  std::size_t want = layout.leaders.size();
  if (file.hints().cb_nodes > 0)
    want = std::min<std::size_t>(static_cast<std::size_t>(file.hints().cb_nodes),
                                 static_cast<std::size_t>(comm.size));
  std::vector<int> out;
  for (std::size_t depth = 0; out.size() < want; ++depth)
    for (const auto& members : layout.members) {
      if (depth < members.size()) out.push_back(members[depth]);
      if (out.size() == want) break;
    }
  std::sort(out.begin(), out.end());
  return out;
}

// The alltoallv of a round; recv's counts and layout must be set.
int exchange(Comm& comm, Messages& send, Messages& recv) {
  Timed timed(TimeKind::kExchange);
  Datatype& byte = coll::byte_type();
  return impl::alltoallv_any<MPI_Count, MPI_Aint>(
      send.buf.get(), send.counts.data(), send.displs.data(), &byte, recv.buf.get(),
      recv.counts.data(), recv.displs.data(), byte, comm, coll::Mode::kBlocking, nullptr);
}

// Tells every process how many bytes each other one will send it, and lays
// out `recv` for them.
int exchange_sizes(Comm& comm, const Messages& send, Messages& recv) {
  Timed timed(TimeKind::kExchange);
  const auto n = static_cast<std::size_t>(comm.size);
  std::vector<int64_t> rsize(n);
  std::vector<MPI_Count> ones(n, 1);
  std::vector<MPI_Aint> displs(n);
  for (std::size_t i = 0; i < n; ++i) displs[i] = static_cast<MPI_Aint>(i);
  Datatype& i64 = int64_type();
  static_assert(sizeof(MPI_Count) == sizeof(int64_t));
  const int err = impl::alltoallv_any<MPI_Count, MPI_Aint>(
      send.counts.data(), ones.data(), displs.data(), &i64, rsize.data(), ones.data(),
      displs.data(), i64, comm, coll::Mode::kBlocking, nullptr);
  if (err != MPI_SUCCESS) return err;
  recv.counts.assign(rsize.begin(), rsize.end());
  recv.layout();
  return MPI_SUCCESS;
}

char* put_i64(char* out, int64_t v) {
  std::memcpy(out, &v, sizeof v);
  return out + sizeof v;
}

int64_t get_i64(const char* p) {
  int64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Parses "[n][offset, length]*n[data]" messages (data only for writes).
std::vector<Incoming> parse(const Messages& recv, bool with_data) {
  std::vector<Incoming> out;
  for (std::size_t src = 0; src < recv.counts.size(); ++src) {
    if (recv.counts[src] == 0) continue;
    const char* msg = recv.at(src);
    const int64_t n = get_i64(msg);
    const char* desc = msg + sizeof(int64_t);
    const char* data = desc + n * 2 * sizeof(int64_t);
    for (int64_t i = 0; i < n; ++i) {
      const MPI_Offset off = get_i64(desc + 2 * i * sizeof(int64_t));
      const MPI_Count len = get_i64(desc + (2 * i + 1) * sizeof(int64_t));
      out.push_back({off, len, with_data ? data : nullptr, static_cast<int>(src),
                     static_cast<std::size_t>(i)});
      if (with_data) data += len;
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Incoming& a, const Incoming& b) { return a.offset < b.offset; });
  return out;
}

// Builds this process's per-aggregator messages of round r: descriptors,
// then (writes) the data, copied once from the stream.
void build_requests(const Access& acc, const Plan& plan, MPI_Count r, const char* stream,
                    Messages& send, std::vector<std::vector<Piece>>& sent) {
  send.counts.assign(sent.size(), 0);
  for (std::size_t a = 0; a < plan.aggregators.size(); ++a) {
    const auto dest = static_cast<std::size_t>(plan.aggregators[a]);
    MPI_Offset wlo, whi;
    plan.window_of(a, r, &wlo, &whi);
    std::vector<Piece>& pieces = sent[dest];
    pieces.clear();
    acc.pieces_in(wlo, whi, pieces);
    if (pieces.empty()) continue;
    MPI_Count bytes = static_cast<MPI_Count>((1 + 2 * pieces.size()) * sizeof(int64_t));
    if (stream != nullptr)
      for (const Piece& p : pieces) bytes += p.length;
    send.counts[dest] = bytes;
  }
  send.layout();
  for (std::size_t dest = 0; dest < sent.size(); ++dest) {
    const std::vector<Piece>& pieces = sent[dest];
    if (pieces.empty()) continue;
    char* out = put_i64(send.at(dest), static_cast<int64_t>(pieces.size()));
    for (const Piece& p : pieces) {
      out = put_i64(out, p.offset);
      out = put_i64(out, p.length);
    }
    if (stream != nullptr)
      for (const Piece& p : pieces) {
        std::memcpy(out, stream + p.pos, static_cast<std::size_t>(p.length));
        out += p.length;
      }
  }
}

// Aggregator side of a write round: each piece copied once into a buffer
// laid out like the file range it covers, overlapping and adjacent pieces
// merged into runs, the runs packed to the front (no-op without holes) and
// written.
int write_window(File& file, const std::vector<Incoming>& in) {
  if (in.empty()) return MPI_SUCCESS;
  const MPI_Offset lo = in.front().offset;
  MPI_Offset hi = lo;
  for (const Incoming& p : in) hi = std::max(hi, p.offset + p.length);
  std::unique_ptr<char[]> buf(new char[static_cast<std::size_t>(hi - lo)]);
  std::vector<Run> runs;
  for (const Incoming& p : in) {
    std::memcpy(buf.get() + (p.offset - lo), p.data, static_cast<std::size_t>(p.length));
    if (!runs.empty() && p.offset <= runs.back().offset + runs.back().length)
      runs.back().length = std::max(runs.back().offset + runs.back().length, p.offset + p.length) -
                           runs.back().offset;
    else runs.push_back({p.offset, p.length});
  }
  MPI_Count packed = 0;
  for (const Run& run : runs) {
    if (run.offset - lo != packed)
      std::memmove(buf.get() + packed, buf.get() + (run.offset - lo),
                   static_cast<std::size_t>(run.length));
    packed += run.length;
  }
  if (file.atomic())
    if (int err = file.driver().lock(lo, hi - lo, true); err != MPI_SUCCESS) return err;
  const int err = write_runs(file, runs, buf.get());
  if (file.atomic()) (void)file.driver().unlock(lo, hi - lo);
  return err;
}

// Aggregator side of a read round: reads the union of the requested pieces
// and builds each requester's answer.
int read_window(File& file, const std::vector<Incoming>& in, Messages& answers) {
  const std::size_t n = answers.counts.size();
  std::vector<std::vector<const Incoming*>> by_source(n);
  answers.counts.assign(n, 0);
  for (const Incoming& p : in) {
    auto& list = by_source[static_cast<std::size_t>(p.source)];
    if (list.size() <= p.index) list.resize(p.index + 1);
    list[p.index] = &p;
    answers.counts[static_cast<std::size_t>(p.source)] += p.length;
  }
  answers.layout();
  if (in.empty()) return MPI_SUCCESS;
  std::vector<Run> runs;  // the union, in file order
  std::vector<MPI_Count> starts;
  MPI_Count total = 0;
  for (const Incoming& p : in) {
    const MPI_Offset end = p.offset + p.length;
    if (!runs.empty() && p.offset <= runs.back().offset + runs.back().length) {
      Run& last = runs.back();
      const MPI_Offset grow = std::max<MPI_Offset>(0, end - (last.offset + last.length));
      last.length += grow;
      total += grow;
    } else {
      runs.push_back({p.offset, p.length});
      starts.push_back(total);
      total += p.length;
    }
  }
  std::vector<char> data(static_cast<std::size_t>(total));
  int err = MPI_SUCCESS;
  if (file.atomic()) {
    const MPI_Offset lo = runs.front().offset;
    const MPI_Offset hi = runs.back().offset + runs.back().length;
    err = file.driver().lock(lo, hi - lo, false);
    if (err == MPI_SUCCESS) {
      err = read_runs(file, runs, data.data(), nullptr);
      (void)file.driver().unlock(lo, hi - lo);
    }
  } else {
    err = read_runs(file, runs, data.data(), nullptr);
  }
  // Answers go in request order: each source listed its pieces in stream order.
  for (std::size_t src = 0; src < n; ++src) {
    char* out = answers.at(src);
    for (const Incoming* p : by_source[src]) {
      auto it = std::upper_bound(runs.begin(), runs.end(), p->offset,
                                 [](MPI_Offset v, const Run& r) { return v < r.offset; });
      const auto u = static_cast<std::size_t>(it - runs.begin()) - 1;
      std::memcpy(out, data.data() + starts[u] + (p->offset - runs[u].offset),
                  static_cast<std::size_t>(p->length));
      out += p->length;
    }
  }
  return err;
}

// Same class of error everywhere (agree: an allgather of error classes).
int agree_on_errors(File& file, int err, const char* what) {
  Timed timed(TimeKind::kExchange);
  return agree(file.comm(), err, what);
}

// Whether this call aggregates; every process reaches the same answer.
// Automatic: through aggregators when some process's pieces are short (a
// mean under direct_min_bytes()), each process on its own otherwise, even
// where the ranges interleave: moving large pieces to an aggregator costs a
// copy (a network transfer between nodes) and saves no file-system call.
// Overlapping writes need no aggregator for their meaning: without atomic
// mode their result is undefined, in atomic mode write_at locks its range.
bool aggregate(Switch mode, const std::vector<int64_t>& ranges, int nprocs) {
  if (mode == Switch::kEnable) return true;
  if (nprocs == 1) return false;
  for (std::size_t i = 0; i < static_cast<std::size_t>(nprocs); ++i) {
    const int64_t* words = &ranges[kRangeWords * i];
    if (words[0] != kNoAccess && words[2] < direct_min_bytes()) return true;
  }
  return false;
}

// The plan from the allgathered ranges; false when nobody accesses anything.
bool make_plan(File& file, const std::vector<int64_t>& ranges, Plan* plan) {
  plan->gmin = kNoAccess;
  plan->gmax = 0;
  for (std::size_t i = 0; i < ranges.size(); i += kRangeWords) {
    if (ranges[i] == kNoAccess) continue;
    plan->gmin = std::min<MPI_Offset>(plan->gmin, ranges[i]);
    plan->gmax = std::max<MPI_Offset>(plan->gmax, ranges[i + 1]);
  }
  if (plan->gmin == kNoAccess) return false;
  plan->aggregators = choose_aggregators(file);
  const auto naggr = static_cast<MPI_Offset>(plan->aggregators.size());
  const MPI_Offset span = plan->gmax - plan->gmin;
  plan->domain = (span + naggr - 1) / naggr;
  // Domains on striping-unit boundaries, when the unit is known, so that
  // two aggregators never write into one stripe.
  if (const MPI_Count unit = file.hints().striping_unit; unit > 0 && plan->domain > unit)
    plan->domain = (plan->domain + unit - 1) / unit * unit;
  plan->window = std::max<MPI_Count>(1, file.hints().cb_buffer_size);
  plan->rounds = (plan->domain + plan->window - 1) / plan->window;
  return true;
}

int two_phase_write(File& file, const Access& acc, const char* stream, const Plan& plan) {
  Comm& comm = file.comm();
  const auto n = static_cast<std::size_t>(comm.size);
  Messages send, recv;
  std::vector<std::vector<Piece>> sent(n);
  int err = MPI_SUCCESS;
  for (MPI_Count r = 0; r < plan.rounds; ++r) {
    build_requests(acc, plan, r, stream, send, sent);
    if (int e = exchange_sizes(comm, send, recv); e != MPI_SUCCESS) return e;
    if (int e = exchange(comm, send, recv); e != MPI_SUCCESS) return e;
    const int w = write_window(file, parse(recv, /*with_data=*/true));
    if (err == MPI_SUCCESS) err = w;
  }
  return err;
}

int two_phase_read(File& file, const Access& acc, char* stream, const Plan& plan) {
  Comm& comm = file.comm();
  const auto n = static_cast<std::size_t>(comm.size);
  Messages send, recv, answers, back;
  std::vector<std::vector<Piece>> sent(n);
  int err = MPI_SUCCESS;
  for (MPI_Count r = 0; r < plan.rounds; ++r) {
    build_requests(acc, plan, r, nullptr, send, sent);
    if (int e = exchange_sizes(comm, send, recv); e != MPI_SUCCESS) return e;
    if (int e = exchange(comm, send, recv); e != MPI_SUCCESS) return e;
    answers.counts.assign(n, 0);
    const int rd = read_window(file, parse(recv, /*with_data=*/false), answers);
    if (err == MPI_SUCCESS) err = rd;
    back.counts.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i)
      for (const Piece& p : sent[i]) back.counts[i] += p.length;
    back.layout();
    if (int e = exchange(comm, answers, back); e != MPI_SUCCESS) return e;
    for (std::size_t i = 0; i < n; ++i) {
      const char* from = back.at(i);
      for (const Piece& p : sent[i]) {
        std::memcpy(stream + p.pos, from, static_cast<std::size_t>(p.length));
        from += p.length;
      }
    }
  }
  return err;
}

// A negative offset fails on this process, which still takes part in the
// exchanges with no data, so that the others do not wait for it.
int check_offset(MPI_Offset offset, const char* function) {
  if (offset >= 0) return MPI_SUCCESS;
  return make_error(MPI_ERR_ARG, "%s: offset=%lld is negative", function,
                    static_cast<long long>(offset));
}

// The allgather of every process's [lo, hi) and mean piece (kRangeWords).
int gather_ranges(File& file, const Access& acc, std::vector<int64_t>* ranges) {
  Timed timed(TimeKind::kExchange);
  const RangeWords mine = acc.range_words();
  ranges->assign(kRangeWords * static_cast<std::size_t>(file.comm().size), 0);
  return coll::allgather(mine.data(), kRangeWords, &int64_type(), ranges->data(), kRangeWords,
                         int64_type(), file.comm());
}

// Stream bytes that lie before the end of the file (runs are in file order).
MPI_Count bytes_before_eof(const Access& acc, MPI_Offset eof) {
  MPI_Count got = 0;
  for (const Run& run : acc.runs) {
    if (run.offset >= eof) break;
    const MPI_Count len = std::min<MPI_Count>(run.length, eof - run.offset);
    got += len;
    if (len < run.length) break;
  }
  return got;
}

MPI_Count etype_size(const File& file) {
  const Datatype* etype = file.view().etype;
  return etype != nullptr && etype->size > 0 ? etype->size : 1;
}

int check_access(const File& file, bool write, bool individual, const char* function) {
  const int amode = file.amode();
  if (write && (amode & MPI_MODE_RDONLY))
    return make_error(MPI_ERR_READ_ONLY, "%s: file %s was opened MPI_MODE_RDONLY", function,
                      file.name().c_str());
  if (!write && (amode & MPI_MODE_WRONLY))
    return make_error(MPI_ERR_ACCESS, "%s: file %s was opened MPI_MODE_WRONLY", function,
                      file.name().c_str());
  if (individual && (amode & MPI_MODE_SEQUENTIAL))
    return make_error(MPI_ERR_UNSUPPORTED_OPERATION,
                      "%s: file %s was opened MPI_MODE_SEQUENTIAL (only shared file pointer "
                      "calls are allowed)",
                      function, file.name().c_str());
  return MPI_SUCCESS;
}

int write_at_all(File& file, MPI_Offset offset, const void* buf, MPI_Count count,
                 const Datatype& type, MPI_Status* status) {
  if (file.hints().cb_write == Switch::kDisable)  // independent, errors still agreed
    return agree_on_errors(file, write_at(file, offset, buf, count, type, status),
                           "MPI_File_write_at_all");
  int err = check_offset(offset, "MPI_File_write_at_all");
  MPI_Count file_bytes = 0;
  if (err == MPI_SUCCESS) err = stream_bytes(file.view().rep, type, count, &file_bytes);
  Access acc;
  if (err == MPI_SUCCESS) acc.map(file, offset, file_bytes);
  std::vector<int64_t> ranges;
  if (int e = gather_ranges(file, acc, &ranges); e != MPI_SUCCESS) return e;
  if (!aggregate(file.hints().cb_write, ranges, file.comm().size)) {
    if (err == MPI_SUCCESS) err = write_at(file, offset, buf, count, type, status);
    return agree_on_errors(file, err, "MPI_File_write_at_all");
  }
  Plan plan;
  if (make_plan(file, ranges, &plan)) {
    std::vector<char> packed;
    const char* stream = nullptr;
    const Datarep* rep = file.view().rep;
    if (type.contiguous && rep == nullptr) {
      stream = static_cast<const char*>(buf) + type.true_lb;
    } else if (acc.bytes > 0) {
      packed.resize(static_cast<std::size_t>(acc.bytes));
      if (rep != nullptr)
        err = datarep_to_file(*rep, buf, count, const_cast<Datatype&>(type), packed.data());
      else type.pack(buf, count, packed.data());
      stream = packed.data();
    }
    // A failed conversion (or offset) still takes part in the exchanges, with no data.
    if (err != MPI_SUCCESS) acc = Access{};
    const int w = two_phase_write(file, acc, stream, plan);
    if (err == MPI_SUCCESS) err = w;
  }
  err = agree_on_errors(file, err, "MPI_File_write_at_all");
  set_status(status, err == MPI_SUCCESS ? memory_bytes(file.view().rep, type, acc.bytes) : 0);
  return err;
}

int read_at_all(File& file, MPI_Offset offset, void* buf, MPI_Count count, const Datatype& type,
                MPI_Status* status) {
  if (file.hints().cb_read == Switch::kDisable)  // independent, errors still agreed
    return agree_on_errors(file, read_at(file, offset, buf, count, type, status),
                           "MPI_File_read_at_all");
  int err = check_offset(offset, "MPI_File_read_at_all");
  MPI_Count file_bytes = 0;
  if (err == MPI_SUCCESS) err = stream_bytes(file.view().rep, type, count, &file_bytes);
  Access acc;
  if (err == MPI_SUCCESS) acc.map(file, offset, file_bytes);
  std::vector<int64_t> ranges;
  if (int e = gather_ranges(file, acc, &ranges); e != MPI_SUCCESS) return e;
  if (!aggregate(file.hints().cb_read, ranges, file.comm().size)) {
    if (err == MPI_SUCCESS) err = read_at(file, offset, buf, count, type, status);
    return agree_on_errors(file, err, "MPI_File_read_at_all");
  }
  Plan plan;
  MPI_Count got = 0;
  if (make_plan(file, ranges, &plan)) {
    // The stream goes to a scratch buffer even for a contiguous user buffer:
    // the bytes past the end of the file must stay as they were there.
    std::vector<char> packed(static_cast<std::size_t>(acc.bytes));
    const int r = two_phase_read(file, acc, packed.data(), plan);
    if (err == MPI_SUCCESS) err = r;
    if (err == MPI_SUCCESS && acc.bytes > 0) {
      MPI_Offset eof = 0;
      err = file.driver().size(&eof);
      got = bytes_before_eof(acc, eof);
      if (err != MPI_SUCCESS) {
        got = 0;
      } else if (const Datarep* rep = file.view().rep; rep != nullptr) {
        err = datarep_from_file(*rep, packed.data(), got, count, const_cast<Datatype&>(type), buf);
      } else if (type.contiguous) {
        std::memcpy(static_cast<char*>(buf) + type.true_lb, packed.data(),
                    static_cast<std::size_t>(got));
      } else {
        type.unpack(packed.data(), got, count, buf);
      }
    }
  }
  err = agree_on_errors(file, err, "MPI_File_read_at_all");
  set_status(status, err == MPI_SUCCESS ? memory_bytes(file.view().rep, type, got) : 0);
  return err;
}

}  // namespace stmpi::mpi::io

namespace stmpi::impl {

using mpi::Datatype;
using mpi::io::File;
using mpi::io::SplitCollective;
using Kind = SplitCollective::Kind;

namespace {

// The individual-pointer forms: access at the pointer, which moves past
// the data moved (a short read moves it by what was read).
int individual_all(File& fh, bool write, void* buf, MPI_Count count, const Datatype& type,
                   MPI_Status* status, const char* function) {
  if (int err = mpi::io::check_access(fh, write, true, function); err != MPI_SUCCESS) return err;
  MPI_Status local;
  mpi::status_set_empty(&local);
  const int err = write ? mpi::io::write_at_all(fh, fh.position, buf, count, type, &local)
                        : mpi::io::read_at_all(fh, fh.position, buf, count, type, &local);
  fh.position += mpi::status_bytes(&local) / mpi::io::etype_size(fh);
  if (status != MPI_STATUS_IGNORE) mpi::status_copy_out(status, local);
  return err;
}

int explicit_all(File& fh, bool write, MPI_Offset offset, void* buf, MPI_Count count,
                 const Datatype& type, MPI_Status* status, const char* function) {
  if (int err = mpi::io::check_access(fh, write, true, function); err != MPI_SUCCESS) return err;
  // A negative offset is refused inside the collective (every process returns an error).
  return write ? mpi::io::write_at_all(fh, offset, buf, count, type, status)
               : mpi::io::read_at_all(fh, offset, buf, count, type, status);
}

// A split collective's begin: refuses a second one, runs the operation and
// keeps its result for the end call.
template <class Run>
int begin(File& fh, Kind kind, const void* buf, const char* function, Run&& run) {
  if (mpi::io::split_active(fh))
    return mpi::errhan::make_error(MPI_ERR_OTHER,
                                   "%s: a split collective is already in progress on file %s "
                                   "(MPI allows one at a time per file)",
                                   function, fh.name().c_str());
  MPI_Status status;
  mpi::status_set_empty(&status);
  const int err = run(&status);
  return mpi::io::split_begin(fh, kind, buf, err, status, function);
}

}  // namespace

int file_read_all_any(File& fh, void* buf, MPI_Count count, Datatype& datatype,
                      MPI_Status* status) {
  return individual_all(fh, false, buf, count, datatype, status, "MPI_File_read_all");
}

int file_write_all_any(File& fh, const void* buf, MPI_Count count, Datatype& datatype,
                       MPI_Status* status) {
  return individual_all(fh, true, const_cast<void*>(buf), count, datatype, status,
                        "MPI_File_write_all");
}

int file_read_at_all_any(File& fh, MPI_Offset offset, void* buf, MPI_Count count,
                         Datatype& datatype, MPI_Status* status) {
  return explicit_all(fh, false, offset, buf, count, datatype, status, "MPI_File_read_at_all");
}

int file_write_at_all_any(File& fh, MPI_Offset offset, const void* buf, MPI_Count count,
                          Datatype& datatype, MPI_Status* status) {
  return explicit_all(fh, true, offset, const_cast<void*>(buf), count, datatype, status,
                      "MPI_File_write_at_all");
}

int file_read_all_begin_any(File& fh, void* buf, MPI_Count count, Datatype& datatype) {
  return begin(fh, Kind::kReadAll, buf, "MPI_File_read_all_begin", [&](MPI_Status* st) {
    return individual_all(fh, false, buf, count, datatype, st, "MPI_File_read_all_begin");
  });
}

int file_write_all_begin_any(File& fh, const void* buf, MPI_Count count, Datatype& datatype) {
  return begin(fh, Kind::kWriteAll, buf, "MPI_File_write_all_begin", [&](MPI_Status* st) {
    return individual_all(fh, true, const_cast<void*>(buf), count, datatype, st,
                          "MPI_File_write_all_begin");
  });
}

int file_read_at_all_begin_any(File& fh, MPI_Offset offset, void* buf, MPI_Count count,
                               Datatype& datatype) {
  return begin(fh, Kind::kReadAtAll, buf, "MPI_File_read_at_all_begin", [&](MPI_Status* st) {
    return explicit_all(fh, false, offset, buf, count, datatype, st, "MPI_File_read_at_all_begin");
  });
}

int file_write_at_all_begin_any(File& fh, MPI_Offset offset, const void* buf, MPI_Count count,
                                Datatype& datatype) {
  return begin(fh, Kind::kWriteAtAll, buf, "MPI_File_write_at_all_begin", [&](MPI_Status* st) {
    return explicit_all(fh, true, offset, const_cast<void*>(buf), count, datatype, st,
                        "MPI_File_write_at_all_begin");
  });
}

int file_read_ordered_begin_any(File& fh, void* buf, MPI_Count count, Datatype& datatype) {
  return begin(fh, Kind::kReadOrdered, buf, "MPI_File_read_ordered_begin",
               [&](MPI_Status* st) { return mpi::io::read_ordered(fh, buf, count, datatype, st); });
}

int file_write_ordered_begin_any(File& fh, const void* buf, MPI_Count count, Datatype& datatype) {
  return begin(fh, Kind::kWriteOrdered, buf, "MPI_File_write_ordered_begin", [&](MPI_Status* st) {
    return mpi::io::write_ordered(fh, buf, count, datatype, st);
  });
}

int file_read_all_end(File& fh, void* buf, MPI_Status* status) {
  return mpi::io::split_end(fh, Kind::kReadAll, buf, status, "MPI_File_read_all_end");
}

int file_write_all_end(File& fh, const void* buf, MPI_Status* status) {
  return mpi::io::split_end(fh, Kind::kWriteAll, buf, status, "MPI_File_write_all_end");
}

int file_read_at_all_end(File& fh, void* buf, MPI_Status* status) {
  return mpi::io::split_end(fh, Kind::kReadAtAll, buf, status, "MPI_File_read_at_all_end");
}

int file_write_at_all_end(File& fh, const void* buf, MPI_Status* status) {
  return mpi::io::split_end(fh, Kind::kWriteAtAll, buf, status, "MPI_File_write_at_all_end");
}

int file_read_ordered_end(File& fh, void* buf, MPI_Status* status) {
  return mpi::io::split_end(fh, Kind::kReadOrdered, buf, status, "MPI_File_read_ordered_end");
}

int file_write_ordered_end(File& fh, const void* buf, MPI_Status* status) {
  return mpi::io::split_end(fh, Kind::kWriteOrdered, buf, status, "MPI_File_write_ordered_end");
}

}  // namespace stmpi::impl
