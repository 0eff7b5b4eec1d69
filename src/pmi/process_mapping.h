// PMI-1's process mapping: which node each rank runs on, as the launcher
// publishes it under the key PMI_process_mapping (Hydra, our mpiexec).
// Format: "(vector,(first_node,node_count,ranks_per_node),...)": each block
// puts ranks_per_node consecutive ranks on each of node_count nodes starting
// at first_node; the list repeats until every rank has a node.
#pragma once

#include <string_view>
#include <vector>

namespace stmpi::pmi {

// Fills node_of[r] for ranks 0..size-1; false if `text` is not a mapping
// this parser understands (then the caller falls back to host names).
[[nodiscard]] bool parse_process_mapping(std::string_view text, int size,
                                         std::vector<int>* node_of);

}  // namespace stmpi::pmi
