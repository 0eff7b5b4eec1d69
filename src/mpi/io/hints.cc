// File hints (MPI 4.1 section 14.2.8): the keys STMPI acts on, accepted at
// open, set_view and set_info, and reported back by MPI_File_get_info with
// the values in effect. Values that do not parse are ignored, as the
// standard allows for hints.
#include <cerrno>
#include <cstdlib>
#include <string>

#include <mpi.h>

#include "mpi/coll/node.h"
#include "mpi/comm/comm.h"
#include "mpi/info/info.h"
#include "mpi/io/file.h"
#include "mpi/io/internal.h"

namespace stmpi::mpi::io {
namespace {

bool parse_count(std::string_view text, MPI_Count* out) {
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str() || *end != '\0' || v <= 0) return false;
  *out = v;
  return true;
}

bool parse_switch(std::string_view text, Switch* out) {
  if (text == "enable" || text == "true") *out = Switch::kEnable;
  else if (text == "disable" || text == "false") *out = Switch::kDisable;
  else if (text == "automatic" || text == "auto") *out = Switch::kAutomatic;
  else return false;
  return true;
}

const char* switch_name(Switch s) {
  switch (s) {
    case Switch::kEnable: return "enable";
    case Switch::kDisable: return "disable";
    default: return "automatic";
  }
}

}  // namespace

void apply_hints(Hints& hints, const Info* info, int* perm) {
  if (info == nullptr) return;
  MPI_Count n = 0;
  for (const auto& [key, value] : info->entries) {
    if (key == "cb_buffer_size" && parse_count(value, &n)) hints.cb_buffer_size = n;
    else if (key == "cb_nodes" && parse_count(value, &n)) hints.cb_nodes = static_cast<int>(n);
    else if (key == "romio_cb_read" || key == "cb_read") parse_switch(value, &hints.cb_read);
    else if (key == "romio_cb_write" || key == "cb_write") parse_switch(value, &hints.cb_write);
    else if (key == "romio_ds_read" || key == "ds_read") parse_switch(value, &hints.ds_read);
    else if (key == "romio_ds_write" || key == "ds_write") parse_switch(value, &hints.ds_write);
    else if (key == "ind_rd_buffer_size" && parse_count(value, &n)) hints.ind_rd_buffer_size = n;
    else if (key == "ind_wr_buffer_size" && parse_count(value, &n)) hints.ind_wr_buffer_size = n;
    else if (key == "striping_factor" && parse_count(value, &n))
      hints.striping_factor = static_cast<int>(n);
    else if (key == "striping_unit" && parse_count(value, &n)) hints.striping_unit = n;
    else if (key == "file_perm" && perm != nullptr) {
      const std::string s(value);
      char* end = nullptr;
      const long p = std::strtol(s.c_str(), &end, 8);
      if (end != s.c_str() && *end == '\0' && p >= 0 && p <= 07777) *perm = static_cast<int>(p);
    }
  }
}

MPI_Info hints_to_info(const File& file) {
  const Hints& h = file.hints();
  Info* info = info_create();
  info->set("cb_buffer_size", std::to_string(h.cb_buffer_size));
  int nodes = h.cb_nodes;
  if (nodes <= 0) nodes = static_cast<int>(coll::node_layout(file.comm()).leaders.size());
  if (nodes > file.comm().size) nodes = file.comm().size;
  info->set("cb_nodes", std::to_string(nodes));
  info->set("romio_cb_read", switch_name(h.cb_read));
  info->set("romio_cb_write", switch_name(h.cb_write));
  info->set("romio_ds_read", switch_name(h.ds_read));
  info->set("romio_ds_write", switch_name(h.ds_write));
  info->set("ind_rd_buffer_size", std::to_string(h.ind_rd_buffer_size));
  info->set("ind_wr_buffer_size", std::to_string(h.ind_wr_buffer_size));
  if (h.striping_factor > 0) info->set("striping_factor", std::to_string(h.striping_factor));
  if (h.striping_unit > 0) info->set("striping_unit", std::to_string(h.striping_unit));
  return info->handle;
}

}  // namespace stmpi::mpi::io
