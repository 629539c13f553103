// LBSIM_DCHECK: compiled into Debug builds (CMAKE_BUILD_TYPE=Debug defines LBSIM_DEBUG_CHECKS),
// where a broken invariant aborts with its message; compiled out of Release builds, where the
// condition is not even evaluated. The engine's invariants themselves are exercised by running
// the whole suite in a Debug build (build-debug).
#include <cstdint>

#include <gtest/gtest.h>

#include "sim/core/check.hpp"
#include "sim/engine/slab.hpp"
#include "test_scale.hpp"

namespace {

struct Item {
  std::uint32_t gen = 0;
};

TEST(DebugChecks, ABrokenInvariantAbortsWithItsMessageInDebugBuilds) {
#if defined(LBSIM_DEBUG_CHECKS) && LBSIM_DEBUG_CHECKS
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  lbsim::Slab<Item> slab;
  const std::uint32_t i = slab.alloc();
  slab.release(i);
  EXPECT_EQ(slab.live(), 0u);
  EXPECT_DEATH(slab.release(i), "invariant failed: .*slab slot released twice or never allocated");
#else
  GTEST_SKIP() << "Release build: LBSIM_DCHECK is compiled out";
#endif
}

TEST(DebugChecks, TheConditionIsEvaluatedOnlyInDebugBuilds) {
  int evaluated = 0;
  LBSIM_DCHECK((++evaluated, true), "never fails");
#if defined(LBSIM_DEBUG_CHECKS) && LBSIM_DEBUG_CHECKS
  EXPECT_EQ(evaluated, 1);
#else
  EXPECT_EQ(evaluated, 0);
#endif
}

}  // namespace

// The ASan runtime defines __asan_init; a weak reference to it is null in a build without it.
extern "C" void __asan_init() __attribute__((weak));

namespace {

// tests/test_scale.hpp skips its full-size validations exactly when AddressSanitizer is linked:
// the optimized suite must run them, the sanitizer suite must not.
TEST(DebugChecks, TheFullSizeValidationsAreSkippedExactlyUnderAddressSanitizer) {
  const bool asan_linked = &__asan_init != nullptr;
  EXPECT_EQ(lbsim::testing::kSanitizerBuild, asan_linked);
}

}  // namespace
