// The pieces of two-phase collective I/O (collective.cc) that the blocking
// calls and the nonblocking ones (nonblocking_coll.cc) share: a process's
// side of an access, the plan (aggregators, domains, rounds), the messages
// of a round and the aggregators' file work.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include <mpi.h>

#include "mpi/io/file.h"

namespace stmpi::mpi {
struct Comm;
struct Datatype;
}  // namespace stmpi::mpi

namespace stmpi::mpi::io {

constexpr MPI_Offset kNoAccess = std::numeric_limits<MPI_Offset>::max();

// What every process tells the others before a collective access, as
// kRangeWords int64 values (Access::range_words): its file range [lo, hi)
// (lo = kNoAccess without access) and the mean length of its pieces.
constexpr std::size_t kRangeWords = 3;
using RangeWords = std::array<int64_t, kRangeWords>;

Datatype& int64_type();

// A piece of one process's data: file bytes [offset, offset + length),
// stream bytes [pos, pos + length).
struct Piece {
  MPI_Offset offset;
  MPI_Count length;
  MPI_Count pos;
};

// This process's side of the access.
struct Access {
  std::vector<Run> runs;
  std::vector<MPI_Count> starts;  // stream position of each run
  MPI_Count bytes = 0;
  MPI_Offset lo = kNoAccess;  // first file byte touched
  MPI_Offset hi = 0;          // one past the last

  // This access as the others see it before a collective call.
  RangeWords range_words() const {
    const auto mean_piece =
        runs.empty() ? 0 : static_cast<int64_t>(bytes / static_cast<MPI_Count>(runs.size()));
    return {lo, hi, mean_piece};
  }

  void map(const File& file, MPI_Offset offset, MPI_Count nbytes) {
    // A filetype without data (size 0) gives no access at all.
    bytes = file.view().flat != nullptr ? nbytes : 0;
    if (bytes == 0) return;
    map_view(file, offset, nbytes, runs);
    starts.reserve(runs.size());
    MPI_Count pos = 0;
    for (const Run& run : runs) {
      starts.push_back(pos);
      pos += run.length;
      lo = std::min(lo, run.offset);
      hi = std::max(hi, run.offset + run.length);
    }
  }

  // Appends the pieces inside the file window [wlo, whi).
  void pieces_in(MPI_Offset wlo, MPI_Offset whi, std::vector<Piece>& out) const {
    if (runs.empty() || whi <= lo || wlo >= hi) return;
    // Runs are in increasing file order (filetypes have monotonically
    // nondecreasing displacements): skip those that end before the window.
    auto it = std::upper_bound(runs.begin(), runs.end(), wlo,
                               [](MPI_Offset v, const Run& r) { return v < r.offset + r.length; });
    for (; it != runs.end() && it->offset < whi; ++it) {
      const MPI_Offset s = std::max(it->offset, wlo);
      const MPI_Offset e = std::min(it->offset + it->length, whi);
      if (e <= s) continue;
      const auto i = static_cast<std::size_t>(it - runs.begin());
      out.push_back({s, e - s, starts[i] + (s - it->offset)});
    }
  }
};

// The aggregators, their domains and the rounds; the same on every process.
struct Plan {
  std::vector<int> aggregators;  // ranks, ascending
  MPI_Offset gmin = 0, gmax = 0;
  MPI_Offset domain = 0;  // bytes per aggregator
  MPI_Count window = 0;   // bytes per round
  MPI_Count rounds = 0;

  // File bytes aggregator `a` handles in round `r`.
  void window_of(std::size_t a, MPI_Count r, MPI_Offset* wlo, MPI_Offset* whi) const {
    const MPI_Offset dlo = gmin + static_cast<MPI_Offset>(a) * domain;
    const MPI_Offset dhi = std::min(gmax, dlo + domain);
    *wlo = std::min(dhi, dlo + r * window);
    *whi = std::min(dhi, *wlo + window);
  }
};

// Byte messages to or from every process of the communicator, in one
// buffer (what alltoallv moves): message i is counts[i] bytes at displs[i].
struct Messages {
  std::vector<MPI_Count> counts;
  std::vector<MPI_Aint> displs;
  std::unique_ptr<char[]> buf;  // not zeroed: every byte sent is written first

  // Lays the messages out after `counts` was set.
  void layout() {
    displs.resize(counts.size());
    MPI_Aint total = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      displs[i] = total;
      total += static_cast<MPI_Aint>(counts[i]);
    }
    buf.reset(new char[static_cast<std::size_t>(total) + 1]);
  }
  char* at(std::size_t i) { return buf.get() + displs[i]; }
  const char* at(std::size_t i) const { return buf.get() + displs[i]; }
};

// A piece an aggregator received: where it goes and its bytes.
struct Incoming {
  MPI_Offset offset;
  MPI_Count length;
  const char* data;  // write: the bytes; read: unused
  int source;
  std::size_t index;  // read: position in the source's request
};

// The aggregators: one per node, or cb_nodes ranks spread over the nodes.
std::vector<int> choose_aggregators(File& file);
// Serialized int64 values of the round messages.
char* put_i64(char* out, int64_t v);
int64_t get_i64(const char* p);
// Parses "[n][offset, length]*n[data]" messages (data only for writes).
std::vector<Incoming> parse(const Messages& recv, bool with_data);
// This process's per-aggregator messages of round r (data too when
// `stream` is not null); sent[dest] gets the pieces sent to dest.
void build_requests(const Access& acc, const Plan& plan, MPI_Count r, const char* stream,
                    Messages& send, std::vector<std::vector<Piece>>& sent);
// Aggregator side of a round: file-system work only (no MPI calls), so the
// I/O thread may run it.
int write_window(File& file, const std::vector<Incoming>& in);
int read_window(File& file, const std::vector<Incoming>& in, Messages& answers);
// Whether this call aggregates (the same answer on every process), and the
// plan from the allgathered ranges (false when nobody accesses anything).
bool aggregate(Switch mode, const std::vector<int64_t>& ranges, int nprocs);
bool make_plan(File& file, const std::vector<int64_t>& ranges, Plan* plan);
// Stream bytes that lie before the end of the file.
MPI_Count bytes_before_eof(const Access& acc, MPI_Offset eof);
// A negative offset fails on this process only.
int check_offset(MPI_Offset offset, const char* function);

}  // namespace stmpi::mpi::io
