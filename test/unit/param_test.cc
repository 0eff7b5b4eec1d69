// util::Param as MPI_T uses it: scopes (a table's default and a parameter's
// own), the value as text, and setting from text with ranges and choices.
#include <gtest/gtest.h>

#include <string>

#include "util/param.h"

namespace {

using stmpi::util::Param;
using stmpi::util::ParamTable;

int g_count = 0;
std::size_t g_bytes = 0;
bool g_flag = false;
std::string g_algorithm;
std::string g_text;

const char* const kChoices[] = {"auto", "ring", "linear"};

Param with_choices(Param param) {
  param.choices = kChoices;
  return param;
}

const Param kParams[] = {
    {"count", Param::Type::kInt, &g_count, "4", "a count", 1, 100},
    {"bytes", Param::Type::kSize, &g_bytes, "16K", "a size", 0, 1 << 20},
    {.name = "flag", .type = Param::Type::kBool, .field = &g_flag, .default_value = "no",
     .description = "a flag", .scope = Param::Scope::kLocal},
    with_choices({"algorithm", Param::Type::kString, &g_algorithm, "auto", "a choice"}),
    {"text", Param::Type::kString, &g_text, "", "free text"},
};
const ParamTable kTable{"unit", kParams, Param::Scope::kAllEq};

TEST(Param, ScopeComesFromTheTableUnlessTheParameterNamesOne) {
  EXPECT_EQ(stmpi::util::scope_of(kTable, kParams[0]), Param::Scope::kAllEq);
  EXPECT_EQ(stmpi::util::scope_of(kTable, kParams[2]), Param::Scope::kLocal);
  const ParamTable plain{"plain", kParams};
  EXPECT_EQ(stmpi::util::scope_of(plain, kParams[0]), Param::Scope::kInit);
}

TEST(Param, SetFromTextKeepsRangesAndChoices) {
  ASSERT_TRUE(stmpi::util::set_from_text(kParams[0], "7"));
  EXPECT_EQ(g_count, 7);
  EXPECT_FALSE(stmpi::util::set_from_text(kParams[0], "101"));
  EXPECT_FALSE(stmpi::util::set_from_text(kParams[0], "seven"));
  EXPECT_EQ(g_count, 7);
  ASSERT_TRUE(stmpi::util::set_from_text(kParams[1], "32K"));
  EXPECT_EQ(g_bytes, 32768u);
  EXPECT_EQ(stmpi::util::value_text(kParams[1]), "32K");
  EXPECT_FALSE(stmpi::util::set_from_text(kParams[1], "2M"));
  ASSERT_TRUE(stmpi::util::set_from_text(kParams[2], "yes"));
  EXPECT_TRUE(g_flag);
  EXPECT_EQ(stmpi::util::value_text(kParams[2]), "yes");
  EXPECT_FALSE(stmpi::util::set_from_text(kParams[2], "maybe"));
  ASSERT_TRUE(stmpi::util::set_from_text(kParams[3], "linear"));
  EXPECT_EQ(stmpi::util::choice_index(kParams[3]), 2);
  EXPECT_FALSE(stmpi::util::set_from_text(kParams[3], "bruck"));
  EXPECT_EQ(g_algorithm, "linear");
  ASSERT_TRUE(stmpi::util::set_from_text(kParams[4], "anything at all"));
  EXPECT_EQ(stmpi::util::value_text(kParams[4]), "anything at all");
  EXPECT_EQ(stmpi::util::choice_index(kParams[4]), -1);
  g_algorithm = "unknown";  // as an environment value no collective accepts
  EXPECT_EQ(stmpi::util::choice_index(kParams[3]), -1);
}

}  // namespace
