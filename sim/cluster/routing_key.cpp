#include "sim/cluster/routing_key.hpp"

#include <stdexcept>

namespace lbsim {

std::optional<Bytes> parse_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  Bytes out(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int hi = nibble(hex[2 * i]);
    const int lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<std::uint8_t>(hi * 16 + lo);
  }
  return out;
}

std::string to_hex(const Bytes& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (auto b : bytes) {
    s += kDigits[b >> 4];
    s += kDigits[b & 15];
  }
  return s;
}

Bytes pack_composite(const std::vector<Bytes>& components) {
  if (components.size() == 1) return components[0];
  Bytes out;
  for (const auto& c : components) {
    if (c.size() > kMaxComponentBytes)
      throw std::length_error("composite key component of " + std::to_string(c.size()) +
                              " bytes exceeds 65535");
    out.push_back(static_cast<std::uint8_t>(c.size() >> 8));
    out.push_back(static_cast<std::uint8_t>(c.size() & 0xff));
    out.insert(out.end(), c.begin(), c.end());
    out.push_back(0);
  }
  return out;
}

}  // namespace lbsim
