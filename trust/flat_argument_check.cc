#include "trust/flat_argument_check_internal.h"

#include <cmath>
#include <exception>
#include <unordered_set>
#include <utility>

#include "base/utf8.h"
#include "trust/argument_numbers_internal.h"

namespace las::trust::internal {

bool IsAnnotationKeyword(std::string_view key) {
  for (std::string_view a : {"title", "description", "default", "examples", "$comment", "readOnly",
                             "writeOnly", "deprecated"}) {
    if (key == a) return true;
  }
  return false;
}

namespace {

std::optional<uint8_t> TypeBitNamed(std::string_view name) {
  using F = FlatArgumentCheck;
  if (name == "null") return F::kNull;
  if (name == "boolean") return F::kBoolean;
  if (name == "integer") return F::kInteger;
  if (name == "number") return F::kNumber;
  if (name == "string") return F::kString;
  if (name == "array") return F::kArray;
  if (name == "object") return F::kObject;
  return std::nullopt;
}

std::optional<uint8_t> TypeBits(const Json& type) {
  if (type.is_string()) return TypeBitNamed(type.get_ref<const std::string&>());
  if (!type.is_array() || type.empty()) return std::nullopt;
  uint8_t bits = 0;
  for (const Json& name : type) {
    if (!name.is_string()) return std::nullopt;
    auto bit = TypeBitNamed(name.get_ref<const std::string&>());
    if (!bit) return std::nullopt;
    bits |= *bit;
  }
  return bits;
}

constexpr double kExactIntegerLimit = 9007199254740992.0;  // 2^53

// A bound given as a number that converts to a double exactly.
std::optional<double> ExactBound(const Json& v) {
  if (!v.is_number() || NeedsExactNumberCheck(v)) return std::nullopt;
  const double d = v.get<double>();
  if (!std::isfinite(d)) return std::nullopt;
  return d;
}

std::optional<uint64_t> LengthBound(const Json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) {
    return static_cast<uint64_t>(v.get<int64_t>());
  }
  return std::nullopt;
}

// The property's constraints, or nullopt when its schema is not flat.
std::optional<FlatArgumentCheck::Property> PropertyOf(const std::string& name, const Json& schema) {
  FlatArgumentCheck::Property p;
  p.name = name;
  if (schema.is_boolean()) {
    if (!schema.get<bool>()) return std::nullopt;
    return p;
  }
  if (!schema.is_object()) return std::nullopt;
  for (const auto& [key, value] : schema.items()) {
    if (IsAnnotationKeyword(key)) continue;
    if (key == "type") {
      auto bits = TypeBits(value);
      if (!bits) return std::nullopt;
      p.types = *bits;
    } else if (key == "enum") {
      if (!value.is_array() || value.empty()) return std::nullopt;
      for (const Json& option : value) {
        if (!option.is_string()) return std::nullopt;
        p.string_enum.push_back(option.get<std::string>());
      }
    } else if (key == "minLength" || key == "maxLength") {
      auto bound = LengthBound(value);
      if (!bound) return std::nullopt;
      (key == "minLength" ? p.min_length : p.max_length) = *bound;
    } else if (key == "minimum" || key == "maximum") {
      auto bound = ExactBound(value);
      if (!bound) return std::nullopt;
      (key == "minimum" ? p.minimum : p.maximum) = *bound;
    } else {
      return std::nullopt;
    }
  }
  return p;
}

// The keys of one open object, to refuse a repeated one: a short list searched in place,
// a hash set once the object is large (so a 100,000-key object is not quadratic).
class KeySet {
 public:
  bool Insert(std::string&& key) {
    if (large_.empty()) {
      for (const std::string& k : small_) {
        if (k == key) return false;
      }
      if (small_.size() < kSmallKeys) {
        small_.push_back(std::move(key));
        return true;
      }
      large_.insert(std::make_move_iterator(small_.begin()), std::make_move_iterator(small_.end()));
      small_.clear();
    }
    return large_.insert(std::move(key)).second;
  }

 private:
  static constexpr size_t kSmallKeys = 16;
  std::vector<std::string> small_;
  std::unordered_set<std::string> large_;
};

}  // namespace

// The SAX reader of one Accepts() call. Every handler answers false to stop the parse as
// soon as the text is not (or not surely) valid.
class FlatArgumentReader : public SaxHandlerTypes {
 public:
  explicit FlatArgumentReader(const FlatArgumentCheck& check) : check_(check) {}

  bool null() { return Scalar(FlatArgumentCheck::kNull); }
  bool boolean(bool) { return Scalar(FlatArgumentCheck::kBoolean); }
  bool number_integer(number_integer_t v) {
    return Integer(static_cast<double>(v), v >= -static_cast<int64_t>(kExactIntegerLimit) &&
                                               v <= static_cast<int64_t>(kExactIntegerLimit));
  }
  bool number_unsigned(number_unsigned_t v) {
    return Integer(static_cast<double>(v), v <= static_cast<uint64_t>(kExactIntegerLimit));
  }
  bool number_float(number_float_t v, const string_t& text) {
    // Not surely valid: the full path decides (trust/strict_json_internal.h).
    if (!std::isfinite(v) || LosesPrecisionAsDouble(v, text)) return false;
    if (depth_ != 1) return true;
    // What the full path's integer normalization makes of it (trust/argument_schema.cc).
    if (check_.integral_floats_are_integers_ && IntegralDoubleFitsInt64(v)) {
      return Integer(v, std::fabs(v) <= kExactIntegerLimit);
    }
    return Type(FlatArgumentCheck::kNumber) && Bounds(v);
  }
  bool string(string_t& s) {
    if (depth_ != 1) return true;
    if (!Type(FlatArgumentCheck::kString)) return false;
    const FlatArgumentCheck::Property* p = current_;
    if (p == nullptr) return true;
    if (!p->string_enum.empty()) {
      bool listed = false;
      for (const std::string& option : p->string_enum) listed = listed || option == s;
      if (!listed) return false;
    }
    if (p->min_length || p->max_length) {
      if (s.find('\0') != std::string::npos) return false;
      const uint64_t n = CountCodePoints(s);
      if (p->min_length && n < *p->min_length) return false;
      if (p->max_length && n > *p->max_length) return false;
    }
    return true;
  }
  bool binary(binary_t&) { return false; }

  bool start_object(size_t) {
    if (depth_ == 0) {
      root_opened_ = true;
    } else if (depth_ == 1 && !Type(FlatArgumentCheck::kObject)) {
      return false;
    }
    if (!Open()) return false;
    keys_.emplace_back();
    return true;
  }
  bool key(string_t& k) {
    if (depth_ == 1) {
      current_ = nullptr;
      bool known = false;
      for (const auto& p : check_.properties_) {
        if (p.name == k) {
          current_ = &p;
          known = true;
          break;
        }
      }
      if (!known && !check_.additional_allowed_) return false;
      if (current_ != nullptr && current_->required_index >= 0) {
        required_seen_ |= uint64_t{1} << current_->required_index;
      }
    }
    return keys_.back().Insert(std::move(k));
  }
  bool end_object() {
    keys_.pop_back();
    --depth_;
    return true;
  }
  bool start_array(size_t) {
    if (depth_ == 0) return false;  // the arguments must be an object
    if (depth_ == 1 && !Type(FlatArgumentCheck::kArray)) return false;
    return Open();
  }
  bool end_array() {
    --depth_;
    return true;
  }
  bool parse_error(size_t, const std::string&, const Json::exception&) { return false; }

  bool Complete() const {
    return root_opened_ && (required_seen_ & check_.required_mask_) == check_.required_mask_;
  }

 private:
  bool Open() {
    if (depth_ >= check_.limits_.max_depth) return false;
    ++depth_;
    return true;
  }
  // The current top-level member's schema admits a value of type `bit` (kInteger is
  // admitted by kNumber too; an enum admits only strings, checked in string()). Values
  // nested deeper are not constrained.
  bool Type(uint8_t bit) const {
    if (current_ == nullptr) return true;
    if (!current_->string_enum.empty() && bit != FlatArgumentCheck::kString) return false;
    uint8_t admitted = current_->types;
    if (admitted & FlatArgumentCheck::kNumber) admitted |= FlatArgumentCheck::kInteger;
    return (admitted & bit) != 0;
  }
  bool Scalar(uint8_t bit) {
    if (depth_ == 0) return false;
    return depth_ != 1 || Type(bit);
  }
  bool Integer(double value, bool exact) {
    if (depth_ == 0) return false;
    if (depth_ != 1) return true;
    if (!Type(FlatArgumentCheck::kInteger)) return false;
    if (current_ != nullptr && (current_->minimum || current_->maximum) && !exact) return false;
    return Bounds(value);
  }
  bool Bounds(double value) const {
    if (current_ == nullptr) return true;
    if (current_->minimum && value < *current_->minimum) return false;
    if (current_->maximum && value > *current_->maximum) return false;
    return true;
  }

  const FlatArgumentCheck& check_;
  size_t depth_ = 0;  // containers open
  bool root_opened_ = false;
  const FlatArgumentCheck::Property* current_ = nullptr;  // null: any value
  uint64_t required_seen_ = 0;
  std::vector<KeySet> keys_;  // one per open object
};

std::optional<FlatArgumentCheck> FlatArgumentCheck::For(const Json& schema,
                                                        bool integral_floats_are_integers,
                                                        const StrictJsonLimits& limits) {
  if (!schema.is_object()) return std::nullopt;
  FlatArgumentCheck check;
  check.integral_floats_are_integers_ = integral_floats_are_integers;
  check.limits_ = limits;
  const Json* required = nullptr;
  for (const auto& [key, value] : schema.items()) {
    if (IsAnnotationKeyword(key) || key == "$schema" || key == "$id" || key == "id") continue;
    if (key == "type") {
      auto bits = TypeBits(value);
      if (!bits || (*bits & kObject) == 0) return std::nullopt;
    } else if (key == "properties") {
      if (!value.is_object()) return std::nullopt;
      for (const auto& [name, sub] : value.items()) {
        auto property = PropertyOf(name, sub);
        if (!property) return std::nullopt;
        check.properties_.push_back(std::move(*property));
      }
    } else if (key == "additionalProperties") {
      if (!value.is_boolean()) return std::nullopt;
      check.additional_allowed_ = value.get<bool>();
    } else if (key == "required") {
      required = &value;
    } else {
      return std::nullopt;
    }
  }
  if (required != nullptr) {
    if (!required->is_array() || required->size() > 64) return std::nullopt;
    int index = 0;
    for (const Json& name : *required) {
      if (!name.is_string()) return std::nullopt;
      Property* named = nullptr;
      for (Property& p : check.properties_) {
        if (p.name == name.get_ref<const std::string&>()) named = &p;
      }
      if (named == nullptr) return std::nullopt;  // required but undeclared: left to valijson
      if (named->required_index < 0) named->required_index = index++;
    }
    check.required_mask_ = index == 64 ? ~uint64_t{0} : (uint64_t{1} << index) - 1;
  }
  return check;
}

bool FlatArgumentCheck::Accepts(std::string_view arguments_json) const {
  if (arguments_json.empty() || arguments_json.size() > limits_.max_bytes) return false;
  if (arguments_json.substr(0, 3) == "\xEF\xBB\xBF") return false;
  if (FindInvalidUtf8(arguments_json)) return false;
  // nlohmann's lexer takes a raw NUL for the end of input and would never see what follows
  // it; the strict parser refuses the text (trust/strict_json.cc).
  if (arguments_json.find('\0') != std::string_view::npos) return false;
  FlatArgumentReader reader(*this);
  try {
    return Json::sax_parse(arguments_json.begin(), arguments_json.end(), &reader,
                           Json::input_format_t::json, /*strict=*/true,
                           /*ignore_comments=*/false) &&
           reader.Complete();
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace las::trust::internal
