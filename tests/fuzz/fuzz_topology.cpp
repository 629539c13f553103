// libFuzzer target: the topology parser (see harness.hpp for what counts as a bug).
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "tests/fuzz/harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    lbsim::fuzz::topology({reinterpret_cast<const char*>(data), size});
  } catch (const lbsim::ConfigError&) {
    // A clean rejection.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "not a ConfigError: %s\n", e.what());
    std::abort();
  }
  return 0;
}
