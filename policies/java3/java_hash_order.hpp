// The order in which the Java 3.x DC-aware round-robin policies visit remote DCs (issue 44.14).
//
// DCAwareRoundRobinPolicy and RackAwareRoundRobinPolicy (scylladb/java-driver scylla-3.x
// @07d0f665, driver-core/.../policies/DCAwareRoundRobinPolicy.java newQueryPlan, and
// RackAwareRoundRobinPolicy.java the same) keep their live hosts in a
// ConcurrentHashMap<String, CopyOnWriteArrayList<Host>> keyed by DC name, whose keys are never
// removed (onDown empties a DC's list), and, when a plan reaches its remote part, iterate
// `new HashSet<String>(perDcLiveHosts.keySet())` without the local DC. That order is:
// - the ConcurrentHashMap (default constructor: 16 bins, resized when its size reaches 3/4 of
//   them) iterated bin by bin, each bin's list in insertion order, except that a resize's transfer
//   splits a bin into its two halves by taking the nodes after the last change of the split bit
//   (`lastRun`) as they are and prepending the nodes before it one by one (reversing them);
// - copied into a HashMap of capacity tableSizeFor(max((int) (size / .75f) + 1, 16)) (no resize
//   while copying), iterated bucket by bucket, each bucket in the copy's insertion order.
// A bin or bucket index is (h ^ (h >>> 16)) & (capacity - 1), h = String.hashCode() (31 h + c
// over the UTF-16 code units). Treeified bins (8 names in one bin) are not modelled: the order
// within such a bin is then the list order. Test vectors (tests/java_hash_order_test.cpp) were
// obtained from OpenJDK 17's java.util classes on the same names.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lbsim::policy::java {

// java.lang.String.hashCode() of a UTF-8 string (decoded to UTF-16; an invalid byte counts as
// U+FFFD, as new String(bytes, UTF_8) would make it).
std::int32_t string_hash(std::string_view utf8);

// The iteration order of `new HashSet<String>(chm.keySet())` where `chm` is a default
// ConcurrentHashMap into which `keys` were put in this order (distinct keys): indexes into keys.
std::vector<std::uint32_t> hash_set_copy_order(std::span<const std::string> keys);

}  // namespace lbsim::policy::java
