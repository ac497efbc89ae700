// For the differential harnesses: nlohmann refuses a number beyond a double's range
// ("number overflow"), which RFC 8259's grammar admits (transport's ValidateJson) and Las
// keeps as an integer of any size (trust::CheckStrictJson refuses it): not a disagreement
// about what is JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace las::fuzz {

inline bool NlohmannOverflows(std::string_view text) {
  try {
    const nlohmann::json parsed = nlohmann::json::parse(text);
    (void)parsed;
  } catch (const nlohmann::json::exception& e) {
    return std::string_view(e.what()).find("number overflow") != std::string_view::npos;
  }
  return false;
}

}  // namespace las::fuzz
