#include "tests/support/json_mutation.h"

#include <algorithm>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

namespace las::testing {

std::string MutateJsonText(std::string text, std::mt19937_64& rng) {
  static const std::string kBytes = std::string("\"\\{}[],: 0-.eEuD8+tfn\t\n\x7f", 25) +
                                    std::string("\x00\x80\xbf\xc0\xc2\xe0\xed\xf0\xf4\xf5\xff", 11);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const int edits = 1 + static_cast<int>(pick(3));
  for (int e = 0; e < edits; ++e) {
    const size_t at = text.empty() ? 0 : pick(text.size());
    switch (pick(5)) {
      case 0:
        if (!text.empty()) text[at] = kBytes[pick(kBytes.size())];
        break;
      case 1: text.insert(text.begin() + static_cast<ptrdiff_t>(at), kBytes[pick(kBytes.size())]); break;
      case 2:
        if (!text.empty()) text.erase(at, 1);
        break;
      case 3: text.insert(at, text.substr(pick(text.size() + 1), pick(8) + 1)); break;
      default: text.resize(at); break;
    }
  }
  return text;
}

size_t JsonDepth(std::string_view text) {
  size_t depth = 0;
  size_t deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

JsonReference NlohmannVerdict(std::string_view text) {
  if (text.find('\0') != std::string_view::npos || text.starts_with("\xef\xbb\xbf")) {
    return JsonReference::kInvalid;
  }
  try {
    const nlohmann::json parsed = nlohmann::json::parse(text);
    (void)parsed;
    return JsonReference::kValid;
  } catch (const nlohmann::json::out_of_range& e) {
    return e.id == 406 ? JsonReference::kUnknown : JsonReference::kInvalid;
  } catch (const nlohmann::json::exception&) {
    return JsonReference::kInvalid;
  }
}

namespace {

class RepeatedKeys : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool found = false;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    keys_.emplace_back();
    return true;
  }
  bool key(string_t& k) override {
    found = found || !keys_.back().insert(k).second;
    return true;
  }
  bool end_object() override {
    keys_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    keys_.emplace_back();
    return true;
  }
  bool end_array() override {
    keys_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  std::vector<std::set<std::string>> keys_;
};

}  // namespace

bool HasRepeatedKey(std::string_view text) {
  RepeatedKeys sax;
  (void)nlohmann::json::sax_parse(text, &sax);
  return sax.found;
}

}  // namespace las::testing
