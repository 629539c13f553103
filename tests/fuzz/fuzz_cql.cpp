// libFuzzer target: lbsim serve's frame and body decoders and its statement parser (sim/serve/,
// issue 46); harness_cql.hpp says what it does with an input and what counts as a bug.
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "tests/fuzz/harness_cql.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    lbsim::fuzz::cql_session({reinterpret_cast<const char*>(data), size});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "an exception out of the CQL session or parser: %s\n", e.what());
    std::abort();
  }
  return 0;
}
