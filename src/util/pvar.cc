#include "util/pvar.h"

#include <vector>

namespace stmpi::util {
namespace {

std::vector<const PvarTable*>& registry() {
  static std::vector<const PvarTable*> tables;
  return tables;
}

}  // namespace

PvarRegistration::PvarRegistration(const PvarTable* table) { registry().push_back(table); }

std::span<const PvarTable* const> pvar_tables() { return registry(); }

const char* pvar_class_name(Pvar::Class var_class) {
  switch (var_class) {
    case Pvar::Class::kLevel: return "level";
    case Pvar::Class::kCounter: return "counter";
    case Pvar::Class::kHighwatermark: return "highwatermark";
  }
  return "";
}

}  // namespace stmpi::util
