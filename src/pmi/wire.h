// The PMI-1 line format, shared by the client (libmpi) and the server in
// mpiexec: a line is space-separated key=value tokens, and since it cannot
// carry spaces, '=' or newlines, such bytes of a value travel as '%' and two
// hex digits.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace stmpi::pmi {

// Value of `key=` in a line of space-separated key=value tokens (as it is on
// the wire: still escaped); nullopt when the line has no such token.
inline std::optional<std::string_view> wire_field(std::string_view line, std::string_view key) {
  while (!line.empty()) {
    std::size_t end = line.find(' ');
    std::string_view token = line.substr(0, end);
    std::size_t eq = token.find('=');
    if (eq != std::string_view::npos && token.substr(0, eq) == key) return token.substr(eq + 1);
    if (end == std::string_view::npos) break;
    line.remove_prefix(end + 1);
  }
  return std::nullopt;
}

// Bytes that travel as themselves. A leading '#' is escaped too: keys with
// '#' hold the pieces of long values.
inline bool wire_literal_byte(unsigned char c, bool first) {
  return c > ' ' && c < 0x7f && c != '%' && !(first && c == '#');
}

inline std::string wire_escape(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (wire_literal_byte(c, i == 0)) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    }
  }
  return out;
}

inline int wire_hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Values put by other PMI users (e.g. Hydra's PMI_process_mapping) are not
// escaped; a '%' that does not start a valid escape is kept as it is.
inline std::string wire_unescape(std::string_view wire) {
  std::string out;
  out.reserve(wire.size());
  for (std::size_t i = 0; i < wire.size(); ++i) {
    if (wire[i] == '%' && i + 2 < wire.size() && wire_hex_digit(wire[i + 1]) >= 0 &&
        wire_hex_digit(wire[i + 2]) >= 0) {
      out.push_back(
          static_cast<char>(wire_hex_digit(wire[i + 1]) * 16 + wire_hex_digit(wire[i + 2])));
      i += 2;
    } else {
      out.push_back(wire[i]);
    }
  }
  return out;
}

}  // namespace stmpi::pmi
