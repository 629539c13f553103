// Debug-only invariant checks for hot paths. Release builds compile them out entirely;
// boundary errors (configuration, I/O) are typed exceptions instead (see error.hpp).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#if defined(LBSIM_DEBUG_CHECKS) && LBSIM_DEBUG_CHECKS
#define LBSIM_DCHECK(cond, msg)                                                              \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      std::fprintf(stderr, "%s:%d: invariant failed: %s (%s)\n", __FILE__, __LINE__, #cond, \
                   msg);                                                                     \
      std::abort();                                                                          \
    }                                                                                        \
  } while (0)
#else
#define LBSIM_DCHECK(cond, msg) \
  do {                          \
  } while (0)
#endif

namespace lbsim {
// A state that only a bug reaches (an event of unknown kind, say), in every build: a
// std::logic_error naming it. Cold and out of line, so that the switch it ends costs nothing.
[[noreturn, gnu::cold, gnu::noinline]] inline void check_fail(const char* what, unsigned long long value) {
  throw std::logic_error(std::string("lbsim internal error: ") + what + " " + std::to_string(value));
}
}  // namespace lbsim
