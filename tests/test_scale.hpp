// Statistical validations that need hundreds of thousands to millions of simulated operations run
// in the optimized suite only. Under AddressSanitizer (`scripts/dev check`: clang, ASan + UBSan,
// the simulation's libraries at -O1, the Debug invariant checks) they run about ten times slower:
// the first eight were 200 of that suite's 500 test-seconds, the five added later (the model-vs-
// simulation shares and saturation bound, M/M/1 at rho 0.5, tablets' E4 timeline, the shard-aware
// throughput ratio) another 85, and the per-node Che checks against Monte-Carlo LRUs and the
// engine (issue 37) about 170 more. The code they run is the same engine path as the smaller tests
// that do run there (tablet migrations, for one, in E9 and the join / drain / decommission tests). Their assertions are about sampling error at a given size, so they are
// skipped there rather than shrunk; the skip is reported by GoogleTest and ctest, not hidden.
#pragma once
#include <gtest/gtest.h>

namespace lbsim::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitizerBuild = true;
#else
inline constexpr bool kSanitizerBuild = false;
#endif
#else
inline constexpr bool kSanitizerBuild = false;
#endif

}  // namespace lbsim::testing

// First statement of such a test.
#define LBSIM_OPTIMIZED_SUITE_ONLY()                                                              \
  do {                                                                                            \
    if (::lbsim::testing::kSanitizerBuild)                                                        \
      GTEST_SKIP() << "statistical validation at full sample size: runs in the optimized suite"; \
  } while (0)
