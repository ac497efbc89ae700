#include "tools/count_arg.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

namespace las::tools {

std::optional<uint64_t> WholeNumber(double d) {
  if (!(d >= 0) || std::trunc(d) != d) return std::nullopt;  // negative, fractional, NaN
  if (d >= 18446744073709551616.0) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(d);
}

std::optional<size_t> WholeCount(const nlohmann::json& value) {
  std::optional<uint64_t> whole;
  if (value.is_number_unsigned()) {
    whole = value.get<uint64_t>();
  } else if (value.is_number_float()) {
    whole = WholeNumber(value.get<double>());
  }  // else: negative integers, non-numbers
  if (!whole) return std::nullopt;
  return static_cast<size_t>(std::min<uint64_t>(*whole, std::numeric_limits<size_t>::max()));
}

size_t CountArg(const nlohmann::json& args, const char* key, size_t fallback) {
  auto it = args.find(key);
  if (it == args.end()) return fallback;
  return WholeCount(*it).value_or(fallback);
}

}  // namespace las::tools
