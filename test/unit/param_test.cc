// util::Param as MPI_T uses it: scopes (a table's default and a parameter's
// own), the value as text, and setting from text with ranges and choices;
// and as the loader uses it: steps and powers of two, the allowed values as
// text, and the message for a value the table refuses.
#include <gtest/gtest.h>

#include <cstdlib>
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
    {.name = "flag",
     .type = Param::Type::kBool,
     .field = &g_flag,
     .default_value = "no",
     .description = "a flag",
     .scope = Param::Scope::kLocal},
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

int g_cells = 0;
std::size_t g_cell_size = 0;

const Param kSteps[] = {
    {.name = "cells",
     .type = Param::Type::kInt,
     .field = &g_cells,
     .default_value = "32",
     .description = "a power of two",
     .min = 2,
     .max = 1024,
     .power_of_two = true},
    {.name = "cell_size",
     .type = Param::Type::kSize,
     .field = &g_cell_size,
     .default_value = "16K",
     .description = "a multiple of 64",
     .min = 256,
     .max = 1 << 20,
     .multiple_of = 64},
    with_choices({"mode", Param::Type::kString, &g_algorithm, "auto", "a choice"}),
};
const ParamTable kStepTable{"unitstep", kSteps};
const stmpi::util::ParamRegistration kStepRegistration{&kStepTable};

TEST(Param, StepsAndPowersOfTwo) {
  ASSERT_TRUE(stmpi::util::set_from_text(kSteps[0], "64"));
  EXPECT_EQ(g_cells, 64);
  EXPECT_FALSE(stmpi::util::set_from_text(kSteps[0], "48"));
  EXPECT_FALSE(stmpi::util::set_from_text(kSteps[0], "2048"));
  EXPECT_EQ(g_cells, 64);
  ASSERT_TRUE(stmpi::util::set_from_text(kSteps[1], "1024"));
  EXPECT_FALSE(stmpi::util::set_from_text(kSteps[1], "1000"));
  EXPECT_EQ(g_cell_size, 1024u);
}

TEST(Param, AllowedText) {
  EXPECT_EQ(stmpi::util::allowed_text(kSteps[0]), "2..1024, a power of two");
  EXPECT_EQ(stmpi::util::allowed_text(kSteps[1]), "256..1M, a multiple of 64");
  EXPECT_EQ(stmpi::util::allowed_text(kParams[0]), "1..100");
  EXPECT_EQ(stmpi::util::allowed_text(kParams[2]), "yes or no");
  EXPECT_EQ(stmpi::util::allowed_text(kParams[3]), "auto, ring or linear");
  EXPECT_EQ(stmpi::util::allowed_text(kParams[4]), "any text");
}

// The loader refuses what the table refuses, naming the variable, the value
// and the allowed values, and leaves the default in place.
TEST(Param, LoadRefusesValuesOutsideTheTable) {
  std::string error;
  setenv("STMPI_UNITSTEP_MODE", "bruck", 1);
  EXPECT_FALSE(stmpi::util::load_all(&error));
  EXPECT_EQ(error, "STMPI_UNITSTEP_MODE=bruck is not allowed: expected auto, ring or linear");
  EXPECT_EQ(g_algorithm, "auto");
  unsetenv("STMPI_UNITSTEP_MODE");
  setenv("STMPI_UNITSTEP_CELLS", "48", 1);
  EXPECT_FALSE(stmpi::util::load_all(&error));
  EXPECT_EQ(error, "STMPI_UNITSTEP_CELLS=48 is not allowed: expected 2..1024, a power of two");
  setenv("STMPI_UNITSTEP_CELLS", "many", 1);
  EXPECT_FALSE(stmpi::util::load_all(&error));
  EXPECT_NE(error.find("STMPI_UNITSTEP_CELLS=many is not valid"), std::string::npos) << error;
  setenv("STMPI_UNITSTEP_CELLS", "128", 1);
  setenv("STMPI_UNITSTEP_MODE", "ring", 1);
  EXPECT_TRUE(stmpi::util::load_all(&error)) << error;
  EXPECT_EQ(g_cells, 128);
  EXPECT_EQ(g_algorithm, "ring");
  unsetenv("STMPI_UNITSTEP_CELLS");
  unsetenv("STMPI_UNITSTEP_MODE");
}

}  // namespace
