// Datatypes (layout, pack/unpack, elements) and reduction operations,
// tested without a launcher.
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include <mpi.h>

#include "mpi/coll/impl_coll.h"
#include "mpi/coll/op.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/datatype/impl_datatype.h"
#include "mpi/errhan/error.h"
#include "mpi/init/impl_env.h"

namespace stmpi {
namespace {

using mpi::Datatype;

class DatatypeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mpi::datatype_init_predefined();
    mpi::op_init_predefined();
  }
  void TearDown() override {
    for (MPI_Datatype& handle : created_) {
      if (handle != MPI_DATATYPE_NULL) {
        EXPECT_EQ(impl::type_free(&handle), MPI_SUCCESS);
      }
    }
  }

  static Datatype& type(MPI_Datatype handle) {
    Datatype* object = mpi::datatype_get(handle);
    EXPECT_NE(object, nullptr) << std::hex << handle;
    return *object;
  }
  // Remembers a new type so that TearDown frees it, and commits it.
  Datatype& keep(MPI_Datatype handle) {
    created_.push_back(handle);
    EXPECT_EQ(impl::type_commit(&handle), MPI_SUCCESS);
    return type(handle);
  }
  static mpi::Op& op(MPI_Op handle) { return *mpi::op_get(handle); }

  static void expect_shape(const Datatype& t, MPI_Count size, MPI_Aint lb, MPI_Aint extent,
                           MPI_Aint true_lb, MPI_Aint true_extent) {
    EXPECT_EQ(t.size, size);
    EXPECT_EQ(t.lb, lb);
    EXPECT_EQ(t.extent, extent);
    EXPECT_EQ(t.true_lb, true_lb);
    EXPECT_EQ(t.true_extent, true_extent);
  }

  std::vector<MPI_Datatype> created_;
  mpi::Comm comm_;
};

int error_class(int code) { return mpi::errhan::error_class_of(code); }

// ---------------------------------------------------------------- predefined

TEST_F(DatatypeTest, BasicTypesHaveCSizes) {
  struct Expect {
    MPI_Datatype handle;
    size_t size;
    const char* name;
  };
  const Expect expected[] = {
      {MPI_CHAR, sizeof(char), "MPI_CHAR"},
      {MPI_SIGNED_CHAR, sizeof(signed char), "MPI_SIGNED_CHAR"},
      {MPI_UNSIGNED_CHAR, 1, "MPI_UNSIGNED_CHAR"},
      {MPI_BYTE, 1, "MPI_BYTE"},
      {MPI_WCHAR, sizeof(wchar_t), "MPI_WCHAR"},
      {MPI_SHORT, sizeof(short), "MPI_SHORT"},
      {MPI_UNSIGNED_SHORT, sizeof(unsigned short), "MPI_UNSIGNED_SHORT"},
      {MPI_INT, sizeof(int), "MPI_INT"},
      {MPI_UNSIGNED, sizeof(unsigned), "MPI_UNSIGNED"},
      {MPI_LONG, sizeof(long), "MPI_LONG"},
      {MPI_UNSIGNED_LONG, sizeof(unsigned long), "MPI_UNSIGNED_LONG"},
      {MPI_LONG_LONG, sizeof(long long), "MPI_LONG_LONG_INT"},
      {MPI_UNSIGNED_LONG_LONG, sizeof(unsigned long long), "MPI_UNSIGNED_LONG_LONG"},
      {MPI_FLOAT, sizeof(float), "MPI_FLOAT"},
      {MPI_DOUBLE, sizeof(double), "MPI_DOUBLE"},
      {MPI_LONG_DOUBLE, sizeof(long double), "MPI_LONG_DOUBLE"},
      {MPI_PACKED, 1, "MPI_PACKED"},
      {MPI_INT8_T, 1, "MPI_INT8_T"},
      {MPI_INT16_T, 2, "MPI_INT16_T"},
      {MPI_INT32_T, 4, "MPI_INT32_T"},
      {MPI_INT64_T, 8, "MPI_INT64_T"},
      {MPI_UINT8_T, 1, "MPI_UINT8_T"},
      {MPI_UINT16_T, 2, "MPI_UINT16_T"},
      {MPI_UINT32_T, 4, "MPI_UINT32_T"},
      {MPI_UINT64_T, 8, "MPI_UINT64_T"},
      {MPI_C_BOOL, sizeof(bool), "MPI_C_BOOL"},
      {MPI_C_FLOAT_COMPLEX, sizeof(std::complex<float>), "MPI_C_COMPLEX"},
      {MPI_C_DOUBLE_COMPLEX, sizeof(std::complex<double>), "MPI_C_DOUBLE_COMPLEX"},
      {MPI_C_LONG_DOUBLE_COMPLEX, sizeof(std::complex<long double>), "MPI_C_LONG_DOUBLE_COMPLEX"},
      {MPI_AINT, sizeof(MPI_Aint), "MPI_AINT"},
      {MPI_OFFSET, sizeof(MPI_Offset), "MPI_OFFSET"},
      {MPI_COUNT, sizeof(MPI_Count), "MPI_COUNT"},
      {MPI_CXX_BOOL, sizeof(bool), "MPI_CXX_BOOL"},
      {MPI_CXX_FLOAT_COMPLEX, 8, "MPI_CXX_FLOAT_COMPLEX"},
      {MPI_CXX_DOUBLE_COMPLEX, 16, "MPI_CXX_DOUBLE_COMPLEX"},
      {MPI_CXX_LONG_DOUBLE_COMPLEX, 32, "MPI_CXX_LONG_DOUBLE_COMPLEX"},
      {MPI_CHARACTER, 1, "MPI_CHARACTER"},
      {MPI_INTEGER, 4, "MPI_INTEGER"},
      {MPI_REAL, 4, "MPI_REAL"},
      {MPI_LOGICAL, 4, "MPI_LOGICAL"},
      {MPI_COMPLEX, 8, "MPI_COMPLEX"},
      {MPI_DOUBLE_PRECISION, 8, "MPI_DOUBLE_PRECISION"},
      {MPI_DOUBLE_COMPLEX, 16, "MPI_DOUBLE_COMPLEX"},
      {MPI_REAL4, 4, "MPI_REAL4"},
      {MPI_REAL8, 8, "MPI_REAL8"},
      {MPI_REAL16, 16, "MPI_REAL16"},
      {MPI_COMPLEX8, 8, "MPI_COMPLEX8"},
      {MPI_COMPLEX16, 16, "MPI_COMPLEX16"},
      {MPI_COMPLEX32, 32, "MPI_COMPLEX32"},
      {MPI_INTEGER1, 1, "MPI_INTEGER1"},
      {MPI_INTEGER2, 2, "MPI_INTEGER2"},
      {MPI_INTEGER4, 4, "MPI_INTEGER4"},
      {MPI_INTEGER8, 8, "MPI_INTEGER8"},
      {MPI_2INTEGER, 8, "MPI_2INTEGER"},
      {MPI_2REAL, 8, "MPI_2REAL"},
      {MPI_2DOUBLE_PRECISION, 16, "MPI_2DOUBLE_PRECISION"},
  };
  for (const Expect& e : expected) {
    SCOPED_TRACE(e.name);
    const Datatype& t = type(e.handle);
    expect_shape(t, static_cast<MPI_Count>(e.size), 0, static_cast<MPI_Aint>(e.size), 0,
                 static_cast<MPI_Aint>(e.size));
    EXPECT_TRUE(t.contiguous);
    EXPECT_TRUE(t.predefined);
    EXPECT_TRUE(t.committed);
    EXPECT_STREQ(mpi::datatype_name(e.handle), e.name);
    // The MPICH handle encodes the size in its second byte.
    EXPECT_EQ((static_cast<unsigned>(e.handle) >> 8) & 0xff, e.size);
  }
  EXPECT_EQ(mpi::datatype_get(MPI_DATATYPE_NULL), nullptr);
  EXPECT_EQ(mpi::datatype_get(MPI_INT + 0x80), nullptr);
  EXPECT_EQ(mpi::datatype_get(MPI_COMM_WORLD), nullptr);
  EXPECT_STREQ(mpi::datatype_name(MPI_DATATYPE_NULL), "MPI_DATATYPE_NULL");
}

template <class V, class I>
struct Pair {
  V value;
  I index;
};

template <class V, class I>
void expect_pair(const Datatype& t, const char* name) {
  SCOPED_TRACE(name);
  using P = Pair<V, I>;
  EXPECT_EQ(t.size, static_cast<MPI_Count>(sizeof(V) + sizeof(I)));
  EXPECT_EQ(t.lb, 0);
  EXPECT_EQ(t.extent, static_cast<MPI_Aint>(sizeof(P)));
  EXPECT_EQ(t.true_lb, 0);
  EXPECT_EQ(t.true_extent, static_cast<MPI_Aint>(offsetof(P, index) + sizeof(I)));
  EXPECT_EQ(t.contiguous, sizeof(P) == sizeof(V) + sizeof(I));
  EXPECT_EQ(t.elements(t.size), 2);
  EXPECT_STREQ(t.name.c_str(), name);
}

TEST_F(DatatypeTest, PairTypesHaveStructLayouts) {
  expect_pair<float, int>(type(MPI_FLOAT_INT), "MPI_FLOAT_INT");
  expect_pair<double, int>(type(MPI_DOUBLE_INT), "MPI_DOUBLE_INT");
  expect_pair<long, int>(type(MPI_LONG_INT), "MPI_LONG_INT");
  expect_pair<short, int>(type(MPI_SHORT_INT), "MPI_SHORT_INT");
  expect_pair<long double, int>(type(MPI_LONG_DOUBLE_INT), "MPI_LONG_DOUBLE_INT");
  expect_pair<int, int>(type(MPI_2INT), "MPI_2INT");
  // MPI_DOUBLE_INT: 12 data bytes in a 16-byte struct.
  EXPECT_EQ(type(MPI_DOUBLE_INT).size, 12);
  EXPECT_EQ(type(MPI_DOUBLE_INT).extent, 16);
  // MPI_SHORT_INT has a hole between the short and the int.
  Pair<short, int> in[2] = {{1, 2}, {3, 4}};
  char packed[12];
  type(MPI_SHORT_INT).pack(in, 2, packed);
  short s;
  int i;
  std::memcpy(&s, packed + 6, 2);
  std::memcpy(&i, packed + 8, 4);
  EXPECT_EQ(s, 3);
  EXPECT_EQ(i, 4);
}

TEST_F(DatatypeTest, MarkersAreEmpty) {
  expect_shape(type(MPI_LB), 0, 0, 0, 0, 0);
  expect_shape(type(MPI_UB), 0, 0, 0, 0, 0);
}

// -------------------------------------------------------------- constructors

TEST_F(DatatypeTest, Contiguous) {
  MPI_Datatype h;
  ASSERT_EQ(impl::type_contiguous(5, type(MPI_INT), &h), MPI_SUCCESS);
  Datatype& t = keep(h);
  expect_shape(t, 20, 0, 20, 0, 20);
  EXPECT_TRUE(t.contiguous);
  EXPECT_FALSE(t.predefined);
  EXPECT_EQ(t.contents.combiner, MPI_COMBINER_CONTIGUOUS);
  EXPECT_STREQ(mpi::datatype_name(h), "derived datatype");

  ASSERT_EQ(impl::type_contiguous_c(MPI_Count{1} << 32, type(MPI_INT), &h), MPI_SUCCESS);
  Datatype& big = keep(h);
  int size = 0;
  MPI_Count size_c = 0;
  EXPECT_EQ(impl::type_size(big, &size), MPI_SUCCESS);
  EXPECT_EQ(size, MPI_UNDEFINED);
  EXPECT_EQ(impl::type_size_count(big, &size_c), MPI_SUCCESS);
  EXPECT_EQ(size_c, MPI_Count{4} << 32);
}

TEST_F(DatatypeTest, VectorAndHvector) {
  MPI_Datatype h;
  ASSERT_EQ(impl::type_vector(3, 2, 4, type(MPI_DOUBLE), &h), MPI_SUCCESS);
  Datatype& v = keep(h);
  // Blocks of 16 bytes at 0, 32, 64: extent 80.
  expect_shape(v, 48, 0, 80, 0, 80);
  EXPECT_FALSE(v.contiguous);
  ASSERT_EQ(v.layout.blocks.size(), 1u);
  EXPECT_EQ(v.layout.blocks[0], (mpi::DataBlock{0, 16, 3, 32}));

  // Negative byte stride: the last block comes first in memory.
  ASSERT_EQ(impl::type_create_hvector(3, 1, -8, type(MPI_INT), &h), MPI_SUCCESS);
  expect_shape(keep(h), 12, -16, 20, -16, 20);

  // A vector whose blocks touch is contiguous.
  ASSERT_EQ(impl::type_vector(4, 2, 2, type(MPI_INT), &h), MPI_SUCCESS);
  Datatype& dense = keep(h);
  EXPECT_TRUE(dense.contiguous);
  expect_shape(dense, 32, 0, 32, 0, 32);

  // A million strided doubles stay one block.
  ASSERT_EQ(impl::type_vector_c(1000000, 1, 2, type(MPI_DOUBLE), &h), MPI_SUCCESS);
  EXPECT_EQ(keep(h).layout.blocks.size(), 1u);
}

TEST_F(DatatypeTest, IndexedFamily) {
  MPI_Datatype h;
  const int lens[] = {2, 0, 1};
  const int displs[] = {3, 100, 0};
  ASSERT_EQ(impl::type_indexed(3, lens, displs, type(MPI_INT), &h), MPI_SUCCESS);
  // Data at [12, 20) and [0, 4); the empty block does not count.
  expect_shape(keep(h), 12, 0, 20, 0, 20);

  const MPI_Aint hdispls[] = {-4, 10, 2};
  ASSERT_EQ(impl::type_create_hindexed(3, lens, hdispls, type(MPI_CHAR), &h), MPI_SUCCESS);
  expect_shape(keep(h), 3, -4, 7, -4, 7);

  const int bdispls[] = {1, 5};
  ASSERT_EQ(impl::type_create_indexed_block(2, 3, bdispls, type(MPI_SHORT), &h), MPI_SUCCESS);
  expect_shape(keep(h), 12, 2, 14, 2, 14);

  const MPI_Aint hbdispls[] = {16, 0};
  ASSERT_EQ(impl::type_create_hindexed_block(2, 1, hbdispls, type(MPI_DOUBLE), &h), MPI_SUCCESS);
  expect_shape(keep(h), 16, 0, 24, 0, 24);

  const MPI_Count clens[] = {1, 1};
  const MPI_Count cdispls[] = {0, 2};
  ASSERT_EQ(impl::type_indexed_c(2, clens, cdispls, type(MPI_INT), &h), MPI_SUCCESS);
  Datatype& c = keep(h);
  expect_shape(c, 8, 0, 12, 0, 12);
  EXPECT_TRUE(c.contents.large_counts);
  EXPECT_EQ(c.contents.counts, (std::vector<MPI_Count>{2, 1, 1, 0, 2}));
}

TEST_F(DatatypeTest, StructPadsLikeC) {
  struct DoubleChar {
    double d;
    char c;
  };
  MPI_Datatype h;
  const int lens[] = {1, 1};
  const MPI_Aint displs[] = {0, offsetof(DoubleChar, c)};
  const MPI_Datatype types[] = {MPI_DOUBLE, MPI_CHAR};
  ASSERT_EQ(impl::type_create_struct(2, lens, displs, types, &h), MPI_SUCCESS);
  expect_shape(keep(h), 9, 0, sizeof(DoubleChar), 0, 9);

  // One type only: no padding (as hindexed).
  const MPI_Aint odd[] = {0, 9};
  const MPI_Datatype doubles[] = {MPI_DOUBLE, MPI_DOUBLE};
  ASSERT_EQ(impl::type_create_struct(2, lens, odd, doubles, &h), MPI_SUCCESS);
  expect_shape(keep(h), 16, 0, 17, 0, 17);

  // An MPI_UB marker fixes the upper bound.
  const int lens3[] = {1, 1, 1};
  const MPI_Aint displs3[] = {0, 8, 9};
  const MPI_Datatype types3[] = {MPI_DOUBLE, MPI_CHAR, MPI_UB};
  ASSERT_EQ(impl::type_create_struct(3, lens3, displs3, types3, &h), MPI_SUCCESS);
  expect_shape(keep(h), 9, 0, 9, 0, 9);
  const MPI_Aint displs_lb[] = {0, 8, -4};
  const MPI_Datatype types_lb[] = {MPI_INT, MPI_INT, MPI_LB};
  ASSERT_EQ(impl::type_create_struct(3, lens3, displs_lb, types_lb, &h), MPI_SUCCESS);
  expect_shape(keep(h), 8, -4, 16, 0, 12);

  // An empty component adds no type-map entries, hence no bounds; a
  // resized one does.
  MPI_Datatype empty_h, empty_resized_h;
  ASSERT_EQ(impl::type_contiguous(0, type(MPI_INT), &empty_h), MPI_SUCCESS);
  Datatype& empty = keep(empty_h);
  expect_shape(empty, 0, 0, 0, 0, 0);
  const MPI_Aint far[] = {100, 0};
  const MPI_Datatype with_empty[] = {empty_h, MPI_INT};
  ASSERT_EQ(impl::type_create_struct(2, lens, far, with_empty, &h), MPI_SUCCESS);
  expect_shape(keep(h), 4, 0, 4, 0, 4);
  ASSERT_EQ(impl::type_create_resized(empty, 3, 10, &empty_resized_h), MPI_SUCCESS);
  keep(empty_resized_h);
  const MPI_Datatype with_resized[] = {empty_resized_h, MPI_INT};
  ASSERT_EQ(impl::type_create_struct(2, lens, far, with_resized, &h), MPI_SUCCESS);
  expect_shape(keep(h), 4, 0, 116, 0, 4);
}

TEST_F(DatatypeTest, ResizedAndDup) {
  MPI_Datatype h;
  ASSERT_EQ(impl::type_create_resized(type(MPI_INT), -4, 12, &h), MPI_SUCCESS);
  Datatype& r = keep(h);
  expect_shape(r, 4, -4, 12, 0, 4);
  EXPECT_FALSE(r.contiguous);

  // Resized to its own size: instances touch, so it is contiguous.
  ASSERT_EQ(impl::type_create_resized_c(type(MPI_INT), -4, 4, &h), MPI_SUCCESS);
  EXPECT_TRUE(keep(h).contiguous);

  MPI_Datatype d;
  ASSERT_EQ(impl::type_dup(r, &d), MPI_SUCCESS);
  Datatype& dup = keep(d);
  expect_shape(dup, 4, -4, 12, 0, 4);
  EXPECT_EQ(dup.contents.combiner, MPI_COMBINER_DUP);
  EXPECT_EQ(dup.contents.types[0], &r);

  ASSERT_EQ(impl::type_dup(type(MPI_DOUBLE_INT), &d), MPI_SUCCESS);
  Datatype& pair = keep(d);
  EXPECT_TRUE(pair.layout.base_dense);
  EXPECT_EQ(pair.layout.base_type, MPI_DOUBLE_INT);
}

TEST_F(DatatypeTest, ComponentsOutliveTheirHandles) {
  MPI_Datatype inner, outer;
  ASSERT_EQ(impl::type_vector(2, 1, 2, type(MPI_INT), &inner), MPI_SUCCESS);
  ASSERT_EQ(impl::type_contiguous(2, type(inner), &outer), MPI_SUCCESS);
  Datatype* inner_object = mpi::datatype_get(inner);
  ASSERT_EQ(impl::type_free(&inner), MPI_SUCCESS);
  EXPECT_EQ(inner, MPI_DATATYPE_NULL);
  EXPECT_EQ(inner_object->refs.load(), 1);  // held by outer
  Datatype& o = keep(outer);
  int in[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  int packed[4];
  o.pack(in, 1, packed);
  EXPECT_EQ(packed[0], 0);
  EXPECT_EQ(packed[1], 2);
  EXPECT_EQ(packed[2], 3);  // the vector's extent is three ints
  EXPECT_EQ(packed[3], 5);
}

TEST_F(DatatypeTest, ArgumentErrors) {
  MPI_Datatype h;
  int code = impl::type_contiguous(-1, type(MPI_INT), &h);
  EXPECT_EQ(error_class(code), MPI_ERR_COUNT);
  EXPECT_NE(mpi::errhan::error_string(code).find("count = -1"), std::string::npos)
      << mpi::errhan::error_string(code);

  const int lens[] = {1, -2};
  const int displs[] = {0, 1};
  code = impl::type_indexed(2, lens, displs, type(MPI_INT), &h);
  EXPECT_EQ(error_class(code), MPI_ERR_COUNT);
  EXPECT_NE(mpi::errhan::error_string(code).find("array_of_blocklengths[1] = -2"),
            std::string::npos);

  const MPI_Aint sdispls[] = {0, 8};
  const MPI_Datatype bad_types[] = {MPI_INT, MPI_DATATYPE_NULL};
  const int ones[] = {1, 1};
  code = impl::type_create_struct(2, ones, sdispls, bad_types, &h);
  EXPECT_EQ(error_class(code), MPI_ERR_TYPE);
  EXPECT_NE(mpi::errhan::error_string(code).find("array_of_types[1]"), std::string::npos);
  const MPI_Datatype bogus[] = {MPI_INT, MPI_COMM_WORLD};
  EXPECT_EQ(error_class(impl::type_create_struct(2, ones, sdispls, bogus, &h)), MPI_ERR_TYPE);

  EXPECT_EQ(error_class(impl::type_vector(1, 1, 1, type(MPI_INT), nullptr)), MPI_ERR_ARG);
  EXPECT_EQ(error_class(impl::type_indexed(2, nullptr, displs, type(MPI_INT), &h)), MPI_ERR_ARG);

  MPI_Datatype predefined = MPI_INT;
  code = impl::type_free(&predefined);
  EXPECT_EQ(error_class(code), MPI_ERR_TYPE);
  EXPECT_EQ(predefined, MPI_INT);
  EXPECT_EQ(impl::type_commit(&predefined), MPI_SUCCESS);
  MPI_Datatype null_type = MPI_DATATYPE_NULL;
  EXPECT_EQ(error_class(impl::type_commit(&null_type)), MPI_ERR_TYPE);
  EXPECT_EQ(error_class(impl::type_commit(nullptr)), MPI_ERR_ARG);
}

TEST_F(DatatypeTest, Names) {
  MPI_Datatype h;
  ASSERT_EQ(impl::type_contiguous(2, type(MPI_INT), &h), MPI_SUCCESS);
  Datatype& t = keep(h);
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  ASSERT_EQ(impl::type_get_name(t, name, &len), MPI_SUCCESS);
  EXPECT_EQ(len, 0);
  EXPECT_STREQ(name, "");
  ASSERT_EQ(impl::type_set_name(t, "pair of ints"), MPI_SUCCESS);
  ASSERT_EQ(impl::type_get_name(t, name, &len), MPI_SUCCESS);
  EXPECT_STREQ(name, "pair of ints");
  EXPECT_EQ(len, 12);
  EXPECT_STREQ(mpi::datatype_name(h), "pair of ints");
  ASSERT_EQ(impl::type_get_name(type(MPI_FLOAT_INT), name, &len), MPI_SUCCESS);
  EXPECT_STREQ(name, "MPI_FLOAT_INT");
}

// ------------------------------------------------------------ pack / unpack

// Packs `count` instances from `src`, checks the packed bytes, unpacks into
// a zeroed buffer of the same size and compares the data positions.
void round_trip(const Datatype& t, const void* src, MPI_Count count, size_t buffer_bytes,
                const std::vector<char>& expected_packed) {
  std::vector<char> packed(static_cast<size_t>(count * t.size));
  t.pack(src, count, packed.data());
  EXPECT_EQ(packed, expected_packed);
  std::vector<char> back(buffer_bytes, 0);
  t.unpack(packed.data(), count * t.size, count, back.data());
  std::vector<char> repacked(packed.size());
  t.pack(back.data(), count, repacked.data());
  EXPECT_EQ(repacked, packed);
}

std::vector<char> bytes_of_ints(std::initializer_list<int> values) {
  std::vector<char> out(values.size() * sizeof(int));
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

TEST_F(DatatypeTest, PackVector) {
  MPI_Datatype h;
  ASSERT_EQ(impl::type_vector(3, 2, 3, type(MPI_INT), &h), MPI_SUCCESS);
  Datatype& t = keep(h);
  int src[16];
  std::iota(src, src + 16, 0);
  // extent = 8 ints; two instances.
  round_trip(t, src, 2, sizeof src, bytes_of_ints({0, 1, 3, 4, 6, 7, 8, 9, 11, 12, 14, 15}));
  int back[16] = {};
  int packed[] = {0, 1, 3, 4, 6, 7};
  t.unpack(packed, sizeof packed, 1, back);
  EXPECT_EQ(back[2], 0);  // gaps untouched
  EXPECT_EQ(back[7], 7);
}

TEST_F(DatatypeTest, PackStructWithGapsAndNesting) {
  struct Item {
    char tag;
    double value;
    short n;
  };
  MPI_Datatype item_h;
  const int lens[] = {1, 1, 1};
  const MPI_Aint displs[] = {offsetof(Item, tag), offsetof(Item, value), offsetof(Item, n)};
  const MPI_Datatype types[] = {MPI_CHAR, MPI_DOUBLE, MPI_SHORT};
  ASSERT_EQ(impl::type_create_struct(3, lens, displs, types, &item_h), MPI_SUCCESS);
  Datatype& item = keep(item_h);
  EXPECT_EQ(item.size, 11);
  EXPECT_EQ(item.extent, static_cast<MPI_Aint>(sizeof(Item)));

  Item items[4] = {{'a', 1.5, 1}, {'b', 2.5, 2}, {'c', 3.5, 3}, {'d', 4.5, 4}};
  std::vector<char> expected;
  for (const Item& it : items) {
    const char* p = reinterpret_cast<const char*>(&it);
    expected.insert(expected.end(), p, p + 1);
    expected.insert(expected.end(), p + offsetof(Item, value), p + offsetof(Item, value) + 8);
    expected.insert(expected.end(), p + offsetof(Item, n), p + offsetof(Item, n) + 2);
  }
  round_trip(item, items, 4, sizeof items, expected);

  // Items 0 and 2 (a vector of the struct) resized to one item's extent:
  // two instances read items 0, 2, 1, 3.
  MPI_Datatype every_other_h, shifted_h;
  ASSERT_EQ(impl::type_vector(2, 1, 2, item, &every_other_h), MPI_SUCCESS);
  Datatype& every_other = keep(every_other_h);
  ASSERT_EQ(impl::type_create_resized(every_other, 0, sizeof(Item), &shifted_h), MPI_SUCCESS);
  Datatype& shifted = keep(shifted_h);
  EXPECT_EQ(shifted.size, 22);
  std::vector<char> packed(static_cast<size_t>(shifted.size * 2));
  shifted.pack(items, 2, packed.data());
  const char order[] = {'a', 'c', 'b', 'd'};
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(packed[static_cast<size_t>(11 * k)], order[k]);
    double v;
    std::memcpy(&v, packed.data() + 11 * k + 1, 8);
    EXPECT_EQ(v, 1.5 + (order[k] - 'a'));
  }
  std::vector<char> expected_nested;
  for (int k : {0, 2, 1, 3}) {
    expected_nested.insert(expected_nested.end(), expected.begin() + 11 * k,
                           expected.begin() + 11 * (k + 1));
  }
  round_trip(shifted, items, 2, sizeof items, expected_nested);
}

TEST_F(DatatypeTest, PackResizedInterleaves) {
  // A resized int with extent 8 picks every other int.
  MPI_Datatype h;
  ASSERT_EQ(impl::type_create_resized(type(MPI_INT), 0, 8, &h), MPI_SUCCESS);
  Datatype& t = keep(h);
  int src[8];
  std::iota(src, src + 8, 10);
  round_trip(t, src, 4, sizeof src, bytes_of_ints({10, 12, 14, 16}));
}

TEST_F(DatatypeTest, PartialUnpackAndRanges) {
  MPI_Datatype h;
  ASSERT_EQ(impl::type_vector(4, 1, 2, type(MPI_INT), &h), MPI_SUCCESS);
  Datatype& t = keep(h);
  const int packed[] = {1, 2, 3, 4};
  int back[8];
  std::fill(back, back + 8, -1);
  t.unpack(packed, 10, 1, back);  // two ints and half of the third
  EXPECT_EQ(back[0], 1);
  EXPECT_EQ(back[2], 2);
  EXPECT_NE(back[4], 3);
  EXPECT_EQ(back[6], -1);
  int third = -1;
  std::memcpy(&third, &back[4], 2);
  int expect_half = -1;
  std::memcpy(&expect_half, &packed[2], 2);
  EXPECT_EQ(third, expect_half);

  // Pieces of arbitrary sizes add up to the whole packed stream.
  int src[24];
  std::iota(src, src + 24, 0);
  std::vector<char> whole(static_cast<size_t>(3 * t.size));
  t.pack(src, 3, whole.data());
  for (MPI_Count piece : {1, 3, 5, 7, 16}) {
    std::vector<char> pieces(whole.size());
    for (MPI_Count off = 0; off < static_cast<MPI_Count>(whole.size()); off += piece) {
      t.pack_range(src, 3, off, piece, pieces.data() + off);
    }
    EXPECT_EQ(pieces, whole) << "piece " << piece;
    int dst[24] = {};
    for (MPI_Count off = 0; off < static_cast<MPI_Count>(whole.size()); off += piece) {
      t.unpack_range(whole.data() + off, off, piece, 3, dst);
    }
    std::vector<char> repacked(whole.size());
    t.pack(dst, 3, repacked.data());
    EXPECT_EQ(repacked, whole) << "piece " << piece;
  }
}

TEST_F(DatatypeTest, PackApi) {
  MPI_Datatype h;
  ASSERT_EQ(impl::type_vector(2, 1, 2, type(MPI_INT), &h), MPI_SUCCESS);
  Datatype& t = keep(h);
  int src[6] = {1, 2, 3, 4, 5, 6};  // two instances: ints 0, 2 and 3, 5
  char buf[32];
  int position = 4;
  ASSERT_EQ(impl::pack_any(src, 2, t, buf, sizeof buf, &position, comm_), MPI_SUCCESS);
  EXPECT_EQ(position, 20);
  int size = 0;
  ASSERT_EQ(impl::pack_size(2, t, comm_, &size), MPI_SUCCESS);
  EXPECT_EQ(size, 16);
  int code = impl::pack_any(src, 2, t, buf, sizeof buf, &position, comm_);
  EXPECT_EQ(error_class(code), MPI_ERR_TRUNCATE);
  EXPECT_NE(mpi::errhan::error_string(code).find("outsize = 32"), std::string::npos)
      << mpi::errhan::error_string(code);

  int dst[6] = {};
  position = 4;
  ASSERT_EQ(impl::unpack_any(buf, 20, &position, dst, 2, t, comm_), MPI_SUCCESS);
  EXPECT_EQ(position, 20);
  EXPECT_EQ(dst[0], 1);
  EXPECT_EQ(dst[1], 0);
  EXPECT_EQ(dst[2], 3);
  EXPECT_EQ(dst[3], 4);
  EXPECT_EQ(dst[4], 0);
  EXPECT_EQ(dst[5], 6);
  position = 8;
  EXPECT_EQ(error_class(impl::unpack_any(buf, 20, &position, dst, 2, t, comm_)), MPI_ERR_TRUNCATE);

  MPI_Count position_c = 0;
  ASSERT_EQ(impl::pack_any(src, 1, t, buf, 8, &position_c, comm_), MPI_SUCCESS);
  EXPECT_EQ(position_c, 8);

  MPI_Datatype uncommitted;
  ASSERT_EQ(impl::type_contiguous(2, type(MPI_INT), &uncommitted), MPI_SUCCESS);
  position = 0;
  EXPECT_EQ(error_class(impl::pack_any(src, 1, type(uncommitted), buf, 32, &position, comm_)),
            MPI_ERR_TYPE);
  ASSERT_EQ(impl::type_free(&uncommitted), MPI_SUCCESS);
}

TEST_F(DatatypeTest, Addresses) {
  int array[4] = {};
  MPI_Aint a0, a2;
  ASSERT_EQ(impl::get_address(&array[0], &a0), MPI_SUCCESS);
  ASSERT_EQ(impl::get_address(&array[2], &a2), MPI_SUCCESS);
  EXPECT_EQ(impl::aint_diff(a2, a0), 8);
  EXPECT_EQ(impl::aint_add(a0, 8), a2);
  EXPECT_EQ(error_class(impl::get_address(array, nullptr)), MPI_ERR_ARG);
}

// Packs by interpreting the constructor arguments directly, one basic
// element at a time: an independent reference for the merged block lists.
struct Element {
  const char* at;
  MPI_Aint size;
};

void reference_pack(const Datatype& t, const char* base, std::vector<char>& out,
                    std::vector<Element>& elements) {
  const mpi::TypeContents& c = t.contents;
  if (t.predefined) {
    out.insert(out.end(), base, base + t.size);
    elements.push_back({base, static_cast<MPI_Aint>(t.size)});
    return;
  }
  const std::vector<int>& ints = c.ints;
  auto sub = [&](const Datatype* old, MPI_Aint disp, MPI_Count n) {
    for (MPI_Count j = 0; j < n; ++j) {
      reference_pack(*old, base + disp + j * old->extent, out, elements);
    }
  };
  const Datatype* old = c.types.empty() ? nullptr : c.types[0];
  switch (c.combiner) {
    case MPI_COMBINER_CONTIGUOUS: sub(old, 0, ints[0]); break;
    case MPI_COMBINER_VECTOR:
      for (int i = 0; i < ints[0]; ++i) sub(old, MPI_Aint{i} * ints[2] * old->extent, ints[1]);
      break;
    case MPI_COMBINER_HVECTOR:
      for (int i = 0; i < ints[0]; ++i) sub(old, i * c.aints[0], ints[1]);
      break;
    case MPI_COMBINER_INDEXED:
      for (int i = 0; i < ints[0]; ++i) {
        sub(old, MPI_Aint{ints[1 + ints[0] + i]} * old->extent, ints[1 + i]);
      }
      break;
    case MPI_COMBINER_HINDEXED:
      for (int i = 0; i < ints[0]; ++i) sub(old, c.aints[i], ints[1 + i]);
      break;
    case MPI_COMBINER_INDEXED_BLOCK:
      for (int i = 0; i < ints[0]; ++i) sub(old, MPI_Aint{ints[2 + i]} * old->extent, ints[1]);
      break;
    case MPI_COMBINER_HINDEXED_BLOCK:
      for (int i = 0; i < ints[0]; ++i) sub(old, c.aints[i], ints[1]);
      break;
    case MPI_COMBINER_STRUCT:
      for (int i = 0; i < ints[0]; ++i) sub(c.types[i], c.aints[i], ints[1 + i]);
      break;
    case MPI_COMBINER_RESIZED:
    case MPI_COMBINER_DUP: sub(old, 0, 1); break;
    default: ADD_FAILURE() << "combiner " << c.combiner;
  }
}

class RandomTypes {
 public:
  explicit RandomTypes(unsigned seed) : state_(seed) {}
  ~RandomTypes() {
    for (MPI_Datatype& h : made_) EXPECT_EQ(impl::type_free(&h), MPI_SUCCESS);
  }

  Datatype& make(int depth) {
    static const MPI_Datatype kLeaves[] = {MPI_CHAR, MPI_SHORT, MPI_INT, MPI_DOUBLE,
                                           MPI_LONG_DOUBLE};
    if (depth == 0 || pick(4) == 0) return *mpi::datatype_get(kLeaves[pick(5)]);
    Datatype& old = make(depth - 1);
    const int count = 1 + pick(4);
    std::vector<int> lens(static_cast<size_t>(count)), displs(lens.size());
    std::vector<MPI_Aint> hdispls(lens.size());
    for (size_t i = 0; i < lens.size(); ++i) {
      lens[i] = pick(4);
      displs[i] = pick(9) - 2;
      hdispls[i] = pick(97) - 16;
    }
    MPI_Datatype h = MPI_DATATYPE_NULL;
    int rc = MPI_SUCCESS;
    switch (pick(10)) {
      case 0: rc = impl::type_contiguous(count, old, &h); break;
      case 1: rc = impl::type_vector(count, 1 + pick(3), pick(7) - 2, old, &h); break;
      case 2: rc = impl::type_create_hvector(count, 1 + pick(3), pick(65) - 16, old, &h); break;
      case 3: rc = impl::type_indexed(count, lens.data(), displs.data(), old, &h); break;
      case 4: rc = impl::type_create_hindexed(count, lens.data(), hdispls.data(), old, &h); break;
      case 5: rc = impl::type_create_indexed_block(count, pick(3), displs.data(), old, &h); break;
      case 6: rc = impl::type_create_hindexed_block(count, pick(3), hdispls.data(), old, &h); break;
      case 7: {
        std::vector<MPI_Datatype> types(lens.size());
        for (MPI_Datatype& t : types) t = make(depth - 1).handle;
        rc = impl::type_create_struct(count, lens.data(), hdispls.data(), types.data(), &h);
        break;
      }
      case 8: rc = impl::type_create_resized(old, pick(17) - 8, pick(41), &h); break;
      default: rc = impl::type_dup(old, &h); break;
    }
    EXPECT_EQ(rc, MPI_SUCCESS);
    made_.push_back(h);
    EXPECT_EQ(impl::type_commit(&h), MPI_SUCCESS);
    return *mpi::datatype_get(h);
  }

  int pick(int n) {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((state_ >> 33) % static_cast<uint64_t>(n));
  }

 private:
  uint64_t state_;
  std::vector<MPI_Datatype> made_;
};

TEST_F(DatatypeTest, RandomTypesMatchReference) {
  std::vector<char> memory(1 << 20);
  for (size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<char>(i * 131 + (i >> 8));
  const char* base = memory.data() + memory.size() / 2;
  for (unsigned seed = 1; seed <= 400; ++seed) {
    SCOPED_TRACE(seed);
    RandomTypes random(seed);
    const Datatype& t = random.make(3);
    const MPI_Count count = 1 + random.pick(3);
    std::vector<char> expected;
    std::vector<Element> elements;
    reference_pack(t, base, expected, elements);
    if (!elements.empty()) {
      const char* lo = elements[0].at;
      const char* hi = lo;
      for (const Element& e : elements) {
        lo = std::min(lo, e.at);
        hi = std::max(hi, e.at + e.size);
      }
      EXPECT_EQ(t.true_lb, lo - base);
      EXPECT_EQ(t.true_extent, hi - lo);
    }
    for (MPI_Count k = 1; k < count; ++k) {
      reference_pack(t, base + k * t.extent, expected, elements);
    }
    ASSERT_EQ(static_cast<MPI_Count>(expected.size()), count * t.size);
    std::vector<char> packed(expected.size());
    t.pack(base, count, packed.data());
    ASSERT_EQ(packed, expected);
    if (!expected.empty()) {
      const MPI_Count piece = 1 + random.pick(static_cast<int>(expected.size()));
      std::vector<char> pieces(expected.size());
      for (MPI_Count off = 0; off < static_cast<MPI_Count>(expected.size()); off += piece) {
        t.pack_range(base, count, off, piece, pieces.data() + off);
      }
      ASSERT_EQ(pieces, expected);
    }
    // Elements at every cut.
    MPI_Count cut = 0, n = 0;
    for (const Element& e : elements) {
      EXPECT_EQ(t.elements(cut), n);
      if (e.size > 1) {
        EXPECT_EQ(t.elements(cut + 1), MPI_UNDEFINED);
      }
      cut += e.size;
      ++n;
    }
    EXPECT_EQ(t.elements(cut), n);
  }
}

// ----------------------------------------------------------------- elements

TEST_F(DatatypeTest, Elements) {
  const Datatype& i = type(MPI_INT);
  EXPECT_EQ(i.elements(12), 3);
  EXPECT_EQ(i.elements(10), MPI_UNDEFINED);
  EXPECT_EQ(i.elements(0), 0);

  MPI_Datatype h;
  const int lens[] = {2, 1};
  const MPI_Aint displs[] = {0, 8};
  const MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE};
  ASSERT_EQ(impl::type_create_struct(2, lens, displs, types, &h), MPI_SUCCESS);
  Datatype& s = keep(h);  // int int double: 16 bytes, 3 elements
  EXPECT_EQ(s.elements(4), 1);
  EXPECT_EQ(s.elements(8), 2);
  EXPECT_EQ(s.elements(12), MPI_UNDEFINED);
  EXPECT_EQ(s.elements(16), 3);
  EXPECT_EQ(s.elements(20), 4);
  EXPECT_EQ(s.elements(40), 8);

  // A vector of pairs: two elements per pair.
  ASSERT_EQ(impl::type_vector(2, 1, 2, type(MPI_DOUBLE_INT), &h), MPI_SUCCESS);
  Datatype& v = keep(h);
  EXPECT_EQ(v.elements(24), 4);
  EXPECT_EQ(v.elements(8), 1);
  EXPECT_EQ(v.elements(10), MPI_UNDEFINED);
  EXPECT_EQ(v.elements(20), 3);

  // Many repeats of a mixed struct stay compact and count right.
  ASSERT_EQ(impl::type_contiguous(1000, s, &h), MPI_SUCCESS);
  Datatype& many = keep(h);
  EXPECT_LE(many.layout.signature.size(), 2u);
  EXPECT_EQ(many.elements(16 * 999 + 8), 999 * 3 + 2);
}

// ---------------------------------------------------------------- operations

template <class T>
std::vector<T> reduce(MPI_Op op_handle, MPI_Datatype type_handle, std::vector<T> in,
                      std::vector<T> inout, int* code = nullptr) {
  const int rc = mpi::op_apply(*mpi::op_get(op_handle), in.data(), inout.data(),
                               static_cast<MPI_Count>(in.size()), *mpi::datatype_get(type_handle));
  if (code != nullptr) *code = rc;
  else EXPECT_EQ(rc, MPI_SUCCESS);
  return inout;
}

TEST_F(DatatypeTest, ArithmeticOps) {
  EXPECT_EQ(reduce<int>(MPI_SUM, MPI_INT, {1, -2, 3}, {10, 20, 30}),
            (std::vector<int>{11, 18, 33}));
  EXPECT_EQ(reduce<int>(MPI_PROD, MPI_INT, {2, -2, 3}, {10, 20, 30}),
            (std::vector<int>{20, -40, 90}));
  EXPECT_EQ(reduce<int>(MPI_MAX, MPI_INT, {1, 50, -3}, {10, 20, -30}),
            (std::vector<int>{10, 50, -3}));
  EXPECT_EQ(reduce<int>(MPI_MIN, MPI_INT, {1, 50, -3}, {10, 20, -30}),
            (std::vector<int>{1, 20, -30}));
  EXPECT_EQ(reduce<double>(MPI_SUM, MPI_DOUBLE, {0.5, 1.5}, {1, 2}),
            (std::vector<double>{1.5, 3.5}));
  EXPECT_EQ(reduce<double>(MPI_MAX, MPI_DOUBLE, {0.5, 4}, {1, 2}), (std::vector<double>{1, 4}));
  EXPECT_EQ(reduce<float>(MPI_PROD, MPI_REAL, {2, 3}, {4, 5}), (std::vector<float>{8, 15}));
  EXPECT_EQ(reduce<long double>(MPI_MIN, MPI_LONG_DOUBLE, {2, 7}, {4, 5}),
            (std::vector<long double>{2, 5}));
  EXPECT_EQ(reduce<uint8_t>(MPI_SUM, MPI_UNSIGNED_CHAR, {200, 1}, {100, 2}),
            (std::vector<uint8_t>{44, 3}));  // wraps
  EXPECT_EQ(reduce<int8_t>(MPI_MAX, MPI_SIGNED_CHAR, {-1, 5}, {-7, 2}),
            (std::vector<int8_t>{-1, 5}));
  EXPECT_EQ(reduce<uint16_t>(MPI_PROD, MPI_UINT16_T, {65535}, {65535}), (std::vector<uint16_t>{1}));
  EXPECT_EQ(reduce<int64_t>(MPI_SUM, MPI_INT64_T, {int64_t{1} << 40}, {1}),
            (std::vector<int64_t>{(int64_t{1} << 40) + 1}));
  EXPECT_EQ(reduce<uint64_t>(MPI_MAX, MPI_UNSIGNED_LONG, {1}, {~uint64_t{0}}),
            (std::vector<uint64_t>{~uint64_t{0}}));
  EXPECT_EQ(reduce<MPI_Aint>(MPI_SUM, MPI_AINT, {3}, {4}), (std::vector<MPI_Aint>{7}));
  EXPECT_EQ(reduce<int32_t>(MPI_SUM, MPI_INTEGER, {3}, {4}), (std::vector<int32_t>{7}));
  EXPECT_EQ(reduce<char>(MPI_SUM, MPI_CHAR, {3}, {4}), (std::vector<char>{7}));

  __float128 q_in[1] = {1.25}, q_inout[1] = {2};
  ASSERT_EQ(mpi::op_apply(op(MPI_SUM), q_in, q_inout, 1, type(MPI_REAL16)), MPI_SUCCESS);
  EXPECT_TRUE(q_inout[0] == 3.25);
}

TEST_F(DatatypeTest, ComplexOps) {
  using C = std::complex<double>;
  EXPECT_EQ(reduce<C>(MPI_SUM, MPI_C_DOUBLE_COMPLEX, {C(1, 2)}, {C(3, 4)}),
            (std::vector<C>{C(4, 6)}));
  EXPECT_EQ(reduce<C>(MPI_PROD, MPI_DOUBLE_COMPLEX, {C(1, 2)}, {C(3, 4)}),
            (std::vector<C>{C(-5, 10)}));
  using F = std::complex<float>;
  EXPECT_EQ(reduce<F>(MPI_PROD, MPI_C_FLOAT_COMPLEX, {F(0, 1)}, {F(0, 1)}),
            (std::vector<F>{F(-1, 0)}));
  using L = std::complex<long double>;
  EXPECT_EQ(reduce<L>(MPI_SUM, MPI_CXX_LONG_DOUBLE_COMPLEX, {L(1, 1)}, {L(1, -1)}),
            (std::vector<L>{L(2, 0)}));
  int code = 0;
  reduce<C>(MPI_MAX, MPI_C_DOUBLE_COMPLEX, {C(1, 2)}, {C(3, 4)}, &code);
  EXPECT_EQ(error_class(code), MPI_ERR_OP);
}

TEST_F(DatatypeTest, LogicalAndBitwiseOps) {
  EXPECT_EQ(reduce<int>(MPI_LAND, MPI_INT, {0, 2, 0, 5}, {0, 0, 3, 7}),
            (std::vector<int>{0, 0, 0, 1}));
  EXPECT_EQ(reduce<int>(MPI_LOR, MPI_INT, {0, 2, 0, 5}, {0, 0, 3, 7}),
            (std::vector<int>{0, 1, 1, 1}));
  EXPECT_EQ(reduce<int>(MPI_LXOR, MPI_INT, {0, 2, 0, 5}, {0, 0, 3, 7}),
            (std::vector<int>{0, 1, 1, 0}));
  bool b_in[3] = {true, true, false}, b_inout[3] = {true, false, false};
  ASSERT_EQ(mpi::op_apply(op(MPI_LAND), b_in, b_inout, 3, type(MPI_C_BOOL)), MPI_SUCCESS);
  EXPECT_TRUE(b_inout[0]);
  EXPECT_FALSE(b_inout[1]);
  EXPECT_FALSE(b_inout[2]);
  ASSERT_EQ(mpi::op_apply(op(MPI_LXOR), b_in, b_inout, 3, type(MPI_CXX_BOOL)), MPI_SUCCESS);
  EXPECT_FALSE(b_inout[0]);
  EXPECT_TRUE(b_inout[1]);
  EXPECT_FALSE(b_inout[2]);
  EXPECT_EQ(reduce<int32_t>(MPI_LOR, MPI_LOGICAL, {0, 1}, {0, 0}), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(reduce<unsigned>(MPI_BAND, MPI_UNSIGNED, {0xf0f0}, {0xff00}),
            (std::vector<unsigned>{0xf000}));
  EXPECT_EQ(reduce<unsigned>(MPI_BOR, MPI_UNSIGNED, {0xf0f0}, {0xff00}),
            (std::vector<unsigned>{0xfff0}));
  EXPECT_EQ(reduce<unsigned>(MPI_BXOR, MPI_UNSIGNED, {0xf0f0}, {0xff00}),
            (std::vector<unsigned>{0x0ff0}));
  EXPECT_EQ(reduce<uint8_t>(MPI_BXOR, MPI_BYTE, {0x0f}, {0xff}), (std::vector<uint8_t>{0xf0}));

  int code = 0;
  reduce<double>(MPI_BAND, MPI_DOUBLE, {1}, {1}, &code);
  EXPECT_EQ(error_class(code), MPI_ERR_OP);
  reduce<double>(MPI_LAND, MPI_DOUBLE, {1}, {1}, &code);
  EXPECT_EQ(error_class(code), MPI_ERR_OP);
  reduce<uint8_t>(MPI_SUM, MPI_BYTE, {1}, {1}, &code);
  EXPECT_EQ(error_class(code), MPI_ERR_OP);
  EXPECT_EQ(error_class(mpi::op_check(op(MPI_BAND), type(MPI_C_BOOL))), MPI_ERR_OP);
  reduce<wchar_t>(MPI_SUM, MPI_WCHAR, {1}, {1}, &code);
  EXPECT_EQ(error_class(code), MPI_ERR_OP);
}

TEST_F(DatatypeTest, MaxlocMinlocBreakTiesByLowerIndex) {
  using DI = Pair<double, int>;
  std::vector<DI> in = {{1.0, 5}, {2.0, 9}, {3.0, 1}, {4.0, 4}};
  std::vector<DI> inout = {{1.0, 3}, {1.0, 1}, {3.0, 7}, {5.0, 8}};
  std::vector<DI> out = reduce<DI>(MPI_MAXLOC, MPI_DOUBLE_INT, in, inout);
  EXPECT_EQ(out[0].index, 3);  // tie: lower index
  EXPECT_EQ(out[1].value, 2.0);
  EXPECT_EQ(out[1].index, 9);
  EXPECT_EQ(out[2].index, 1);  // tie: lower index from in
  EXPECT_EQ(out[3].value, 5.0);
  EXPECT_EQ(out[3].index, 8);
  out = reduce<DI>(MPI_MINLOC, MPI_DOUBLE_INT, in, inout);
  EXPECT_EQ(out[0].index, 3);
  EXPECT_EQ(out[1].value, 1.0);
  EXPECT_EQ(out[1].index, 1);
  EXPECT_EQ(out[3].value, 4.0);
  EXPECT_EQ(out[3].index, 4);

  using SI = Pair<short, int>;
  std::vector<SI> s = reduce<SI>(MPI_MAXLOC, MPI_SHORT_INT, {{7, 2}, {-1, 0}}, {{7, 1}, {3, 6}});
  EXPECT_EQ(s[0].index, 1);
  EXPECT_EQ(s[1].value, 3);
  using II = Pair<int, int>;
  std::vector<II> ii = reduce<II>(MPI_MINLOC, MPI_2INT, {{4, 2}, {4, 0}}, {{5, 1}, {4, 6}});
  EXPECT_EQ(ii[0].value, 4);
  EXPECT_EQ(ii[0].index, 2);
  EXPECT_EQ(ii[1].index, 0);
  using LI = Pair<long double, int>;
  std::vector<LI> li = reduce<LI>(MPI_MAXLOC, MPI_LONG_DOUBLE_INT, {{2.5L, 3}}, {{2.5L, 4}});
  EXPECT_EQ(li[0].index, 3);
  using FF = Pair<float, float>;
  std::vector<FF> ff = reduce<FF>(MPI_MAXLOC, MPI_2REAL, {{1, 2}}, {{0, 1}});
  EXPECT_EQ(ff[0].index, 2.0f);

  int code = 0;
  reduce<II>(MPI_SUM, MPI_2INT, {{1, 1}}, {{1, 1}}, &code);
  EXPECT_EQ(error_class(code), MPI_ERR_OP);
  EXPECT_NE(mpi::errhan::error_string(code).find("MPI_SUM is not defined for datatype MPI_2INT"),
            std::string::npos)
      << mpi::errhan::error_string(code);
  reduce<int>(MPI_MAXLOC, MPI_INT, {1}, {1}, &code);
  EXPECT_EQ(error_class(code), MPI_ERR_OP);
}

TEST_F(DatatypeTest, OpsOnDerivedTypes) {
  // Contiguous ints: the dense path.
  MPI_Datatype h;
  ASSERT_EQ(impl::type_contiguous(3, type(MPI_INT), &h), MPI_SUCCESS);
  Datatype& c = keep(h);
  int a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {10, 20, 30, 40, 50, 60};
  ASSERT_EQ(mpi::op_apply(op(MPI_SUM), a, b, 2, c), MPI_SUCCESS);
  EXPECT_EQ(b[5], 66);

  // Strided ints: gaps stay untouched.
  ASSERT_EQ(impl::type_vector(3, 1, 2, type(MPI_INT), &h), MPI_SUCCESS);
  Datatype& v = keep(h);
  int va[6] = {1, 1, 1, 1, 1, 1}, vb[6] = {0, 7, 0, 7, 0, 7};
  ASSERT_EQ(mpi::op_apply(op(MPI_SUM), va, vb, 1, v), MPI_SUCCESS);
  EXPECT_EQ(vb[0], 1);
  EXPECT_EQ(vb[1], 7);
  EXPECT_EQ(vb[4], 1);

  // Pairs with gaps between them: the packed path.
  using DI = Pair<double, int>;
  ASSERT_EQ(impl::type_vector(2, 1, 2, type(MPI_DOUBLE_INT), &h), MPI_SUCCESS);
  Datatype& pv = keep(h);
  EXPECT_FALSE(pv.layout.base_dense);
  DI pa[3] = {{5, 1}, {9, 9}, {2, 0}}, pb[3] = {{5, 0}, {0, 0}, {3, 3}};
  ASSERT_EQ(mpi::op_apply(op(MPI_MAXLOC), pa, pb, 1, pv), MPI_SUCCESS);
  EXPECT_EQ(pb[0].index, 0);
  EXPECT_EQ(pb[1].value, 0.0);  // not part of the type
  EXPECT_EQ(pb[2].value, 3.0);
  ASSERT_EQ(mpi::op_apply(op(MPI_MINLOC), pa, pb, 1, pv), MPI_SUCCESS);
  EXPECT_EQ(pb[2].value, 2.0);
  EXPECT_EQ(pb[2].index, 0);

  // Adjacent pairs: dense.
  ASSERT_EQ(impl::type_contiguous(3, type(MPI_SHORT_INT), &h), MPI_SUCCESS);
  EXPECT_TRUE(keep(h).layout.base_dense);

  // Mixed elements: predefined ops do not apply.
  const int lens[] = {1, 1};
  const MPI_Aint displs[] = {0, 8};
  const MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE};
  ASSERT_EQ(impl::type_create_struct(2, lens, displs, types, &h), MPI_SUCCESS);
  Datatype& mixed = keep(h);
  EXPECT_EQ(error_class(mpi::op_check(op(MPI_SUM), mixed)), MPI_ERR_OP);
  // ... but MPI_REPLACE copies the data and MPI_NO_OP does nothing.
  struct IntDouble {
    int i;
    double d;
  } ma = {1, 2.5}, mb = {0, 0};
  std::memset(&mb, 0x55, sizeof mb);
  ASSERT_EQ(mpi::op_apply(op(MPI_NO_OP), &ma, &mb, 1, mixed), MPI_SUCCESS);
  EXPECT_NE(mb.i, 1);
  ASSERT_EQ(mpi::op_apply(op(MPI_REPLACE), &ma, &mb, 1, mixed), MPI_SUCCESS);
  EXPECT_EQ(mb.i, 1);
  EXPECT_EQ(mb.d, 2.5);
}

int g_user_calls = 0;
MPI_Datatype g_user_type = MPI_DATATYPE_NULL;

void user_sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  ++g_user_calls;
  g_user_type = *type;
  for (int i = 0; i < *len; ++i) static_cast<int*>(inout)[i] += 2 * static_cast<int*>(in)[i];
}

TEST_F(DatatypeTest, UserOps) {
  MPI_Op h;
  ASSERT_EQ(impl::op_create_any(user_sum, 0, &h), MPI_SUCCESS);
  mpi::Op& user = op(h);
  int commute = -1;
  ASSERT_EQ(impl::op_commutative(user, &commute), MPI_SUCCESS);
  EXPECT_EQ(commute, 0);
  int a[2] = {1, 2}, b[2] = {10, 20};
  ASSERT_EQ(impl::reduce_local_any(a, b, 2, type(MPI_INT), user), MPI_SUCCESS);
  EXPECT_EQ(b[0], 12);
  EXPECT_EQ(b[1], 24);
  EXPECT_EQ(g_user_calls, 1);
  EXPECT_EQ(g_user_type, MPI_INT);
  EXPECT_STREQ(mpi::op_name(h), "user-defined operation");
  ASSERT_EQ(impl::op_free(&h), MPI_SUCCESS);
  EXPECT_EQ(h, MPI_OP_NULL);

  MPI_Op sum = MPI_SUM;
  EXPECT_EQ(error_class(impl::op_free(&sum)), MPI_ERR_OP);
  EXPECT_EQ(error_class(impl::op_create_any<MPI_User_function>(nullptr, 1, &h)), MPI_ERR_ARG);
  int code = impl::reduce_local_any(a, b, 2, type(MPI_INT), op(MPI_REPLACE));
  EXPECT_EQ(error_class(code), MPI_ERR_OP);
  EXPECT_EQ(error_class(impl::reduce_local_any(a, b, -1, type(MPI_INT), op(MPI_SUM))),
            MPI_ERR_COUNT);
  ASSERT_EQ(impl::reduce_local_any(a, b, 2, type(MPI_INT), op(MPI_SUM)), MPI_SUCCESS);
  EXPECT_EQ(b[0], 13);
  EXPECT_TRUE(op(MPI_SUM).commutative);
  EXPECT_STREQ(mpi::op_name(MPI_MAXLOC), "MPI_MAXLOC");
}

}  // namespace
}  // namespace stmpi

// ------------------------------------------- bounds with negative extents

namespace stmpi {
namespace {

// Bounds computed from the constructor arguments by visiting every instance
// of every component (MPI 4.1, section 5.1: lb is the lowest lower bound and
// ub the highest upper bound over the type map; a resized type's bounds are
// the ones it was given, whatever its extent's sign): an independent
// reference for LayoutBuilder's closed-form bounds.
struct RefBounds {
  bool entries = false, data = false;
  MPI_Aint lb = 0, ub = 0, true_lb = 0, true_ub = 0, alignment = 1;
};

void ref_merge(RefBounds& into, const RefBounds& part, MPI_Aint disp) {
  into.alignment = std::max(into.alignment, part.alignment);
  if (part.entries) {
    into.lb = into.entries ? std::min(into.lb, disp + part.lb) : disp + part.lb;
    into.ub = into.entries ? std::max(into.ub, disp + part.ub) : disp + part.ub;
    into.entries = true;
  }
  if (part.data) {
    into.true_lb = into.data ? std::min(into.true_lb, disp + part.true_lb) : disp + part.true_lb;
    into.true_ub = into.data ? std::max(into.true_ub, disp + part.true_ub) : disp + part.true_ub;
    into.data = true;
  }
}

RefBounds ref_bounds(const Datatype& t) {
  RefBounds r;
  if (t.predefined) {
    r.entries = r.data = t.size > 0;
    r.lb = r.true_lb = t.lb;
    r.ub = r.true_ub = t.lb + t.extent;
    r.alignment = t.layout.alignment;
    return r;
  }
  const mpi::TypeContents& c = t.contents;
  const bool big = c.large_counts;
  auto in = [&](size_t i) { return big ? c.counts[i] : MPI_Count{c.ints[i]}; };
  auto addr = [&](size_t i) { return c.aints[i]; };
  const Datatype* old = c.types.empty() ? nullptr : c.types[0];
  // `n` adjacent instances of `type` at disp.
  auto sub = [&](const Datatype* type, MPI_Aint disp, MPI_Count n) {
    const RefBounds part = ref_bounds(*type);
    for (MPI_Count j = 0; j < n; ++j) ref_merge(r, part, disp + j * type->extent);
  };
  switch (c.combiner) {
    case MPI_COMBINER_CONTIGUOUS: sub(old, 0, in(0)); break;
    case MPI_COMBINER_VECTOR:
      for (MPI_Count i = 0; i < in(0); ++i) sub(old, i * in(2) * old->extent, in(1));
      break;
    case MPI_COMBINER_HVECTOR:
      for (MPI_Count i = 0; i < in(0); ++i) sub(old, i * addr(0), in(1));
      break;
    case MPI_COMBINER_INDEXED:
      for (MPI_Count i = 0; i < in(0); ++i) sub(old, in(1 + in(0) + i) * old->extent, in(1 + i));
      break;
    case MPI_COMBINER_HINDEXED:
      for (MPI_Count i = 0; i < in(0); ++i) sub(old, addr(i), in(1 + i));
      break;
    case MPI_COMBINER_INDEXED_BLOCK:
      for (MPI_Count i = 0; i < in(0); ++i) sub(old, in(2 + i) * old->extent, in(1));
      break;
    case MPI_COMBINER_HINDEXED_BLOCK:
      for (MPI_Count i = 0; i < in(0); ++i) sub(old, addr(i), in(1));
      break;
    case MPI_COMBINER_STRUCT: {
      bool same = true;
      for (MPI_Count i = 0; i < in(0); ++i) {
        sub(c.types[i], addr(i), in(1 + i));
        same = same && c.types[i] == c.types[0];
      }
      // C struct padding: the span is rounded up to the strictest alignment.
      const MPI_Aint span = r.ub - r.lb;
      if (!same && r.entries && span > 0 && span % r.alignment != 0)
        r.ub += r.alignment - span % r.alignment;
      break;
    }
    case MPI_COMBINER_RESIZED: {
      const RefBounds part = ref_bounds(*old);
      r = part;
      r.entries = true;
      r.lb = addr(0);
      r.ub = addr(0) + addr(1);
      break;
    }
    case MPI_COMBINER_DUP: r = ref_bounds(*old); break;
    default: ADD_FAILURE() << "combiner " << c.combiner;
  }
  return r;
}

void expect_bounds_match_reference(const Datatype& t) {
  const RefBounds r = ref_bounds(t);
  EXPECT_EQ(t.lb, r.lb);
  EXPECT_EQ(t.extent, r.ub - r.lb) << "lb " << t.lb << ", ub " << r.ub;
  EXPECT_EQ(t.true_lb, r.data ? r.true_lb : 0);
  EXPECT_EQ(t.true_extent, r.data ? r.true_ub - r.true_lb : 0);
}

TEST_F(DatatypeTest, NegativeExtentsFromTheIssue) {
  MPI_Datatype minus3_9, six_minus9, v1, v2, empty, marker, s;
  ASSERT_EQ(impl::type_create_resized(type(MPI_INT), -3, 9, &minus3_9), MPI_SUCCESS);
  ASSERT_EQ(impl::type_create_resized(type(MPI_INT), 6, -9, &six_minus9), MPI_SUCCESS);
  keep(minus3_9);
  keep(six_minus9);
  // Instances at 0 and -9 (stride -1 extents of 9): lower bounds -3 and
  // -12, upper bounds 6 and -3.
  ASSERT_EQ(impl::type_vector(2, 1, -1, type(minus3_9), &v1), MPI_SUCCESS);
  expect_shape(keep(v1), 8, -12, 18, -9, 13);
  // Instances at 0 and 9 (stride -1 extents of -9): lbs 6, 15; ubs -3, 6.
  ASSERT_EQ(impl::type_vector(2, 1, -1, type(six_minus9), &v2), MPI_SUCCESS);
  expect_shape(keep(v2), 8, 6, 0, 0, 13);
  expect_bounds_match_reference(type(v1));
  expect_bounds_match_reference(type(v2));
  // A struct of zero-size types resized to a negative extent.
  ASSERT_EQ(impl::type_contiguous(0, type(MPI_INT), &empty), MPI_SUCCESS);
  keep(empty);
  ASSERT_EQ(impl::type_create_resized(type(empty), 0, -10, &marker), MPI_SUCCESS);
  keep(marker);
  const int lens[2] = {1, 1};
  const MPI_Aint displs[2] = {0, 0};
  const MPI_Datatype types[2] = {marker, marker};
  ASSERT_EQ(impl::type_create_struct(2, lens, displs, types, &s), MPI_SUCCESS);
  expect_shape(keep(s), 0, 0, -10, 0, 0);
}

TEST_F(DatatypeTest, RandomNegativeBoundsMatchReference) {
  for (unsigned seed = 1; seed <= 600; ++seed) {
    SCOPED_TRACE(seed);
    RandomTypes random(seed);
    std::vector<MPI_Datatype> made;
    // Leaves: basic types, an empty type, resized basic and empty types
    // with negative lower bounds and negative extents.
    MPI_Datatype leaves[6] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    ASSERT_EQ(impl::type_contiguous(0, type(MPI_INT), &leaves[3]), MPI_SUCCESS);
    ASSERT_EQ(impl::type_create_resized(type(MPI_INT), random.pick(17) - 8, random.pick(41) - 20,
                                        &leaves[4]),
              MPI_SUCCESS);
    ASSERT_EQ(impl::type_create_resized(type(leaves[3]), random.pick(17) - 8, random.pick(41) - 20,
                                        &leaves[5]),
              MPI_SUCCESS);
    for (int i = 3; i < 6; ++i) made.push_back(leaves[i]);
    MPI_Datatype current = leaves[random.pick(6)];
    for (int depth = 0; depth < 3; ++depth) {
      Datatype& old = type(current);
      const int count = 1 + random.pick(3);
      std::vector<int> lens(3), displs(3);
      std::vector<MPI_Aint> hdispls(3);
      std::vector<MPI_Datatype> types(3);
      for (int i = 0; i < 3; ++i) {
        lens[i] = random.pick(3);
        displs[i] = random.pick(9) - 4;
        hdispls[i] = random.pick(97) - 48;
        types[i] = random.pick(2) ? current : leaves[random.pick(6)];
      }
      MPI_Datatype h = MPI_DATATYPE_NULL;
      int rc = MPI_SUCCESS;
      switch (random.pick(9)) {
        case 0: rc = impl::type_contiguous(count, old, &h); break;
        case 1:
          rc = impl::type_vector(count, 1 + random.pick(3), random.pick(7) - 3, old, &h);
          break;
        case 2:
          rc = impl::type_create_hvector(count, 1 + random.pick(3), random.pick(65) - 32, old, &h);
          break;
        case 3: rc = impl::type_indexed(count, lens.data(), displs.data(), old, &h); break;
        case 4: rc = impl::type_create_hindexed(count, lens.data(), hdispls.data(), old, &h); break;
        case 5:
          rc = impl::type_create_indexed_block(count, random.pick(3), displs.data(), old, &h);
          break;
        case 6:
          rc = impl::type_create_hindexed_block(count, random.pick(3), hdispls.data(), old, &h);
          break;
        case 7:
          rc = impl::type_create_struct(count, lens.data(), hdispls.data(), types.data(), &h);
          break;
        default:
          rc = impl::type_create_resized(old, random.pick(33) - 16, random.pick(41) - 20, &h);
          break;
      }
      ASSERT_EQ(rc, MPI_SUCCESS);
      made.push_back(h);
      expect_bounds_match_reference(type(h));
      current = h;
    }
    for (MPI_Datatype& h : made) EXPECT_EQ(impl::type_free(&h), MPI_SUCCESS);
  }
}

TEST_F(DatatypeTest, SizeAndBoundsOverflowAreErrors) {
  MPI_Datatype big = MPI_DATATYPE_NULL, h = MPI_DATATYPE_NULL;
  // 2^40 doubles fit (8 TiB); 2^40 of those do not.
  ASSERT_EQ(impl::type_contiguous_c(MPI_Count{1} << 40, type(MPI_DOUBLE), &big), MPI_SUCCESS);
  keep(big);
  EXPECT_EQ(type(big).size, MPI_Count{1} << 43);
  int small_size = 0;
  MPI_Count size = 0;
  EXPECT_EQ(impl::type_size(type(big), &small_size), MPI_SUCCESS);
  EXPECT_EQ(small_size, MPI_UNDEFINED);
  EXPECT_EQ(impl::type_size_count(type(big), &size), MPI_SUCCESS);
  EXPECT_EQ(size, MPI_Count{1} << 43);
  EXPECT_EQ(error_class(impl::type_contiguous_c(MPI_Count{1} << 40, type(big), &h)), MPI_ERR_COUNT);
  EXPECT_EQ(h, MPI_DATATYPE_NULL);
  EXPECT_EQ(error_class(impl::type_vector_c(4, 1, MPI_Count{1} << 61, type(MPI_DOUBLE), &h)),
            MPI_ERR_ARG);
  EXPECT_EQ(error_class(impl::type_create_hvector_c(3, 1, INT64_MAX / 2, type(MPI_INT), &h)),
            MPI_ERR_ARG);
  const MPI_Count lens[2] = {1, 1}, displs[2] = {0, MPI_Count{1} << 61};
  EXPECT_EQ(error_class(impl::type_indexed_c(2, lens, displs, type(MPI_DOUBLE), &h)), MPI_ERR_ARG);
  const MPI_Count hdispls[2] = {INT64_MIN + 1, INT64_MAX - 1};
  EXPECT_EQ(error_class(impl::type_create_hindexed_c(2, lens, hdispls, type(MPI_INT), &h)),
            MPI_ERR_ARG);
  EXPECT_EQ(error_class(impl::type_create_resized_c(type(MPI_INT), INT64_MAX - 2, 8, &h)),
            MPI_ERR_ARG);
  EXPECT_EQ(h, MPI_DATATYPE_NULL);
  MPI_Count packed = 0;
  EXPECT_EQ(error_class(impl::pack_size_c(MPI_Count{1} << 30, type(big), comm_, &packed)),
            MPI_ERR_COUNT);
}

}  // namespace
}  // namespace stmpi
