// The chapter's runtime parameters (STMPI_IO_*), its MPI_T performance
// variables and the optional timers of where I/O time goes.
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>

#include <mpi.h>

#include "mpi/io/collective.h"
#include "mpi/io/internal.h"
#include "util/param.h"
#include "util/pvar.h"

namespace stmpi::mpi::io {
namespace {

struct Settings {
  std::size_t direct_min_bytes = 0;
  std::size_t sieve_max_hole = 0;
  std::size_t sieve_max_piece = 0;
  bool timers = false;
} g_settings;

// The defaults come from test/bench/io_sieve.c and io_ior.sh runs on a
// local file system (test/bench/RESULTS.md). The direct path
// (test/bench/io_direct.sh, interleaved blocks of 256 B to 1 MiB): each
// process writing its own pieces beat aggregation from 4 KiB pieces on one
// node and at every size across nodes, and tied at 1 KiB on one node,
// because the aggregator serializes the writes of its node and adds an
// exchange (a network transfer between nodes); the default is that tie. A
// parallel file system, where aggregation aligned to stripes pays, wants a
// larger value. Sieving: see sieve_max_hole's description and RESULTS.md.
const util::Param kParams[] = {
    {.name = "direct_min_bytes",
     .type = util::Param::Type::kSize,
     .field = &g_settings.direct_min_bytes,
     .default_value = "1K",
     .description = "collective I/O with romio_cb_read / romio_cb_write = automatic: when every "
                    "process's file pieces are on average at least this many bytes long, each "
                    "process reads or writes its own data directly instead of through "
                    "aggregators, interleaved or not (0: always direct); must be the same on "
                    "every process"},
    {.name = "sieve_max_hole",
     .type = util::Param::Type::kSize,
     .field = &g_settings.sieve_max_hole,
     .default_value = "1K",
     .description = "independent noncontiguous access with romio_ds_read / romio_ds_write = "
                    "automatic: data sieving (one covering read, or a locked read-modify-write) "
                    "when the mean hole between the file pieces is at most this many bytes and "
                    "the mean piece at most STMPI_IO_SIEVE_MAX_PIECE, else one system call per "
                    "piece",
     .scope = util::Param::Scope::kLocal},
    {.name = "sieve_max_piece",
     .type = util::Param::Type::kSize,
     .field = &g_settings.sieve_max_piece,
     .default_value = "1K",
     .description = "the largest mean piece (bytes) for which independent access sieves under "
                    "romio_ds_* = automatic (see STMPI_IO_SIEVE_MAX_HOLE)",
     .scope = util::Param::Scope::kLocal},
    {.name = "timers",
     .type = util::Param::Type::kBool,
     .field = &g_settings.timers,
     .default_value = "no",
     .description = "time the chapter's exchanges between processes, file-system calls and "
                    "byte-range locks (MPI_T counters io_time_exchange_ns, io_time_fs_ns, "
                    "io_time_lock_ns) and print them per process at MPI_Finalize",
     .scope = util::Param::Scope::kLocal},
};
// Read at each call: a change through MPI_T applies to the next call;
// direct_min_bytes must be the same on every process.
const util::ParamTable kTable{"io", kParams, util::Param::Scope::kAllEq};
const util::ParamRegistration kRegistration{&kTable};

std::atomic<uint64_t> g_times[3];

const util::Pvar kPvars[] = {
    {"filetype_flattens", util::Pvar::Class::kCounter, [] { return filetype_flattens(); },
     "datatypes flattened into file byte runs (once per type and data representation; the "
     "result is kept on the type)"},
    {"filetype_cache_hits", util::Pvar::Class::kCounter, [] { return filetype_cache_hits(); },
     "views and accesses that found a type's file byte runs already computed"},
    {"time_exchange_ns", util::Pvar::Class::kCounter,
     [] { return g_times[0].load(std::memory_order_relaxed); },
     "nanoseconds in the exchanges of collective I/O (ranges, messages, error agreement); "
     "counted with STMPI_IO_TIMERS=yes"},
    {"time_fs_ns", util::Pvar::Class::kCounter,
     [] { return g_times[1].load(std::memory_order_relaxed); },
     "nanoseconds in file-system calls (reads, writes, sync); counted with STMPI_IO_TIMERS=yes"},
    {"time_lock_ns", util::Pvar::Class::kCounter,
     [] { return g_times[2].load(std::memory_order_relaxed); },
     "nanoseconds taking and releasing byte-range locks; counted with STMPI_IO_TIMERS=yes"},
};
const util::PvarTable kPvarTable{"io", kPvars};
const util::PvarRegistration kPvarRegistration{&kPvarTable};

}  // namespace

MPI_Count direct_min_bytes() { return static_cast<MPI_Count>(g_settings.direct_min_bytes); }
MPI_Count sieve_max_hole() { return static_cast<MPI_Count>(g_settings.sieve_max_hole); }
MPI_Count sieve_max_piece() { return static_cast<MPI_Count>(g_settings.sieve_max_piece); }
bool timers_on() { return g_settings.timers; }

uint64_t timer_now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

void timer_add(TimeKind kind, uint64_t ns) {
  g_times[static_cast<int>(kind)].fetch_add(ns, std::memory_order_relaxed);
}

void timers_report() {
  if (!g_settings.timers) return;
  std::fprintf(stderr,
               "STMPI io timers (pid %ld): exchange %.3f ms, file system %.3f ms, locks %.3f ms\n",
               static_cast<long>(getpid()), g_times[0].load() / 1e6, g_times[1].load() / 1e6,
               g_times[2].load() / 1e6);
}

}  // namespace stmpi::mpi::io
