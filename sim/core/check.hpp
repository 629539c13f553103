// Debug-only invariant checks for hot paths. Release builds compile them out entirely;
// boundary errors (configuration, I/O) are typed exceptions instead (see error.hpp).
#pragma once
#include <cstdio>
#include <cstdlib>

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
