// MPI_Info: an ordered list of (key, value) strings, used here for window
// hints (MPI_Win_create ..., MPI_Win_set_info/get_info). MPI_INFO_ENV is a
// predefined empty info.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mpi/handle.h"

namespace stmpi::mpi {

struct Info {
  int handle = 0;
  std::vector<std::pair<std::string, std::string>> entries;  // in insertion order
  bool predefined = false;

  std::optional<std::string_view> find(std::string_view key) const;
  void set(std::string_view key, std::string_view value);
};

HandleTable<Info, ObjectKind::kInfo>& info_table();
// The info named by `handle`, or nullptr (MPI_INFO_NULL, freed, unknown).
Info* info_get(int handle);
// A new registered info (the caller owns the handle).
Info* info_create();

}  // namespace stmpi::mpi
