#include "util/param.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace stmpi::util {
namespace {

std::vector<const ParamTable*>& registry() {
  static std::vector<const ParamTable*> tables;
  return tables;
}

bool parse_size(const char* text, std::size_t* out) {
  char* end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text || text[0] == '-') return false;
  switch (std::tolower(static_cast<unsigned char>(*end))) {
    case 'k': value <<= 10; ++end; break;
    case 'm': value <<= 20; ++end; break;
    case 'g': value <<= 30; ++end; break;
    default: break;
  }
  if (*end != '\0') return false;
  *out = static_cast<std::size_t>(value);
  return true;
}

bool parse_bool(const char* text, bool* out) {
  if (!std::strcmp(text, "1") || !strcasecmp(text, "yes") || !strcasecmp(text, "true") ||
      !strcasecmp(text, "on")) {
    *out = true;
    return true;
  }
  if (!std::strcmp(text, "0") || !strcasecmp(text, "no") || !strcasecmp(text, "false") ||
      !strcasecmp(text, "off")) {
    *out = false;
    return true;
  }
  return false;
}

bool assign(const Param& param, const char* text) {
  switch (param.type) {
    case Param::Type::kInt: {
      char* end = nullptr;
      errno = 0;
      const long value = std::strtol(text, &end, 10);
      if (errno != 0 || end == text || *end != '\0') return false;
      *static_cast<int*>(param.field) = static_cast<int>(value);
      return true;
    }
    case Param::Type::kSize:
      return parse_size(text, static_cast<std::size_t*>(param.field));
    case Param::Type::kBool:
      return parse_bool(text, static_cast<bool*>(param.field));
    case Param::Type::kString:
      *static_cast<std::string*>(param.field) = text;
      return true;
  }
  return false;
}

}  // namespace

ParamRegistration::ParamRegistration(const ParamTable* table) { registry().push_back(table); }

std::span<const ParamTable* const> tables() { return registry(); }

std::string env_name(const char* module, const char* name) {
  std::string result = "STMPI_";
  for (const char* p = module; *p; ++p) result += static_cast<char>(std::toupper(*p));
  if (*name == '\0') return result;  // a module with one parameter: STMPI_<MODULE>
  result += '_';
  for (const char* p = name; *p; ++p) result += static_cast<char>(std::toupper(*p));
  return result;
}

bool load_all(std::string* error) {
  for (const ParamTable* table : registry()) {
    for (const Param& param : table->params) {
      (void)assign(param, param.default_value);
      const std::string var = env_name(table->module, param.name);
      const char* text = std::getenv(var.c_str());  // the one place settings come from
      if (text != nullptr && !assign(param, text)) {
        *error = var + "=" + text + " is not a valid value";
        return false;
      }
    }
  }
  return true;
}

}  // namespace stmpi::util
