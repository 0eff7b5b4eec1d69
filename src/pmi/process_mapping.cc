#include "pmi/process_mapping.h"

#include <cctype>

namespace stmpi::pmi {
namespace {

struct Block {
  int first_node = 0;
  int node_count = 0;
  int ranks_per_node = 0;
};

class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  bool take(char c) {
    skip_space();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  bool take_word(std::string_view word) {
    skip_space();
    if (text_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }
  bool number(int* out) {
    skip_space();
    long value = 0;
    std::size_t digits = 0;
    while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) {
      value = value * 10 + (text_[at_] - '0');
      if (value > 1 << 30) return false;
      ++at_;
      ++digits;
    }
    *out = static_cast<int>(value);
    return digits != 0;
  }
  bool at_end() {
    skip_space();
    return at_ == text_.size();
  }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace

bool parse_process_mapping(std::string_view text, int size, std::vector<int>* node_of) {
  Cursor in(text);
  if (!in.take('(') || !in.take_word("vector")) return false;
  std::vector<Block> blocks;
  while (in.take(',')) {
    Block b;
    if (!in.take('(') || !in.number(&b.first_node) || !in.take(',') || !in.number(&b.node_count) ||
        !in.take(',') || !in.number(&b.ranks_per_node) || !in.take(')'))
      return false;
    if (b.node_count <= 0 || b.ranks_per_node <= 0) return false;
    blocks.push_back(b);
  }
  if (!in.take(')') || !in.at_end() || blocks.empty() || size < 0) return false;
  node_of->assign(size, 0);
  int rank = 0;
  while (rank < size) {
    for (const Block& b : blocks) {
      for (int n = 0; n < b.node_count && rank < size; ++n)
        for (int k = 0; k < b.ranks_per_node && rank < size; ++k)
          (*node_of)[rank++] = b.first_node + n;
      if (rank >= size) break;
    }
  }
  return true;
}

}  // namespace stmpi::pmi
