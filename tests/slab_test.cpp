// Slab<T>'s registered columns (sim/engine/slab.hpp): a column is always as long as its slab's
// capacity, new entries take the column's fill value, and growth keeps what was written.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "sim/engine/slab.hpp"

namespace {

struct Item {
  std::uint32_t gen = 0;
  int payload = 0;
};

TEST(SlabColumns, AColumnAddedBeforeAllocationsGrowsWithTheSlabAndKeepsItsValues) {
  lbsim::Slab<Item> slab;
  lbsim::Column<std::uint32_t> tag;
  EXPECT_FALSE(tag.registered());
  slab.add_column(tag, 0xffffffffu);
  EXPECT_TRUE(tag.registered());
  EXPECT_EQ(tag.size(), 0u);
  // 1,000 slots: several reallocations of both the slab and the column.
  for (std::uint32_t k = 0; k < 1000; ++k) {
    const std::uint32_t i = slab.alloc();
    ASSERT_EQ(i, k);
    ASSERT_EQ(tag.size(), slab.capacity());
    EXPECT_EQ(tag[i], 0xffffffffu);  // a new slot's entry is the fill value
    tag[i] = 3 * k + 1;
  }
  EXPECT_EQ(tag.size(), 1000u);
  for (std::uint32_t k = 0; k < 1000; ++k) ASSERT_EQ(tag[k], 3 * k + 1);
}

TEST(SlabColumns, AColumnAddedAfterAllocationsIsSizedToCapacityWithItsFill) {
  lbsim::Slab<Item> slab;
  for (int k = 0; k < 37; ++k) slab.alloc();
  slab.release(5);
  slab.release(20);
  lbsim::Column<std::uint8_t> col;
  slab.add_column(col, std::uint8_t{7});
  EXPECT_EQ(col.size(), 37u);  // capacity, released slots included
  for (std::size_t i = 0; i < col.size(); ++i) ASSERT_EQ(col[i], 7);
  // Reusing released slots does not grow the slab, so the column keeps its length.
  EXPECT_EQ(slab.alloc(), 20u);
  EXPECT_EQ(slab.alloc(), 5u);
  EXPECT_EQ(col.size(), 37u);
  // The next new slot grows it by one, with the fill.
  col[36] = 9;
  EXPECT_EQ(slab.alloc(), 37u);
  EXPECT_EQ(col.size(), 38u);
  EXPECT_EQ(col[37], 7);
  EXPECT_EQ(col[36], 9);
}

TEST(SlabColumns, ReleaseLeavesAColumnEntryAsLastWritten) {
  lbsim::Slab<Item> slab;
  lbsim::Column<int> col;
  slab.add_column(col, -1);
  const std::uint32_t a = slab.alloc();
  slab[a].payload = 11;
  col[a] = 42;
  slab.release(a);
  EXPECT_EQ(slab[a].payload, 0);  // the slab resets its item
  EXPECT_EQ(slab[a].gen, 1u);
  EXPECT_EQ(col[a], 42);          // the column is the owner's to reset
  EXPECT_EQ(slab.alloc(), a);
  EXPECT_EQ(col[a], 42);
}

TEST(SlabColumns, SeveralColumnsOfOneSlabGrowTogetherAndAnUnregisteredOneStaysEmpty) {
  lbsim::Slab<Item> slab;
  lbsim::Column<std::uint32_t> a;
  lbsim::Column<std::uint16_t> b;
  lbsim::Column<std::uint16_t> unused;
  slab.add_column(a, 1u);
  for (int k = 0; k < 100; ++k) slab.alloc();
  slab.add_column(b, std::uint16_t{2});
  for (int k = 0; k < 200; ++k) slab.alloc();
  EXPECT_EQ(slab.capacity(), 300u);
  EXPECT_EQ(a.size(), 300u);
  EXPECT_EQ(b.size(), 300u);
  EXPECT_EQ(unused.size(), 0u);
  std::vector<std::uint32_t> sums;
  for (std::size_t i = 0; i < 300; ++i) sums.push_back(a[i] + b[i]);
  EXPECT_EQ(sums, std::vector<std::uint32_t>(300, 3u));
}

}  // namespace
