// 128-bit unsigned integers (a GCC/Clang extension) for exact ring arcs and wide multiplies.
#pragma once

namespace lbsim {
__extension__ typedef unsigned __int128 u128;
}  // namespace lbsim
