// Lowercase hexadecimal encoding of byte strings (digests, keys, ids).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace las {

std::string ToHex(std::span<const uint8_t> bytes);
// Accepts upper or lower case; nullopt on odd length or a non-hex character.
std::optional<std::vector<uint8_t>> FromHex(std::string_view hex);
// The value of one hex digit, either case; -1 for any other character.
int HexDigitValue(char c);

}  // namespace las
