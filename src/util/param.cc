#include "util/param.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace stmpi::util {
namespace {

std::vector<const ParamTable*>& registry() {
  static std::vector<const ParamTable*> tables;
  return tables;
}

// Both parsers accept only what fits: a value that strtoll/strtoull clamps
// or a suffix that shifts bits out is malformed, never wrapped.
bool parse_size(const char* text, unsigned long long* out) {
  char* end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text || text[0] == '-') return false;
  int shift = 0;
  switch (std::tolower(static_cast<unsigned char>(*end))) {
    case 'k':
      shift = 10;
      ++end;
      break;
    case 'm':
      shift = 20;
      ++end;
      break;
    case 'g':
      shift = 30;
      ++end;
      break;
    default: break;
  }
  if (*end != '\0' || value > (ULLONG_MAX >> shift)) return false;
  *out = value << shift;
  return true;
}

bool parse_int(const char* text, long long* out) {
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0') return false;
  *out = value;
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

// The range of a parameter: the table's, narrowed to what its field holds.
long long range_min(const Param& param) {
  const long long type_min = param.type == Param::Type::kInt ? INT_MIN : 0;
  return std::max(param.min, type_min);
}
long long range_max(const Param& param) {
  const long long type_max = param.type == Param::Type::kInt ? INT_MAX : LLONG_MAX;
  return std::min(param.max, type_max);
}

// "16K" for 16384: sizes are printed with the largest exact suffix.
std::string size_text(long long value) {
  static const char kSuffix[] = {'G', 'M', 'K'};
  for (int i = 0; i < 3; ++i) {
    const int shift = 30 - 10 * i;
    if (value > 0 && value % (1ll << shift) == 0)
      return std::to_string(value >> shift) + kSuffix[i];
  }
  return std::to_string(value);
}

enum class Assigned { kOk, kMalformed, kNotAllowed };

// Range, step and power of two: what the table allows beyond the type.
bool allowed(const Param& param, long long value) {
  if (value < range_min(param) || value > range_max(param)) return false;
  if (param.multiple_of > 1 && value % param.multiple_of != 0) return false;
  if (param.power_of_two && (value <= 0 || (value & (value - 1)) != 0)) return false;
  return true;
}

bool is_choice(const Param& param, const char* text) {
  return std::any_of(param.choices.begin(), param.choices.end(),
                     [text](const char* choice) { return !std::strcmp(choice, text); });
}

Assigned assign(const Param& param, const char* text) {
  switch (param.type) {
    case Param::Type::kInt: {
      long long value = 0;
      if (!parse_int(text, &value)) return Assigned::kMalformed;
      if (!allowed(param, value)) return Assigned::kNotAllowed;
      *static_cast<int*>(param.field) = static_cast<int>(value);
      return Assigned::kOk;
    }
    case Param::Type::kSize: {
      unsigned long long value = 0;
      if (!parse_size(text, &value)) return Assigned::kMalformed;
      if (value > static_cast<unsigned long long>(range_max(param)) ||
          !allowed(param, static_cast<long long>(value)))
        return Assigned::kNotAllowed;
      *static_cast<std::size_t*>(param.field) = static_cast<std::size_t>(value);
      return Assigned::kOk;
    }
    case Param::Type::kBool:
      return parse_bool(text, static_cast<bool*>(param.field)) ? Assigned::kOk
                                                               : Assigned::kMalformed;
    case Param::Type::kString:
      if (!param.choices.empty() && !is_choice(param, text)) return Assigned::kNotAllowed;
      *static_cast<std::string*>(param.field) = text;
      return Assigned::kOk;
  }
  return Assigned::kMalformed;
}

const char* kind_text(const Param& param) {
  switch (param.type) {
    case Param::Type::kInt: return "an integer";
    case Param::Type::kSize: return "a size in bytes (suffix K, M or G allowed)";
    case Param::Type::kBool: return "yes/no, true/false, on/off or 1/0";
    case Param::Type::kString: return "a string";
  }
  return "";
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

std::string range_text(const Param& param) {
  if (param.type == Param::Type::kInt)
    return std::to_string(range_min(param)) + ".." + std::to_string(range_max(param));
  if (param.type == Param::Type::kSize)
    return size_text(range_min(param)) + ".." + size_text(range_max(param));
  return "";
}

std::string allowed_text(const Param& param) {
  std::string text;
  switch (param.type) {
    case Param::Type::kInt:
    case Param::Type::kSize: {
      // Bounds that are only the field type's are not printed as numbers.
      if (param.type == Param::Type::kSize && range_max(param) == LLONG_MAX)
        text = range_min(param) == 0 ? "any size" : size_text(range_min(param)) + " or more";
      else if (param.type == Param::Type::kInt && range_min(param) == INT_MIN &&
               range_max(param) == INT_MAX)
        text = "any integer";
      else text = range_text(param);
      if (param.multiple_of > 1) text += ", a multiple of " + std::to_string(param.multiple_of);
      if (param.power_of_two) text += ", a power of two";
      return text;
    }
    case Param::Type::kBool: return "yes or no";
    case Param::Type::kString:
      if (param.choices.empty()) return "any text";
      for (std::size_t i = 0; i < param.choices.size(); ++i) {
        if (i > 0) text += i + 1 == param.choices.size() ? " or " : ", ";
        text += param.choices[i];
      }
      return text;
  }
  return text;
}

Param::Scope scope_of(const ParamTable& table, const Param& param) {
  return param.scope == Param::Scope::kTable ? table.scope : param.scope;
}

std::string value_text(const Param& param) {
  switch (param.type) {
    case Param::Type::kInt: return std::to_string(*static_cast<const int*>(param.field));
    case Param::Type::kSize:
      return size_text(static_cast<long long>(*static_cast<const std::size_t*>(param.field)));
    case Param::Type::kBool: return *static_cast<const bool*>(param.field) ? "yes" : "no";
    case Param::Type::kString: return *static_cast<const std::string*>(param.field);
  }
  return "";
}

int choice_index(const Param& param) {
  if (param.type != Param::Type::kString) return -1;
  const std::string& value = *static_cast<const std::string*>(param.field);
  for (std::size_t i = 0; i < param.choices.size(); ++i)
    if (value == param.choices[i]) return static_cast<int>(i);
  return -1;
}

bool set_from_text(const Param& param, const char* text) {
  return assign(param, text) == Assigned::kOk;
}

bool load_all(std::string* error) {
  for (const ParamTable* table : registry()) {
    for (const Param& param : table->params) {
      (void)assign(param, param.default_value);
      const std::string var = env_name(table->module, param.name);
      const char* text = std::getenv(var.c_str());  // the one place settings come from
      if (text == nullptr) continue;
      const Assigned result = assign(param, text);
      if (result == Assigned::kOk) continue;
      *error = var + "=" + text;
      if (result == Assigned::kNotAllowed)
        *error += " is not allowed: expected " + allowed_text(param);
      else
        *error += std::string(" is not valid: expected ") + kind_text(param) +
                  (param.type == Param::Type::kBool ? "" : ", " + allowed_text(param));
      (void)assign(param, param.default_value);
      return false;
    }
  }
  return true;
}

}  // namespace stmpi::util
