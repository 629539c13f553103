// Issue 44.14: the order in which Java 3.x DC-aware round-robin policies visit remote DCs, the
// iteration order of `new HashSet<String>(perDcLiveHosts.keySet())` over a ConcurrentHashMap
// (policies/java3/java_hash_order.hpp). Every expected vector below was printed by OpenJDK
// 17.0.15: the names put, in the order listed, into a `new ConcurrentHashMap<String, Integer>()`,
// then `new HashSet<String>(map.keySet())` iterated; the hash codes by String.hashCode().
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "policies/java3/java_hash_order.hpp"

namespace lbsim::policy::java {
namespace {

std::vector<std::string> copy_order(const std::vector<std::string>& keys) {
  std::vector<std::string> out;
  for (std::uint32_t i : hash_set_copy_order(keys)) out.push_back(keys[i]);
  return out;
}

TEST(JavaHashOrder, StringHashCodeIsJavas) {
  EXPECT_EQ(string_hash("dc1"), 99218);
  EXPECT_EQ(string_hash("Aa"), 2112);
  EXPECT_EQ(string_hash("BB"), 2112);
  EXPECT_EQ(string_hash("us-east"), -199235124);
  EXPECT_EQ(string_hash("région-α"), 496029852);  // UTF-16 code units of non-ASCII letters
  EXPECT_EQ(string_hash("𝔡c"), 54945367);          // a surrogate pair
  EXPECT_EQ(string_hash(""), 0);
}

TEST(JavaHashOrder, ThreeDcsGoDc2Dc1Dc3WhateverTheirInsertionOrder) {
  EXPECT_EQ(copy_order({"dc1", "dc2", "dc3"}), (std::vector<std::string>{"dc2", "dc1", "dc3"}));
  EXPECT_EQ(copy_order({"dc3", "dc2", "dc1"}), (std::vector<std::string>{"dc2", "dc1", "dc3"}));
  EXPECT_EQ(copy_order({"us-east", "us-west", "eu-central"}),
            (std::vector<std::string>{"us-east", "eu-central", "us-west"}));
  EXPECT_EQ(copy_order({"région-α", "dc2", "𝔡c"}), (std::vector<std::string>{"𝔡c", "dc2", "région-α"}));
}

TEST(JavaHashOrder, EqualHashesKeepTheMapsInsertionOrder) {
  EXPECT_EQ(copy_order({"Aa", "BB", "C"}), (std::vector<std::string>{"Aa", "BB", "C"}));
  EXPECT_EQ(copy_order({"BB", "Aa", "C"}), (std::vector<std::string>{"BB", "Aa", "C"}));
}

TEST(JavaHashOrder, ResizesOfTheMapAndTheCopy) {
  // 13 names: the map resizes to 32 bins at the 12th, the copy has 32 buckets.
  EXPECT_EQ(copy_order({"dc1", "dc2", "dc3", "dc4", "dc5", "dc6", "dc7", "dc8", "dc9", "dc10", "dc11", "dc12", "dc13"}),
            (std::vector<std::string>{"dc12", "dc13", "dc10", "dc11", "dc2", "dc1", "dc4", "dc3", "dc6", "dc5", "dc8",
                                      "dc7", "dc9"}));
  // x1v7p, x23lj, xc7y, xf7f share bin 5 of 16; xc7y alone has bit 16 set. The resize at the
  // 12th name keeps the run after the last change of that bit (xf7f) and prepends the others:
  // x23lj, x1v7p, xf7f.
  EXPECT_EQ(copy_order({"x1v7p", "x23lj", "xc7y", "xf7f", "a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8"}),
            (std::vector<std::string>{"x23lj", "x1v7p", "xf7f", "a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8", "xc7y"}));
  // a1 .. i9 are 32 apart: nine in one bin of 32 presize the map to 256 bins (treeifyBin ->
  // tryPresize) before the 13th name.
  EXPECT_EQ(copy_order({"x1v7p", "x23lj", "xc7y", "xf7f", "a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8", "i9"}),
            (std::vector<std::string>{"x1v7p", "x23lj", "xf7f", "b2", "d4", "f6", "h8", "c3", "e5", "g7", "a1", "i9",
                                      "xc7y"}));
  // Nine in one bin of 16 (presized to 128), and nine in one bucket of the 16-bucket copy, which
  // doubles it to 64 buckets.
  EXPECT_EQ(copy_order({"a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8", "i9", "j10"}),
            (std::vector<std::string>{"j10", "f6", "b2", "c3", "g7", "d4", "h8", "e5", "a1", "i9"}));
}

}  // namespace
}  // namespace lbsim::policy::java
