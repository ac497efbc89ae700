#include "log/event_json.h"

#include <flatbuffers/minireflect.h>

#include <ctime>
#include <nlohmann/json.hpp>
#include <vector>

#include "base/json_text_dump.h"
#include "base/hex.h"
#include "base/printable_text.h"
#include "log/envelope.h"

namespace las::log {
namespace {

// Ordered: fields print in schema order, envelope first, so lines read naturally.
using json = nlohmann::ordered_json;

// Builds a JSON object from FlatBuffers mini-reflection, so every kind — including ones
// added later — renders by its schema names without hand-written code per kind.
class JsonVisitor final : public flatbuffers::IterationVisitor {
 public:
  json& root() { return root_; }

  void StartSequence() override {
    if (stack_.empty()) {
      root_ = json::object();
      stack_.push_back(&root_);
    } else {
      stack_.push_back(Put(json::object()));
    }
  }
  void EndSequence() override { stack_.pop_back(); }

  // An absent field prints as its default, so that two events alike print alike: a writer
  // that does not force defaults, or an event older than a field added to its table
  // (FORMAT.md §Evolution), stores nothing for it. Scalars default to zero in events.fbs
  // (mini-reflection does not carry defaults: FORMAT.md forbids others).
  void Field(size_t, size_t, flatbuffers::ElementaryType type, bool is_vector,
             const flatbuffers::TypeTable* type_table, const char* name,
             const uint8_t* val) override {
    key_ = name;
    bytes_vector_ = is_vector && type == flatbuffers::ET_UCHAR;
    if (val != nullptr) return;
    if (is_vector) {
      Put(bytes_vector_ ? json("") : json::array());
    } else if (type == flatbuffers::ET_STRING) {
      Put("");
    } else if (type == flatbuffers::ET_SEQUENCE) {
      Put(nullptr);
    } else if (type == flatbuffers::ET_BOOL) {
      Put(false);
    } else if (type == flatbuffers::ET_FLOAT || type == flatbuffers::ET_DOUBLE) {
      Put(0.0);
    } else if (type != flatbuffers::ET_UTYPE) {
      Put(ZeroOf(type_table));
    }
  }

  void UType(uint8_t, const char* name) override { Put(name != nullptr ? name : "Unknown"); }
  void Bool(bool v) override { Put(v); }
  void Char(int8_t v, const char* name) override { Scalar(v, name); }
  void UChar(uint8_t v, const char* name) override { Scalar(v, name); }
  void Short(int16_t v, const char* name) override { Scalar(v, name); }
  void UShort(uint16_t v, const char* name) override { Scalar(v, name); }
  void Int(int32_t v, const char* name) override { Scalar(v, name); }
  void UInt(uint32_t v, const char* name) override { Scalar(v, name); }
  void Long(int64_t v) override { Put(v); }
  void ULong(uint64_t v) override { Put(v); }
  void Float(float v) override { Put(v); }
  void Double(double v) override { Put(v); }
  void String(const flatbuffers::String* s) override { Put(s->str()); }
  void Unknown(const uint8_t*) override { Put(nullptr); }

  void StartVector() override {
    in_bytes_vector_ = bytes_vector_;
    if (in_bytes_vector_) {
      bytes_.clear();
    } else {
      stack_.push_back(Put(json::array()));
    }
  }
  void EndVector() override {
    if (in_bytes_vector_) {
      in_bytes_vector_ = false;
      Put(ToHex(bytes_));
    } else {
      stack_.pop_back();
    }
  }

 private:
  // An integer field's zero: by name when it is an enum's.
  static json ZeroOf(const flatbuffers::TypeTable* type_table) {
    if (type_table == nullptr || type_table->st != flatbuffers::ST_ENUM) return 0;
    const int64_t index = flatbuffers::LookupEnum(0, type_table->values, type_table->num_elems);
    if (index < 0) return 0;
    return type_table->names[index];
  }

  template <typename T>
  void Scalar(T v, const char* enum_name) {
    if (in_bytes_vector_) {
      bytes_.push_back(static_cast<uint8_t>(v));
    } else if (enum_name != nullptr) {
      Put(enum_name);
    } else {
      Put(v);
    }
  }

  json* Put(json value) {
    json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(value));
      return &top.back();
    }
    json& slot = top[key_];
    slot = std::move(value);
    return &slot;
  }

  json root_;
  std::vector<json*> stack_;
  std::string key_;
  bool bytes_vector_ = false;
  bool in_bytes_vector_ = false;
  std::vector<uint8_t> bytes_;
};

json PayloadJson(const fb::Envelope& envelope) {
  const auto* union_table = fb::EventPayloadTypeTable();
  const auto kind = static_cast<int64_t>(envelope.payload_type());
  const auto index = flatbuffers::LookupEnum(kind, union_table->values, union_table->num_elems);
  if (envelope.payload() == nullptr || index <= 0 ||
      index >= static_cast<int64_t>(union_table->num_elems)) {
    return json::object();
  }
  const auto code = union_table->type_codes[index];
  const auto* table = union_table->type_refs[code.sequence_ref]();
  JsonVisitor visitor;
  flatbuffers::IterateObject(static_cast<const uint8_t*>(envelope.payload()), table, &visitor);
  return std::move(visitor.root());
}

}  // namespace

std::optional<std::string> FormatRfc3339Micros(int64_t micros) {
  int64_t seconds = micros / 1'000'000;
  int64_t fraction = micros % 1'000'000;
  if (fraction < 0) {
    fraction += 1'000'000;
    --seconds;
  }
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  if (gmtime_r(&t, &tm) == nullptr || tm.tm_year < -1900 || tm.tm_year > 9999 - 1900) {
    return std::nullopt;
  }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(fraction));
  return buffer;
}

std::string EventToJson(const StoredEvent& event) { return EventToJson(event, {}); }

std::string EventToJson(const StoredEvent& event, const std::vector<std::string_view>& withheld) {
  const fb::Envelope& envelope = EnvelopeOf(event);
  json out = json::object();
  out["seq"] = event.sequence;
  if (auto time = FormatRfc3339Micros(envelope.time_micros())) {
    out["time"] = *time;
  } else {
    out["time"] = nullptr;
  }
  out["time_micros"] = envelope.time_micros();
  out["kind"] = KindName(envelope.payload_type());
  out["agent"] = envelope.agent_id() != nullptr ? envelope.agent_id()->str() : "";
  out["session"] = envelope.session_id() != nullptr ? envelope.session_id()->str() : "";
  out["prev_hash"] = ToHex({envelope.prev_hash()->bytes()->data(), 32});
  out["hash"] = ToHex(event.hash);
  out["payload"] = PayloadJson(envelope);
  if (!withheld.empty()) {
    json names = json::array();
    for (std::string_view name : withheld) {
      if (out["payload"].erase(std::string(name)) != 0) names.push_back(name);
    }
    out["withheld"] = std::move(names);
  }
  return EscapeUnsafeInJson(DumpJson(out));
}

}  // namespace las::log
