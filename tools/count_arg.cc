#include "tools/count_arg.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

namespace las::tools {

std::optional<size_t> WholeCount(const nlohmann::json& value) {
  if (value.is_number_unsigned()) {
    return static_cast<size_t>(std::min<uint64_t>(value.get<uint64_t>(), std::numeric_limits<size_t>::max()));
  }
  if (!value.is_number_float()) return std::nullopt;  // negative integers, non-numbers
  const double d = value.get<double>();
  if (!(d >= 0) || std::trunc(d) != d) return std::nullopt;  // negative, fractional, NaN
  if (d >= static_cast<double>(std::numeric_limits<size_t>::max())) return std::numeric_limits<size_t>::max();
  return static_cast<size_t>(d);
}

size_t CountArg(const nlohmann::json& args, const char* key, size_t fallback) {
  auto it = args.find(key);
  if (it == args.end()) return fallback;
  return WholeCount(*it).value_or(fallback);
}

}  // namespace las::tools
