#include "cli/number_flags.h"

#include <string>

#include "base/printable_text.h"

namespace las::cli {

CLI::Validator WholeNumber(uint64_t min, uint64_t max) {
  const std::string range = std::to_string(min) + " to " + std::to_string(max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        const std::string refusal =
            "must be a whole number from " + range + ", not " + QuotedForTerminal(text);
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
          return refusal;
        }
        uint64_t value = 0;
        for (char c : text) {
          const auto digit = static_cast<uint64_t>(c - '0');
          if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) return refusal;
          value = value * 10 + digit;
        }
        if (value < min || value > max) return refusal;
        // CLI11 converts with base 0: "010" would be 8 and "08" an error (probe CY2).
        text = std::to_string(value);
        return std::string();
      },
      "UINT", "WholeNumber");
}

}  // namespace las::cli
