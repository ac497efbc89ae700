#include "transport/proc_stat.h"

#include <charconv>
#include <fstream>
#include <iterator>

namespace las::transport {

std::optional<uint64_t> ProcStatNumber(std::string_view stat, int number) {
  constexpr int kFirstAfterComm = 3;  // STATE
  if (number < kFirstAfterComm) return std::nullopt;
  const size_t comm_end = stat.rfind(')');
  if (comm_end == std::string_view::npos) return std::nullopt;
  std::string_view rest = stat.substr(comm_end + 1);
  for (int field = kFirstAfterComm; field <= number; ++field) {
    if (!rest.starts_with(' ')) return std::nullopt;
    rest.remove_prefix(1);
    const size_t end = rest.find_first_of(" \n");
    const std::string_view text = rest.substr(0, end);
    if (field == number) {
      uint64_t value = 0;
      const auto [stop, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (error != std::errc() || stop != text.data() + text.size()) return std::nullopt;
      return value;
    }
    if (end == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(end);
  }
  return std::nullopt;
}

std::optional<unsigned long> ProcStatFlags(std::string_view stat) {
  constexpr int kFlagsField = 9;
  return ProcStatNumber(stat, kFlagsField);
}

std::optional<std::string> ReadProcStat(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  if (!file) return std::nullopt;
  std::string stat((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (stat.empty()) return std::nullopt;
  return stat;
}

}  // namespace las::transport
