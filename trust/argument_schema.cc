#include "trust/argument_schema.h"

// valijson reports schema errors by calling throwRuntimeError(), which aborts the process
// unless exceptions are enabled. This is the only translation unit of las_trust that
// includes valijson, so the setting cannot disagree with another TU (ODR).
#if defined(VALIJSON_USE_EXCEPTIONS)
#if !VALIJSON_USE_EXCEPTIONS
#error "trust/argument_schema.cc needs VALIJSON_USE_EXCEPTIONS=1"
#endif
#else
#define VALIJSON_USE_EXCEPTIONS 1
#endif

#include <algorithm>
#include <cctype>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <exception>
#include <map>
#include <new>
#include <optional>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <unordered_map>
#include <vector>

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validation_visitor.hpp>

#include "base/out_of_memory.h"
#include "base/printable_text.h"
#include "base/utf8.h"
#include "trust/argument_numbers_internal.h"
#include "trust/date_time_format.h"
#include "trust/flat_argument_check_internal.h"
#include "trust/leading_lookaheads.h"
#include "trust/linear_regex.h"
#include "trust/schema_cost_internal.h"
#include "trust/strict_json_internal.h"
#include "trust/utf8_pattern.h"

namespace las::trust {

using internal::Json;

// Per schema node with patternProperties: per matched key, the indices of its patterns
// (in the map's order) that match the key.
using PatternMatches = std::map<const Json*, std::map<std::string, std::vector<int>>>;

struct ArgumentSchema::Impl {
  Json document;  // the parsed schema; the pointers below point into it
  valijson::Schema schema;
  // valijson would match patternProperties keys with std::regex itself, so its copy never
  // holds that keyword (see WithPatternProperties). When pattern_properties is not empty,
  // valijson_document is that copy, and pattern_properties maps each schema node holding
  // a non-empty patternProperties to the reference tokens of its place in the copy.
  Json valijson_document;
  std::map<const Json*, std::vector<std::string>> pattern_properties;
  std::map<const Json*, LinearRegexSet> pattern_sets;  // each such node's patterns, in items() order
  std::string dialect;
  ArgumentSchemaLimits limits;
  std::map<std::string, const Json*, std::less<>> anchors;  // "#name" -> schema node
  bool has_regex = false;   // pattern, patternProperties, propertyNames, date/time format
  bool has_unique = false;  // uniqueItems: true
  bool has_property_names = false;  // propertyNames anywhere
  bool has_false_schema = false;    // a subschema `false` anywhere
  bool has_tuples = false;          // prefixItems anywhere (Walk::CheckTuple)
  bool has_additional_items = false;  // additionalItems anywhere
  std::vector<std::string> unknown_keywords;  // unknown_keywords()
  std::vector<std::string> unchecked_formats;  // unchecked_formats()
  bool needs_number_scan = false;  // internal::SchemaNeedsNumberScan(document)
  // Every pattern as written (`pattern`, patternProperties keys) -> its compiled matcher.
  std::map<std::string, LinearRegex, std::less<>> regexes;
  std::optional<internal::FlatArgumentCheck> flat;  // when the schema is flat
  // What one value may cost, in subschema evaluations: internal::WorstCaseEvaluations,
  // within its bound, times the largest enum's entries in evaluations (valijson compares a
  // value with each; probe CC1) — kEnumEntriesPerEvaluation of them cost about one.
  uint64_t cost_per_value = 1;
  size_t largest_enum = 1;
};

ArgumentSchema::ArgumentSchema(std::unique_ptr<const Impl> impl) : impl_(std::move(impl)) {}
ArgumentSchema::ArgumentSchema(ArgumentSchema&&) noexcept = default;
ArgumentSchema& ArgumentSchema::operator=(ArgumentSchema&&) noexcept = default;
ArgumentSchema::~ArgumentSchema() = default;

std::string_view ArgumentSchema::dialect() const { return impl_->dialect; }
const std::vector<std::string>& ArgumentSchema::unknown_keywords() const { return impl_->unknown_keywords; }
const std::vector<std::string>& ArgumentSchema::unchecked_formats() const { return impl_->unchecked_formats; }

namespace {

constexpr size_t kMaxSegmentBytes = 64;

// valijson's copy of the schema names each `pattern` with this keyword instead, so that it
// is matched by PatternConstraint (LinearRegex) and never by std::regex; and each call's
// copy keeps a patternProperties node's subschemas, for references, under the other one
// (WithPatternProperties). A schema that uses either name itself fails compile.
constexpr std::string_view kPatternKeyword = "x-las-pattern";
constexpr std::string_view kPatternSubschemasKeyword = "x-las-pattern-subschemas";
// And a `format` of date, time or date-time with this one, checked by FormatConstraint
// (trust/date_time_format.h) rather than valijson's looser regexes.
constexpr std::string_view kFormatKeyword = "x-las-format";
// And `multipleOf` with this one, decided on decimals by MultipleOfConstraint
// (internal::ExactMultipleOf) rather than by valijson's remainder of doubles.
constexpr std::string_view kMultipleOfKeyword = "x-las-multiple-of";

// The check for a `format` Las asserts, or nullptr for one that is only an annotation.
using DateTimeCheck = bool (*)(std::string_view);
DateTimeCheck DateTimeCheckFor(std::string_view format) {
  if (format == "date") return &IsRfc3339Date;
  if (format == "time") return &IsRfc3339Time;
  if (format == "date-time") return &IsRfc3339DateTime;
  return nullptr;
}

// ---------------------------------------------------------------------------------------
// JSON pointers.

// One RFC 6901 reference token, escaped, made safe to print: bytes outside printable
// ASCII become \xNN, and more than kMaxSegmentBytes input bytes are cut ("...").
// With pointer_escape false, '~' and '/' stay as they are (for URIs in messages).
std::string PrintableToken(std::string_view raw, bool pointer_escape = true) {
  std::string out;
  const size_t n = std::min(raw.size(), pointer_escape ? kMaxSegmentBytes : 2 * kMaxSegmentBytes);
  for (size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(raw[i]);
    if (!pointer_escape && (c == '~' || c == '/')) {
      out += static_cast<char>(c);
    } else if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c > 0x7e) {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (raw.size() > n) out += "...";
  return out;
}

// The JSON pointer of a path the strict parser reports ("" for the root).
std::string PointerOf(const internal::JsonPath& path) {
  std::string pointer;
  for (const std::string& token : path) pointer += "/" + PrintableToken(token);
  return pointer;
}

// The schema text, strictly parsed: InvalidArgument if it is not strict JSON within the
// limits; Unsupported if it holds an integer a double does not hold exactly. The release's
// digest (JCS) reads such an integer as its nearest double, which is another number; the
// validator would enforce the integer as written, which nothing signed. The message names
// where, as every compile error here does, and leaves the number out.
Result<Json> ParseBindableSchema(std::string_view schema_json, const ArgumentSchemaLimits& limits) {
  std::vector<internal::JsonPath> inexact_integers;
  Result<Json> parsed =
      internal::ParseStrictJson(schema_json, StrictJsonLimits{limits.max_schema_bytes, limits.max_schema_depth},
                                /*lost_precision=*/nullptr, &inexact_integers);
  if (!parsed.ok()) return InvalidArgument("input schema: " + parsed.status().message());
  if (!inexact_integers.empty()) {
    return Unsupported("input schema: #" + PointerOf(inexact_integers.front()) +
                       ": an integer a double does not hold exactly (beyond 2^53 not every integer "
                       "is one), which the release's canonical digest cannot bind");
  }
  return parsed;
}

// Schema locations in messages: "#/properties/a~1b/pattern".
std::string SchemaLoc(const std::string& base, std::string_view key) {
  return base + "/" + PrintableToken(key);
}

// Resolves a same-document reference ("#", "#/a/b", "#name") against `root`.
const Json* ResolveFragment(const Json& root, std::string_view ref,
                            const std::map<std::string, const Json*, std::less<>>& anchors) {
  if (ref.empty() || ref[0] != '#') return nullptr;
  // Percent-decode the fragment (RFC 3986); a malformed escape resolves to nothing.
  std::string fragment;
  for (size_t i = 1; i < ref.size(); ++i) {
    if (ref[i] != '%') {
      fragment += ref[i];
      continue;
    }
    if (i + 2 >= ref.size()) return nullptr;
    unsigned value = 0;
    for (size_t k = 1; k <= 2; ++k) {
      const char h = ref[i + k];
      value <<= 4;
      if (h >= '0' && h <= '9') value |= static_cast<unsigned>(h - '0');
      else if (h >= 'a' && h <= 'f') value |= static_cast<unsigned>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') value |= static_cast<unsigned>(h - 'A' + 10);
      else return nullptr;
    }
    fragment += static_cast<char>(value);
    i += 2;
  }
  if (fragment.empty()) return &root;
  if (fragment[0] != '/') {
    auto it = anchors.find("#" + fragment);
    return it == anchors.end() ? nullptr : it->second;
  }
  const Json* node = &root;
  size_t pos = 1;
  while (true) {
    const size_t slash = fragment.find('/', pos);
    std::string token = fragment.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    std::string unescaped;
    for (size_t i = 0; i < token.size(); ++i) {
      if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
        unescaped += token[i + 1] == '0' ? '~' : '/';
        ++i;
      } else if (token[i] == '~') {
        return nullptr;
      } else {
        unescaped += token[i];
      }
    }
    if (node->is_object()) {
      auto it = node->find(unescaped);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else if (node->is_array()) {
      if (unescaped.empty() || unescaped.size() > 9 ||
          unescaped.find_first_not_of("0123456789") != std::string::npos ||
          (unescaped.size() > 1 && unescaped[0] == '0')) {
        return nullptr;
      }
      const size_t index = std::stoul(unescaped);
      if (index >= node->size()) return nullptr;
      node = &(*node)[index];
    } else {
      return nullptr;
    }
    if (slash == std::string::npos) return node;
    pos = slash + 1;
  }
}

// ---------------------------------------------------------------------------------------
// Compile-time checks: one structural walk over every schema position.

enum class Dialect { kDraft04, kDraft06, kDraft07, k201909, k202012 };

std::string_view DialectName(Dialect d) {
  switch (d) {
    case Dialect::kDraft04: return "draft-04";
    case Dialect::kDraft06: return "draft-06";
    case Dialect::kDraft07: return "draft-07";
    case Dialect::k201909: return "2019-09";
    case Dialect::k202012: return "2020-12";
  }
  return "draft-07";
}

Result<Dialect> DialectOf(const Json& root) {
  if (!root.is_object()) return Dialect::kDraft07;
  auto it = root.find("$schema");
  if (it == root.end()) return Dialect::kDraft07;
  if (!it->is_string()) return InvalidArgument("input schema: #/$schema is not a string");
  std::string_view uri = it->get_ref<const std::string&>();
  const std::string shown = PrintableToken(uri, false);
  if (uri.starts_with("https://")) uri.remove_prefix(8);
  else if (uri.starts_with("http://")) uri.remove_prefix(7);
  if (uri.ends_with("#")) uri.remove_suffix(1);
  if (uri == "json-schema.org/draft-07/schema") return Dialect::kDraft07;
  if (uri == "json-schema.org/draft-06/schema") return Dialect::kDraft06;
  if (uri == "json-schema.org/draft-04/schema") return Dialect::kDraft04;
  if (uri == "json-schema.org/draft/2019-09/schema") return Dialect::k201909;
  if (uri == "json-schema.org/draft/2020-12/schema") return Dialect::k202012;
  return Unsupported("input schema: $schema \"" + shown +
                     "\" is not a supported dialect (draft-04, draft-06, draft-07, and "
                     "2019-09 / 2020-12 within their draft-07-compatible subset)");
}

// Keywords valijson does not implement, whose silent omission would validate less than
// the schema's author meant.
constexpr std::array<std::string_view, 12> kUnsupportedKeywords = {
    "unevaluatedItems", "unevaluatedProperties", "dependentRequired", "dependentSchemas",
    "$dynamicRef",      "$dynamicAnchor",        "$recursiveRef",     "$recursiveAnchor",
    "$anchor",          "minContains",           "maxContains",       "$vocabulary"};

// Comparing a value with this many enum entries costs about one subschema evaluation
// (~0.4 us for a simple one, release build): a small enum adds nothing to a call's cost.
constexpr size_t kEnumEntriesPerEvaluation = 16;

// Keywords whose value is a number (or, for the exclusive bounds in draft-04, a boolean).
// (multipleOf has its own check: a number greater than 0.)
constexpr std::array<std::string_view, 10> kNumericKeywords = {
    "maximum",   "minimum",  "exclusiveMaximum", "exclusiveMinimum", "maxLength",
    "minLength", "maxItems", "minItems",         "maxProperties",    "minProperties"};

// Every keyword of drafts 04 to 2020-12 a schema node may hold that Las reads or passes over
// knowingly (those it refuses, kUnsupportedKeywords, fail compile before this is asked).
constexpr auto kKnownKeywords = std::to_array<std::string_view>({
    "$schema", "$id", "id", "$ref", "$comment", "definitions", "$defs", "title", "description",
    "default", "examples", "readOnly", "writeOnly", "deprecated", "type", "enum", "const",
    "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
    "minLength", "pattern", "format", "items", "additionalItems", "maxItems", "minItems",
    "uniqueItems", "contains", "prefixItems", "maxProperties", "minProperties", "required", "properties",
    "patternProperties", "additionalProperties", "dependencies", "propertyNames", "if", "then",
    "else", "allOf", "anyOf", "oneOf", "not", "contentEncoding", "contentMediaType",
    "contentSchema"});

// Keywords that may stand beside $ref besides annotations (internal::IsAnnotationKeyword):
// identifiers and containers, nothing that asserts.
constexpr std::array<std::string_view, 6> kRefSiblingsAllowed = {
    "$ref", "$id", "id", "$schema", "definitions", "$defs"};

template <size_t N>
bool Contains(const std::array<std::string_view, N>& list, std::string_view key) {
  for (std::string_view k : list) {
    if (k == key) return true;
  }
  return false;
}

struct Walk {
  Dialect dialect;
  // prefixItems is read as 2020-12 has it (a tuple; `items` beside it holds the rest) in a
  // 2020-12 schema and in one without $schema, which is how pydantic and zod write tuples.
  // valijson knows only draft-07's form: its copy gets items (array) and additionalItems.
  bool reads_tuples;
  const Json* root;
  ArgumentSchema::Impl* impl;
  std::set<const Json*> schema_nodes;                        // every walked schema position
  std::vector<std::pair<const Json*, std::string>> refs;     // node holding $ref, its location
  std::map<std::string, std::string> anchor_locations;       // "#name" -> where it is declared
  uint64_t pattern_instructions = 0;  // of every pattern compiled (max_pattern_instructions)

  // Every pattern's translation (trust/utf8_pattern.h), and the schema nodes that hold a
  // `pattern` or `patternProperties`: valijson's copy gets the translations there.
  std::set<const Json*> pattern_nodes;
  std::set<const Json*> format_nodes;  // schema nodes whose format is date, time or date-time
  // Schema nodes with any other format, an annotation to Las: valijson's copy drops it, as
  // valijson read the value as a string before its type (probe HE1: a non-empty array
  // under anyOf [{format: uri}, {type: array}] threw, refusing valid arguments).
  std::set<const Json*> annotation_format_nodes;
  std::set<const Json*> multiple_of_nodes;  // schema nodes with a (valid) multipleOf
  std::map<std::string, std::string> translated;  // pattern as written -> RE2's (utf8_pattern.h)
  // Every JSON value inside a patternProperties subschema: valijson's copy keeps those
  // subschemas at other paths (PrepareCopy), so no $ref may point into them.
  std::set<const Json*> moved;
  // Schema nodes holding prefixItems, and every JSON value inside their prefixItems and
  // items: the copy keeps those under other names, so no $ref may point into them.
  std::set<const Json*> tuple_nodes;
  std::set<const Json*> moved_tuple;
  // enum / const values and maps of named subschemas (properties, definitions, ...): valijson
  // reads them as data or names, so no $ref may make one a schema.
  std::set<const Json*> not_schemas;

  // `value` and everything inside it, into `marked`.
  static void MarkAll(const Json& value, std::set<const Json*>& marked) {
    marked.insert(&value);
    if (value.is_structured()) {
      for (const Json& inner : value) MarkAll(inner, marked);
    }
  }

  // `lookaheads`: a `pattern` keyword's, whose leading look-aheads become conditions of
  // its matcher (trust/leading_lookaheads.h); not a patternProperties key's, which all of a
  // node's keys match as one RE2 set (its RE2 text goes into `translated`).
  Status CheckRegex(const Json& node, const std::string& pattern, const std::string& loc, bool lookaheads) {
    pattern_nodes.insert(&node);
    if (impl->regexes.contains(pattern) && (lookaheads || translated.contains(pattern))) {
      return Status::Ok();
    }
    if (pattern.size() > kMaxPatternBytes) {
      // A patternProperties location ends in the pattern itself: name where it stands.
      const std::string shown = loc.size() > 200 ? loc.substr(0, 200) + "..." : loc;
      return Unsupported("input schema: " + shown + ": the pattern is longer than " +
                         std::to_string(kMaxPatternBytes) + " bytes, which Las does not check");
    }
    // Translation refuses what is not u-flag ECMAScript (kInvalidArgument) and what is but
    // Las does not implement (kUnsupported: \p{..}, \u{..}, named groups, look-behind).
    Result<std::string> as_bytes = TranslatePattern(pattern, PatternTarget::kStdRegexUtf8Bytes);
    if (!as_bytes.ok()) return Status(as_bytes.status().code(), "input schema: " + loc + ": " + as_bytes.status().message());
    try {
      // ECMAScript is the pattern language: what std::regex's grammar refuses is not one.
      std::regex compiled(*as_bytes);
      (void)compiled;
    } catch (const std::regex_error& error) {
      const auto code = error.code();
      if (code == std::regex_constants::error_space || code == std::regex_constants::error_complexity ||
          code == std::regex_constants::error_stack) {
        // A size limit of std::regex (100,000 NFA states: ^(.{1000}){1000}$), not a syntax
        // error: the pattern is valid, Las cannot check it.
        return Unsupported("input schema: " + loc + ": the pattern is larger than Las's pattern checker "
                           "(std::regex) compiles; valid ECMAScript but not supported by Las");
      }
      return InvalidArgument("input schema: " + loc + " is not a valid ECMAScript regular expression");
    } catch (const std::exception&) {
      return InvalidArgument("input schema: " + loc + " is not a valid ECMAScript regular expression");
    }
    auto compile = [&loc](std::string_view text, std::string* for_re2) -> Result<LinearRegex> {
      Result<std::string> translation = TranslatePattern(text, PatternTarget::kRe2CodePoints);
      if (!translation.ok()) {
        return Status(translation.status().code(), "input schema: " + loc + ": " + translation.status().message());
      }
      Result<LinearRegex> matcher = LinearRegex::Compile(*translation);
      if (!matcher.ok()) return Status(matcher.status().code(), "input schema: " + loc + ": " + matcher.status().message());
      if (for_re2 != nullptr) *for_re2 = std::move(translation).value();
      return matcher;
    };
    const std::optional<LookaheadSplit> split = lookaheads ? SplitLeadingLookaheads(pattern) : std::nullopt;
    std::string for_re2;
    Result<LinearRegex> linear = compile(split ? split->rest : pattern, &for_re2);
    if (!linear.ok()) return linear.status();
    if (split) {
      std::vector<std::pair<bool, LinearRegex>> conditions;
      for (const LookaheadSplit::Condition& condition : split->conditions) {
        Result<LinearRegex> matcher = compile(condition.pattern, nullptr);
        if (!matcher.ok()) return matcher.status();
        conditions.emplace_back(condition.must_match, std::move(matcher).value());
      }
      linear = LinearRegex::WithConditions(std::move(linear).value(), std::move(conditions));
    }
    pattern_instructions += static_cast<uint64_t>(std::max(0, linear->ProgramSize()));
    if (pattern_instructions > impl->limits.max_pattern_instructions) {
      return Unsupported("input schema: " + loc + ": the schema's patterns together compile to more than " +
                         std::to_string(impl->limits.max_pattern_instructions) +
                         " matcher instructions, more than Las compiles for one schema");
    }
    impl->regexes.emplace(pattern, std::move(linear).value());
    if (!split) translated.emplace(pattern, std::move(for_re2));
    impl->has_regex = true;
    return Status::Ok();
  }

  // `copy` mirrors `original` (the walked document) at `path`: every `pattern` of a walked
  // schema node becomes kPatternKeyword and every `patternProperties` becomes
  // kPatternSubschemasKeyword (which valijson ignores); each node that held one is listed
  // in `nodes`.
  void PrepareCopy(const Json& original, Json& copy, std::vector<std::string>& path,
                   std::map<const Json*, std::vector<std::string>>& nodes) const {
    if (format_nodes.contains(&original)) {
      copy[std::string(kFormatKeyword)] = std::move(copy["format"]);
      copy.erase("format");
    }
    const bool annotation_format = annotation_format_nodes.contains(&original);
    if (annotation_format) copy.erase("format");
    if (multiple_of_nodes.contains(&original)) {
      // As text: PrepareSchemaNumbers would make 2^63 a double, whose shortest form is
      // another number; the text round-trips to the number as written.
      copy[std::string(kMultipleOfKeyword)] = original.at("multipleOf").dump();
      copy.erase("multipleOf");
    }
    const bool tuple_node = tuple_nodes.contains(&original);
    if (tuple_node) {
      if (auto rest = copy.find("items"); rest != copy.end()) copy["additionalItems"] = std::move(*rest);
      copy["items"] = std::move(copy["prefixItems"]);
      copy.erase("prefixItems");
    }
    const bool pattern_node = pattern_nodes.contains(&original);
    if (pattern_node) {
      if (auto it = original.find("pattern"); it != original.end() && it->is_string()) {
        copy.erase("pattern");
        copy[std::string(kPatternKeyword)] = *it;
      }
      if (auto it = original.find("patternProperties"); it != original.end() && it->is_object()) {
        // An array, in the map's order: references by index need no pattern text (an
        // empty pattern would make an empty token, which valijson skips).
        Json list = Json::array();
        for (auto& [pattern, sub] : copy["patternProperties"].items()) list.push_back(std::move(sub));
        copy[std::string(kPatternSubschemasKeyword)] = std::move(list);
        copy.erase("patternProperties");
        nodes.emplace(&original, path);
      }
    }
    if (original.is_object()) {
      for (const auto& [key, value] : original.items()) {
        if (pattern_node && key == "pattern" && value.is_string()) continue;
        if (key == "format" && (format_nodes.contains(&original) || annotation_format)) continue;
        if (key == "multipleOf" && multiple_of_nodes.contains(&original)) continue;
        if (pattern_node && key == "patternProperties" && value.is_object()) {
          Json& list = copy[std::string(kPatternSubschemasKeyword)];
          path.emplace_back(kPatternSubschemasKeyword);
          size_t i = 0;
          for (const auto& [pattern, sub] : value.items()) {
            path.push_back(std::to_string(i));
            PrepareCopy(sub, list[i], path, nodes);
            path.pop_back();
            ++i;
          }
          path.pop_back();
          continue;
        }
        const std::string copy_key = !tuple_node           ? key
                                     : key == "prefixItems" ? "items"
                                     : key == "items"       ? "additionalItems"
                                                            : key;
        path.push_back(copy_key);
        PrepareCopy(value, copy[copy_key], path, nodes);
        path.pop_back();
      }
    } else if (original.is_array()) {
      for (size_t i = 0; i < original.size(); ++i) {
        path.push_back(std::to_string(i));
        PrepareCopy(original[i], copy[i], path, nodes);
        path.pop_back();
      }
    }
  }

  // valijson cuts the property names it is given (properties, required, dependencies) at
  // a NUL: {"required":["a\u0000b"]} would require "a".
  static Status NoNulInNames(const Json& node, const std::string& loc) {
    auto refuse = [&](const char* keyword) {
      return Unsupported("input schema: " + SchemaLoc(loc, keyword) +
                         ": a property name holding a NUL character is not supported");
    };
    auto has_nul = [](const std::string& name) { return name.find('\0') != std::string::npos; };
    for (const char* keyword : {"properties", "dependencies"}) {
      if (auto it = node.find(keyword); it != node.end() && it->is_object()) {
        for (const auto& [name, value] : it->items()) {
          if (has_nul(name)) return refuse(keyword);
          if (value.is_array()) {
            for (const Json& other : value) {
              if (other.is_string() && has_nul(other.get_ref<const std::string&>())) return refuse(keyword);
            }
          }
        }
      }
    }
    if (auto it = node.find("required"); it != node.end() && it->is_array()) {
      for (const Json& name : *it) {
        if (name.is_string() && has_nul(name.get_ref<const std::string&>())) return refuse("required");
      }
    }
    return Status::Ok();
  }

  // ResolveFragment percent-decodes a fragment, then splits it and undoes ~0 / ~1;
  // valijson splits, undoes ~0 / ~1, then percent-decodes each token, and skips empty
  // ones. They agree unless a token is empty, an escape spells '/' or '~', or a '~' meets
  // an escape — then the walks here and valijson's would check different subschemas.
  static bool ReadAmbiguously(std::string_view ref) {
    if (ref.size() < 2 || ref[1] != '/') return false;  // "#" or "#name"
    const std::string_view pointer = ref.substr(1);
    if (pointer.find("//") != std::string_view::npos || pointer.back() == '/' ||
        pointer.find("~%") != std::string_view::npos) {
      return true;
    }
    for (size_t i = pointer.find('%'); i != std::string_view::npos; i = pointer.find('%', i + 1)) {
      const std::string_view escape = pointer.substr(i + 1, 2);
      for (std::string_view bad : {"2F", "2f", "7E", "7e"}) {
        if (escape == bad) return true;
      }
    }
    return false;
  }

  // A prefixItems Las can hand valijson as draft-07's array-form items.
  Status CheckTuple(const Json& node, const Json& prefix, const std::string& loc) {
    const std::string at = SchemaLoc(loc, "prefixItems");
    if (!reads_tuples) {
      return Unsupported("input schema: " + at + ": a 2020-12 keyword in a " + std::string(DialectName(dialect)) +
                         " schema, which ignores it (it would validate less than the schema says); "
                         "declare 2020-12 or no $schema");
    }
    if (!prefix.is_array()) return InvalidArgument("input schema: " + at + " is not an array of schemas");
    // The 2020-12 meta-schema's minItems 1 (probe HD4: ajv refuses to compile it).
    if (prefix.empty()) return InvalidArgument("input schema: " + at + " is empty; it must hold at least one schema");
    const auto items = node.find("items");
    if ((items != node.end() && items->is_array()) || node.contains("additionalItems")) {
      return Unsupported("input schema: " + at + " beside " +
                         (node.contains("additionalItems") ? "additionalItems" : "array-form items") +
                         ", which mixes 2020-12's tuples with draft-07's; not supported");
    }
    tuple_nodes.insert(&node);
    impl->has_tuples = true;
    return Status::Ok();
  }

  Status SchemaMap(const Json& map, const std::string& loc) {
    if (!map.is_object()) return Status::Ok();  // valijson reports the type error
    for (const auto& [key, sub] : map.items()) {
      LAS_RETURN_IF_ERROR(Schema(sub, SchemaLoc(loc, key)));
    }
    return Status::Ok();
  }

  Status Schema(const Json& node, const std::string& loc) {
    schema_nodes.insert(&node);
    if (node.is_boolean()) {
      if (!node.get<bool>()) impl->has_false_schema = true;
      return Status::Ok();
    }
    if (!node.is_object()) {
      return InvalidArgument("input schema: " + (loc == "#" ? std::string("the root") : loc) +
                             " is not a schema (an object or a boolean)");
    }
    for (const auto& [key, value] : node.items()) {
      if (key == kPatternKeyword || key == kPatternSubschemasKeyword || key == kFormatKeyword ||
          key == kMultipleOfKeyword) {
        return Unsupported("input schema: " + SchemaLoc(loc, key) + ": this keyword name is reserved by Las");
      }
      if (Contains(kUnsupportedKeywords, key)) {
        return Unsupported("input schema: " + SchemaLoc(loc, key) +
                           ": keyword is not supported by this policy (it would be ignored, "
                           "validating less than the schema says)");
      }
      std::vector<std::string>& unknown = impl->unknown_keywords;
      // OpenAPI's discriminator names what oneOf and const decide (pydantic writes it for
      // every tagged union: probe GM3); an x- key is a vendor's annotation.
      const bool annotation = key == "discriminator" || key.starts_with("x-");
      if (!annotation && !Contains(kKnownKeywords, key) && unknown.size() < kMostUnknownKeywords &&
          std::find(unknown.begin(), unknown.end(), key) == unknown.end()) {
        unknown.push_back(key);
      }
      // valijson reads a bound written as a string as the number it spells, "nan" too, and
      // every comparison with NaN passes (probe BY3): a bound is a number in every draft.
      if (value.is_string() && Contains(kNumericKeywords, key)) {
        return Unsupported("input schema: " + SchemaLoc(loc, key) +
                           ": a bound written as a string, not a number");
      }
      // OpenAPI 3.0 (zod-to-json-schema's openApi3 target) writes draft-04's boolean form
      // in a schema read as a later draft; valijson's own refusal named valijson (probe GS5).
      if (value.is_boolean() && dialect != Dialect::kDraft04 &&
          (key == "exclusiveMinimum" || key == "exclusiveMaximum")) {
        return Unsupported("input schema: " + SchemaLoc(loc, key) + ": a boolean, draft-04's form, in a " +
                           std::string(DialectName(dialect)) +
                           " schema, where it must be the bound itself (a number)");
      }
      if (key == "prefixItems") LAS_RETURN_IF_ERROR(CheckTuple(node, value, loc));
      if (dialect == Dialect::k202012 &&
          (key == "additionalItems" || (key == "items" && value.is_array()))) {
        return Unsupported("input schema: " + SchemaLoc(loc, key) +
                           ": array-form items / additionalItems mean something else in "
                           "2020-12; not supported");
      }
    }
    LAS_RETURN_IF_ERROR(NoNulInNames(node, loc));
    if (auto ref = node.find("$ref"); ref != node.end()) {
      if (!ref->is_string()) return InvalidArgument("input schema: " + loc + "/$ref is not a string");
      const std::string& target = ref->get_ref<const std::string&>();
      if (target.empty() || target[0] != '#') {
        return Unsupported("input schema: " + loc + "/$ref \"" + PrintableToken(target, false) +
                           "\" is not a same-document reference (\"#...\"); Las never fetches "
                           "or reads another schema");
      }
      if (ReadAmbiguously(target)) {
        return Unsupported("input schema: " + loc + "/$ref \"" + PrintableToken(target, false) +
                           "\" is a pointer with an empty reference token, %2F or %7E, which "
                           "validators read differently; spell it plainly");
      }
      for (const auto& [key, value] : node.items()) {
        if (!internal::IsAnnotationKeyword(key) && !Contains(kRefSiblingsAllowed, key)) {
          return Unsupported("input schema: " + SchemaLoc(loc, key) +
                             ": an assertion beside $ref (ignored by draft-07, applied by "
                             "2019-09); move it into an allOf");
        }
      }
      refs.emplace_back(&node, loc + "/$ref");
    }
    const char* id_keyword = dialect == Dialect::kDraft04 ? "id" : "$id";
    if (auto id = node.find(id_keyword); id != node.end() && id->is_string()) {
      const std::string& value = id->get_ref<const std::string&>();
      if (!value.empty() && value[0] == '#') {
        if (value.size() > 1 && !impl->anchors.emplace(value, &node).second) {
          return InvalidArgument("input schema: " + SchemaLoc(loc, id_keyword) +
                                 ": the anchor is declared twice");
        }
        anchor_locations.emplace(value, loc);
      } else if (&node != root) {
        return Unsupported("input schema: " + SchemaLoc(loc, id_keyword) +
                           ": a subschema that opens another schema resource is not supported");
      }
    }
    if (auto it = node.find("pattern"); it != node.end() && it->is_string()) {
      LAS_RETURN_IF_ERROR(CheckRegex(node, it->get<std::string>(), SchemaLoc(loc, "pattern"), /*lookaheads=*/true));
    }
    if (auto it = node.find("format"); it != node.end() && it->is_string()) {
      const std::string& format = it->get_ref<const std::string&>();
      const bool checked = DateTimeCheckFor(format) != nullptr;
      (checked ? format_nodes : annotation_format_nodes).insert(&node);
      std::vector<std::string>& unchecked = impl->unchecked_formats;
      if (!checked && unchecked.size() < kMostUnknownKeywords &&
          std::find(unchecked.begin(), unchecked.end(), format) == unchecked.end()) {
        unchecked.push_back(format);
      }
    }
    // JSON Schema requires a divisor above 0; valijson takes any (0: a division by zero).
    if (auto it = node.find("multipleOf"); it != node.end()) {
      if (!(it->is_number() && it->get<double>() > 0)) {
        return InvalidArgument("input schema: " + SchemaLoc(loc, "multipleOf") + " is not a number greater than 0");
      }
      multiple_of_nodes.insert(&node);
    }
    if (auto it = node.find("uniqueItems"); it != node.end() && it->is_boolean() && it->get<bool>()) {
      impl->has_unique = true;
    }
    if (auto it = node.find("enum"); it != node.end() && it->is_array()) {
      impl->largest_enum = std::max(impl->largest_enum, it->size());
    }
    if (auto it = node.find("patternProperties"); it != node.end() && it->is_object()) {
      const std::string ploc = SchemaLoc(loc, "patternProperties");
      std::vector<std::string> all;
      for (const auto& [pattern, sub] : it->items()) {
        LAS_RETURN_IF_ERROR(CheckRegex(node, pattern, SchemaLoc(ploc, pattern), /*lookaheads=*/false));
        MarkAll(sub, moved);
        all.push_back(translated.at(pattern));
      }
      if (!all.empty() && !impl->pattern_sets.contains(&node)) {
        Result<LinearRegexSet> set = LinearRegexSet::Compile(all);
        if (!set.ok()) return Status(set.status().code(), "input schema: " + ploc + ": " + set.status().message());
        impl->pattern_sets.emplace(&node, std::move(set).value());
      }
    }
    if (node.contains("propertyNames")) impl->has_regex = impl->has_property_names = true;
    if (node.contains("additionalItems")) impl->has_additional_items = true;
    for (const char* data : {"enum", "const"}) {
      if (auto it = node.find(data); it != node.end()) MarkAll(*it, not_schemas);
    }
    for (const char* map : {"properties", "patternProperties", "definitions", "$defs", "dependencies"}) {
      if (auto it = node.find(map); it != node.end()) not_schemas.insert(&*it);
    }
    for (const char* map : {"properties", "patternProperties", "definitions", "$defs"}) {
      if (auto it = node.find(map); it != node.end()) {
        LAS_RETURN_IF_ERROR(SchemaMap(*it, SchemaLoc(loc, map)));
      }
    }
    if (auto it = node.find("dependencies"); it != node.end() && it->is_object()) {
      const std::string dloc = SchemaLoc(loc, "dependencies");
      for (const auto& [key, dep] : it->items()) {
        if (dep.is_object() || dep.is_boolean()) LAS_RETURN_IF_ERROR(Schema(dep, SchemaLoc(dloc, key)));
      }
    }
    for (const char* single : {"additionalProperties", "additionalItems", "contains", "propertyNames",
                               "if", "then", "else", "not"}) {
      if (auto it = node.find(single); it != node.end() && (it->is_object() || it->is_boolean())) {
        LAS_RETURN_IF_ERROR(Schema(*it, SchemaLoc(loc, single)));
      }
    }
    if (auto it = node.find("prefixItems"); it != node.end()) {
      for (size_t i = 0; i < it->size(); ++i) {
        LAS_RETURN_IF_ERROR(Schema((*it)[i], SchemaLoc(loc, "prefixItems") + "/" + std::to_string(i)));
      }
      MarkAll(*it, moved_tuple);
      if (auto rest = node.find("items"); rest != node.end()) MarkAll(*rest, moved_tuple);
    }
    if (auto it = node.find("items"); it != node.end()) {
      if (it->is_array()) {
        for (size_t i = 0; i < it->size(); ++i) {
          LAS_RETURN_IF_ERROR(Schema((*it)[i], SchemaLoc(loc, "items") + "/" + std::to_string(i)));
        }
      } else if (it->is_object() || it->is_boolean()) {
        LAS_RETURN_IF_ERROR(Schema(*it, SchemaLoc(loc, "items")));
      }
    }
    for (const char* list : {"allOf", "anyOf", "oneOf"}) {
      if (auto it = node.find(list); it != node.end() && it->is_array()) {
        for (size_t i = 0; i < it->size(); ++i) {
          LAS_RETURN_IF_ERROR(Schema((*it)[i], SchemaLoc(loc, list) + "/" + std::to_string(i)));
        }
      }
    }
    return Status::Ok();
  }

  // Every $ref resolves to a walked schema position, and no chain of references returns
  // to itself without descending (valijson would recurse until the stack overflows).
  Status CheckRefs() {
    // Holders whose chain is known to reach a schema: a chain d0 -> d1 -> ... -> dN is
    // walked once in all, not once from each of its N references (quadratic: 2,000 refs
    // took 10 s).
    std::set<const Json*> reach_schema;
    // Index loop: walking a target may append the references it holds.
    for (size_t r = 0; r < refs.size(); ++r) {
      const Json* holder = refs[r].first;
      const std::string loc = refs[r].second;
      std::set<const Json*> seen;
      const Json* current = holder;
      while (current->is_object() && current->contains("$ref") && !reach_schema.contains(current)) {
        if (!seen.insert(current).second) {
          return InvalidArgument("input schema: " + loc +
                                 ": the reference chain loops without reaching a schema");
        }
        const std::string& target = (*current)["$ref"].get_ref<const std::string&>();
        const Json* next = ResolveFragment(*root, target, impl->anchors);
        if (next == nullptr) {
          return InvalidArgument("input schema: " + loc + ": \"" + PrintableToken(target, false) +
                                 "\" resolves to nothing in this schema");
        }
        // valijson resolves JSON pointers only: it refused "#name" with a message of its
        // own, which quoted the child's text (probe GL4).
        if (target.size() > 1 && target[1] != '/') {
          const auto declared = anchor_locations.find(target);
          return Unsupported("input schema: " + loc + ": \"" + PrintableToken(target, false) +
                             "\" names an anchor, which the validator does not resolve" +
                             (declared == anchor_locations.end()
                                  ? std::string()
                                  : "; refer to it by its pointer \"" + declared->second + "\""));
        }
        if (not_schemas.contains(next)) {
          return Unsupported("input schema: " + loc + ": \"" + PrintableToken(target, false) +
                             "\" points at enum or const data or at a map of named subschemas, "
                             "not at a schema");
        }
        if (moved_tuple.contains(next)) {
          return Unsupported("input schema: " + loc + ": \"" + PrintableToken(target, false) +
                             "\" points into a prefixItems or the items beside one; move that "
                             "subschema into $defs and refer to it there");
        }
        if (moved.contains(next)) {
          return Unsupported("input schema: " + loc + ": \"" + PrintableToken(target, false) +
                             "\" points into a patternProperties subschema; move that "
                             "subschema into definitions and refer to it there");
        }
        if (!schema_nodes.contains(next)) {
          // A reference into a place the walk did not treat as a schema (an unknown
          // keyword, an enum member): it is one now, with the same checks.
          LAS_RETURN_IF_ERROR(Schema(*next, PrintableToken(target, false)));
        }
        current = next;
      }
      reach_schema.insert(seen.begin(), seen.end());
    }
    return Status::Ok();
  }
};

// ---------------------------------------------------------------------------------------
// What a call may cost.

// Every value of `instance` and every member name, at any depth: what the validator may
// evaluate a subschema against (propertyNames applies to names).
uint64_t ValuesIn(const Json& instance) {
  uint64_t values = 1;
  if (instance.is_object()) {
    for (const auto& [name, member] : instance.items()) values += 1 + ValuesIn(member);
  } else if (instance.is_array()) {
    for (const Json& item : instance) values += ValuesIn(item);
  }
  return values;
}

// The refusal of a call whose validation could cost more than max_call_evaluations: each of
// its `values` may be evaluated cost_per_value times, and so may each uniqueItems that
// applies to an array, whose `item_comparisons` (each item with every other, a comparison
// costing up to the item's values) count kEnumEntriesPerEvaluation to an evaluation (probe
// GL1: 512 near-equal items of 900 numbers held the check for seconds).
std::optional<Verdict> TooCostly(const ArgumentSchema::Impl& impl, uint64_t values,
                                 uint64_t item_comparisons) {
  const uint64_t comparisons = item_comparisons / kEnumEntriesPerEvaluation;
  if ((values + comparisons) * impl.cost_per_value <= impl.limits.max_call_evaluations) {
    return std::nullopt;
  }
  return Reject(Reason::kArgumentsSchemaViolation,
                "arguments: " + std::to_string(values) + " values and member names" +
                    (comparisons == 0 ? std::string()
                                      : " and " + std::to_string(item_comparisons) +
                                            " uniqueItems value comparisons (" +
                                            std::to_string(kEnumEntriesPerEvaluation) +
                                            " to an evaluation)") +
                    ", each checked by up to " + std::to_string(impl.cost_per_value) +
                    " subschema evaluations and enum comparisons of this tool's schema: more "
                    "than the " +
                    std::to_string(impl.limits.max_call_evaluations) + " one call may cost");
}

// ---------------------------------------------------------------------------------------
// What valijson must not be handed: a conservative walk of schema and instance finds work
// without a bound (long regex subjects, long uniqueItems arrays) and values it would
// misread (numbers: trust/argument_numbers_internal.h; strings holding NUL).

struct Hazard {
  std::string pointer;
  std::string keyword;
  std::string why;
};

struct HazardScan {
  const ArgumentSchema::Impl& impl;
  const std::set<std::string>& lost_precision;  // pointers: see LosesPrecisionAsDouble
  std::set<std::pair<const Json*, const Json*>> visited;
  std::optional<Hazard> found;
  // Per schema node with patternProperties, per key of an object it could apply to that
  // its patterns match, the indices of those patterns: for WithPatternProperties.
  PatternMatches pattern_matches;
  // The member names scanned as values under propertyNames, kept for the scan: `visited`
  // holds their addresses.
  std::deque<Json> names;
  // What each uniqueItems that applies to an array may compare (TooCostly).
  uint64_t item_comparisons = 0;

  static bool Has(const Json& s, const char* key) { return s.contains(key); }

  void LongString(const std::string& pointer, const char* keyword) {
    if (found) return;
    found = Hazard{pointer, keyword,
                   "a string longer than the " + std::to_string(impl.limits.max_pattern_subject_bytes) +
                       "-byte bound for regular-expression checks"};
  }

  // valijson counts a string's characters up to its first NUL (u8_strlen of c_str()), so
  // "a\u0000bbbb" was 1 character long for maxLength.
  void LengthWithNul(const Json& s, std::string_view text, const std::string& pointer) {
    const size_t nul = text.find('\0');
    if (found || nul == std::string_view::npos) return;
    const size_t exact = CountCodePoints(text);
    const size_t counted = CountCodePoints(text.substr(0, nul));
    for (const auto& [keyword, minimum] : {std::pair{"minLength", true}, std::pair{"maxLength", false}}) {
      const auto bound = s.find(keyword);
      if (bound == s.end() || !bound->is_number()) continue;
      const double b = bound->get<double>();
      auto passes = [&](auto n) { return minimum ? static_cast<double>(n) >= b : static_cast<double>(n) <= b; };
      if (passes(exact) != passes(counted)) {
        found = Hazard{pointer, keyword, "a string holding a NUL character, which the validator counts only up to"};
        return;
      }
    }
  }

  // The indices of s's patternProperties patterns that match `key` (recorded for the
  // rewrite), or nullopt with `found` set when the key cannot be handed to valijson: the
  // matcher could not decide, or valijson cuts a name holding a NUL.
  std::optional<std::vector<int>> MatchPatterns(const Json& s, const std::string& key, const std::string& pointer) {
    const auto set = impl.pattern_sets.find(&s);  // every walked node has one
    std::optional<std::vector<int>> matched =
        set != impl.pattern_sets.end() ? set->second.Matches(key) : std::nullopt;
    if (!matched) {
      found = Hazard{pointer, "patternProperties", "a property name the pattern matcher could not decide"};
      return std::nullopt;
    }
    if (matched->empty()) return matched;
    if (key.find('\0') != std::string::npos) {
      found = Hazard{pointer, "patternProperties", "a property name holding a NUL character, which the validator cuts at"};
      return std::nullopt;
    }
    pattern_matches[&s][key] = *matched;
    return matched;
  }

  // Conservative: a value is checked against every schema that could apply to it (every
  // branch of anyOf/oneOf/if/..., additionalProperties for every key) — exact only for
  // patternProperties, whose matches it decides for valijson.
  void Scan(const Json& s, const Json& v, std::string& pointer) {
    if (found || !s.is_object()) return;
    if (!visited.emplace(&s, &v).second) return;
    if (auto ref = s.find("$ref"); ref != s.end() && ref->is_string()) {
      const Json* target = ResolveFragment(impl.document, ref->get_ref<const std::string&>(), impl.anchors);
      if (target != nullptr) Scan(*target, v, pointer);
    }
    if (!lost_precision.empty()) {
      // valijson compares the double, while the tool gets the text as written.
      const auto inside = lost_precision.lower_bound(pointer + "/");
      const bool lost_inside =
          inside != lost_precision.end() && inside->starts_with(pointer + "/");
      if (auto number = internal::LostPrecisionHazard(s, v, lost_precision.contains(pointer),
                                                      lost_inside)) {
        found = Hazard{pointer, std::move(number->keyword), std::move(number->why)};
        return;
      }
    }
    if (auto number = internal::FindNumberHazard(s, v, impl.dialect == "draft-04")) {
      found = Hazard{pointer, std::move(number->keyword), std::move(number->why)};
      return;
    }
    if (v.is_string()) LengthWithNul(s, v.get_ref<const std::string&>(), pointer);
    const size_t limit = impl.limits.max_pattern_subject_bytes;
    if (v.is_string() && v.get_ref<const std::string&>().size() > limit) {
      if (Has(s, "pattern")) LongString(pointer, "pattern");
    }
    if (auto u = s.find("uniqueItems"); v.is_array() && v.size() > 1 && u != s.end() &&
                                          u->is_boolean() && u->get<bool>() && !found) {
      if (v.size() > impl.limits.max_unique_items) {
        found = Hazard{pointer, "uniqueItems",
                       "an array longer than the " + std::to_string(impl.limits.max_unique_items) +
                           "-item bound for uniqueItems"};
      } else {
        item_comparisons += v.size() * (ValuesIn(v) - 1);
      }
    }
    if (v.is_object()) {
      const auto properties = s.find("properties");
      const auto pattern_properties = s.find("patternProperties");
      const auto additional = s.find("additionalProperties");
      const bool has_patterns = pattern_properties != s.end() && pattern_properties->is_object() &&
                                !pattern_properties->empty();
      const bool names_checked = Has(s, "propertyNames") || has_patterns;
      std::vector<const Json*> pattern_schemas;
      if (has_patterns) {
        for (const auto& [pattern, sub] : pattern_properties->items()) pattern_schemas.push_back(&sub);
      }
      for (const auto& [key, value] : v.items()) {
        const size_t mark = pointer.size();
        pointer += "/" + PrintableToken(key);
        if (names_checked && key.size() > limit) {
          LongString(pointer, Has(s, "propertyNames") ? "propertyNames" : "patternProperties");
        }
        if (has_patterns && !found) {
          // Only the subschemas of the patterns that match: valijson gets exactly these.
          if (auto matched = MatchPatterns(s, key, pointer)) {
            for (const int i : *matched) Scan(*pattern_schemas[static_cast<size_t>(i)], value, pointer);
          }
        }
        // The name as the value propertyNames checks, through every subschema that could
        // apply to it: a length bound behind a $ref, an allOf or a not let a NUL-holding
        // name through as well as one written in place (probe BY2).
        if (auto names_schema = s.find("propertyNames"); names_schema != s.end() && !found) {
          names.emplace_back(key);
          Scan(*names_schema, names.back(), pointer);
        }
        if (properties != s.end() && properties->is_object()) {
          if (auto p = properties->find(key); p != properties->end()) Scan(*p, value, pointer);
        }
        if (additional != s.end()) Scan(*additional, value, pointer);
        pointer.resize(mark);
      }
      if (auto deps = s.find("dependencies"); deps != s.end() && deps->is_object()) {
        for (const auto& [key, dep] : deps->items()) Scan(dep, v, pointer);
      }
    }
    if (v.is_array()) {
      const auto prefix = s.find("prefixItems");  // compile let it stand only as a tuple
      const auto items = s.find("items");
      const auto additional = s.find("additionalItems");
      const auto contains = s.find("contains");
      for (size_t i = 0; i < v.size(); ++i) {
        const size_t mark = pointer.size();
        pointer += "/" + std::to_string(i);
        if (prefix != s.end() && prefix->is_array()) {
          if (i < prefix->size()) Scan((*prefix)[i], v[i], pointer);
          else if (items != s.end()) Scan(*items, v[i], pointer);
        } else if (items != s.end()) {
          if (items->is_array()) {
            if (i < items->size()) Scan((*items)[i], v[i], pointer);
            else if (additional != s.end()) Scan(*additional, v[i], pointer);
          } else {
            Scan(*items, v[i], pointer);
          }
        }
        if (contains != s.end()) Scan(*contains, v[i], pointer);
        pointer.resize(mark);
      }
    }
    for (const char* list : {"allOf", "anyOf", "oneOf"}) {
      if (auto it = s.find(list); it != s.end() && it->is_array()) {
        for (const Json& sub : *it) Scan(sub, v, pointer);
      }
    }
    for (const char* single : {"not", "if", "then", "else"}) {
      if (auto it = s.find(single); it != s.end()) Scan(*it, v, pointer);
    }
  }
};

// ---------------------------------------------------------------------------------------
// valijson's results -> (pointer, keyword), never a value.

struct Failure {
  std::string pointer;
  std::string keyword;
  bool wrapper = false;  // "a child failed" entries, dropped when a specific one exists
};

struct Rule {
  std::string_view prefix;
  std::string_view keyword;
  bool wrapper;
  bool names_property;  // the description ends with: '<name>'.
};

// valijson 1.0's descriptions (validation_visitor.hpp). Longer prefixes first where one
// prefix extends another. An unknown description maps to "schema".
constexpr std::array<Rule, 33> kRules = {{
    {"Missing required property '", "required", false, true},
    {"Missing dependency '", "dependencies", false, true},
    {"Object contains a property that could not be validated using 'properties' or "
     "'additionalProperties' constraints: '",
     "additionalProperties", false, true},
    {"Failed to validate against schema associated with property name '", "properties", true, true},
    {"Failed to validate against schema associated with pattern '", "patternProperties", true, false},
    {"Failed to validate against additional properties schema", "additionalProperties", true, false},
    {"Failed to validate item #", "items", true, false},
    {"Failed to validate against child schema #", "allOf", true, false},
    {"Target value and comparison value are not equal", "enum", true, false},
    {"Cannot validate item #", "additionalItems", false, false},
    {"Array contains more items than allowed by items constraint", "additionalItems", false, false},
    {"Failed to validate against any schemas allowed by anyOf", "anyOf", false, false},
    {"Failed to validate against any child schemas allowed by oneOf", "oneOf", false, false},
    {"Failed to validate against exactly one child schema", "oneOf", false, false},
    {"Failed to validate against a conditional schema", "if", false, false},
    {"Failed to validate against dependent schema", "dependencies", false, false},
    {"Failed to match expected value set by 'const'", "const", false, false},
    {"Failed to any values against subschema in 'contains'", "contains", false, false},
    {"Failed to match against any enum values", "enum", false, false},
    {"Failed to match regex specified by 'pattern'", "pattern", false, false},
    {"String should be a valid ", "format", false, false},
    {"Expected number less than or equal to", "maximum", false, false},
    {"Expected number less than", "exclusiveMaximum", false, false},
    {"Expected number greater than or equal to", "minimum", false, false},
    {"Expected number greater than", "exclusiveMinimum", false, false},
    {"Array should contain no more than", "maxItems", false, false},
    {"Array should contain no fewer than", "minItems", false, false},
    {"String should be no more than", "maxLength", false, false},
    {"String should be no fewer than", "minLength", false, false},
    {"Object should have no more than", "maxProperties", false, false},
    {"Object should have no fewer than", "minProperties", false, false},
    {"Value ", "multipleOf", false, false},  // "Value should be a multiple of", "... converted"
    {"Target should not validate against schema specified in 'not'", "not", false, false},
}};

Failure ToFailure(const valijson::ValidationResults::Error& error) {
  Failure f;
  // context: "<root>", then "[key]" or "[index]" per step.
  for (size_t i = 1; i < error.context.size(); ++i) {
    std::string_view step = error.context[i];
    if (step.size() >= 2 && step.front() == '[' && step.back() == ']') step = step.substr(1, step.size() - 2);
    f.pointer += "/" + PrintableToken(step);
  }
  std::string_view d = error.description;
  if (d.starts_with("Value type not permitted")) {
    f.keyword = "type";
    return f;
  }
  if (d.starts_with("Elements at indexes")) {
    f.keyword = "uniqueItems";
    return f;
  }
  for (const Rule& rule : kRules) {
    if (!d.starts_with(rule.prefix)) continue;
    f.keyword = rule.keyword;
    f.wrapper = rule.wrapper;
    if (rule.names_property && d.size() >= rule.prefix.size() + 2 && d.ends_with("'.")) {
      f.pointer += "/" + PrintableToken(d.substr(rule.prefix.size(), d.size() - rule.prefix.size() - 2));
    }
    return f;
  }
  f.keyword = "schema";
  return f;
}

// What fails with no entry of its own in valijson's results: property names checked by
// propertyNames (probe BY4), and a subschema `false` (probe GL3: it was called propertyNames).
std::string SilentFailureKeyword(const ArgumentSchema::Impl& impl) {
  if (impl.has_property_names && impl.has_false_schema) return "propertyNames or a false schema";
  return impl.has_false_schema ? "a false schema" : "propertyNames";
}

// The failures a detail shows: each (pointer, keyword) once, and no "a child failed"
// wrapper. A refusal of wrappers alone is a silent failure (SilentFailureKeyword) of the
// place the deepest wrapper names, and one with no entry at all (DescribeRefusal) of the
// arguments themselves.
std::vector<Failure> ShownFailures(const ArgumentSchema::Impl& impl, const valijson::ValidationResults& results) {
  std::vector<Failure> all;
  bool any_specific = false;
  for (const auto& error : results) {
    all.push_back(ToFailure(error));
    if (impl.has_tuples && all.back().keyword == "additionalItems") {
      // valijson's copy holds a tuple's `items` as additionalItems (Walk::PrepareCopy).
      all.back().keyword = impl.has_additional_items ? "additionalItems or the items after a prefixItems"
                                                     : "items (after prefixItems)";
    }
    any_specific = any_specific || !all.back().wrapper;
  }
  if (!any_specific && !all.empty()) {
    const auto deepest = std::max_element(all.begin(), all.end(), [](const Failure& a, const Failure& b) {
      return a.pointer.size() < b.pointer.size();
    });
    return {Failure{deepest->pointer, SilentFailureKeyword(impl), false}};
  }
  std::vector<Failure> shown;
  std::set<std::pair<std::string, std::string>> seen;
  for (Failure& f : all) {
    if (f.wrapper) continue;
    if (!seen.emplace(f.pointer, f.keyword).second) continue;
    shown.push_back(std::move(f));
  }
  return shown;
}

std::string DescribeFailures(const std::vector<Failure>& shown, size_t max_reported) {
  if (shown.empty()) return "the arguments do not match the input schema";
  std::string out = "the arguments do not match the input schema: ";
  const size_t n = std::min(shown.size(), std::max<size_t>(max_reported, 1));
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) out += "; ";
    out += "\"" + shown[i].pointer + "\" fails " + shown[i].keyword;
  }
  if (shown.size() > n) out += "; and " + std::to_string(shown.size() - n) + " more";
  return out;
}

// A strict-JSON error about call arguments, without any byte of a value: parser messages
// can quote the input ("last read: ..."), so only the known value-free ones pass.
std::string SafeArgumentsError(const std::string& message) {
  for (std::string_view safe : {"duplicate object key", "JSON nests deeper", "JSON text is ",
                                "JSON text starts with"}) {
    if (message.starts_with(safe)) {
      // A key in it is shown as readable text, its unsafe characters escaped (probe JX2:
      // "é" read "\xc3\xa9").
      const std::string_view shown = Utf8PrefixOfAtMost(message, 240);
      return EscapeForTerminal(shown) + (shown.size() < message.size() ? "..." : "");
    }
  }
  if (message.starts_with("number ")) return "a number is out of range";
  return "not well-formed JSON";
}

// A reference token as valijson reads one (it splits at '/', then decodes "~1", "~0" and
// %XX): every byte but [A-Za-z0-9_-] is written %XX, which survives all three.
std::string ValijsonRefToken(std::string_view token) {
  std::string out;
  for (const char c : token) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '_' || c == '-') {
      out += c;
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", u);
      out += buf;
    }
  }
  return out;
}

// valijson's copy of the schema for one call, patternProperties decided. Each distinct
// set of a node's patterns that match some key (`matches`, from the HazardScan) becomes
// one schema appended to the node's kPatternSubschemasKeyword array, after the patterns'
// own subschemas: a reference to the one matching subschema, or an allOf of references.
// A matched key the node's properties do not name gets properties[key] = a reference to
// its set (so additionalProperties passes it over, as it does a pattern-matched key); one
// they name keeps its subschema in place (references may point at it) and gets the
// reference through an allOf branch {"properties": {key: ...}}. Nothing moves, so every
// reference resolves, and valijson parses each set once however many keys share it.
// nullopt when no key matched anything: the compiled copy is the same.
std::optional<Json> WithPatternProperties(const ArgumentSchema::Impl& impl, const PatternMatches& matches) {
  if (matches.empty()) return std::nullopt;
  Json copy = impl.valijson_document;
  for (const auto& [original, by_key] : matches) {
    const std::vector<std::string>& path = impl.pattern_properties.at(original);
    std::string base = "#";
    Json::json_pointer at;
    for (const std::string& token : path) {
      base += "/" + ValijsonRefToken(token);
      at.push_back(token);
    }
    base += "/" + ValijsonRefToken(kPatternSubschemasKeyword) + "/";
    Json& node = copy.at(at);
    Json& subschemas = node.at(std::string(kPatternSubschemasKeyword));
    std::map<std::vector<int>, std::string> set_refs;  // matching patterns -> its schema
    auto ref_to_set = [&](const std::vector<int>& indices) -> const std::string& {
      auto [it, added] = set_refs.try_emplace(indices);
      if (!added) return it->second;
      Json refs = Json::array();
      for (const int i : indices) refs.push_back(Json::object({{"$ref", base + std::to_string(i)}}));
      it->second = base + std::to_string(subschemas.size());
      subschemas.push_back(refs.size() == 1 ? std::move(refs[0]) : Json::object({{"allOf", std::move(refs)}}));
      return it->second;
    };
    Json& properties = node["properties"];
    Json named = Json::object();
    for (const auto& [key, indices] : by_key) {
      Json ref = Json::object({{"$ref", ref_to_set(indices)}});
      if (properties.contains(key)) {
        named[key] = std::move(ref);
      } else {
        properties[key] = std::move(ref);
      }
    }
    if (!named.empty()) node["allOf"].push_back(Json::object({{"properties", std::move(named)}}));
  }
  return copy;
}

// Matches kPatternKeyword with LinearRegex, as valijson matches `pattern` (a string that
// does not match fails; anything else passes), with valijson's description.
class PatternConstraint final : public valijson::constraints::PolyConstraint {
 public:
  explicit PatternConstraint(const LinearRegex* regex) : regex_(regex) {}

  bool validate(const valijson::adapters::Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override {
    if (!target.isString() || regex_->Search(target.getString())) return true;
    if (results != nullptr) results->pushError(context, "Failed to match regex specified by 'pattern' constraint.");
    return false;
  }

 private:
  valijson::constraints::Constraint* cloneInto(void* where) const override { return new (where) PatternConstraint(*this); }
  size_t sizeOf() const override { return sizeof(PatternConstraint); }

  const LinearRegex* regex_;  // owned by ArgumentSchema::Impl::regexes
};

// Checks kFormatKeyword as valijson checks `format` (with its description), but exactly:
// a string that is not the format fails; anything else passes.
class FormatConstraint final : public valijson::constraints::PolyConstraint {
 public:
  FormatConstraint(DateTimeCheck check, std::string format) : check_(check), format_(std::move(format)) {}

  bool validate(const valijson::adapters::Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override {
    if (!target.isString() || check_(target.getString())) return true;
    if (results != nullptr) results->pushError(context, "String should be a valid " + format_);
    return false;
  }

 private:
  valijson::constraints::Constraint* cloneInto(void* where) const override { return new (where) FormatConstraint(*this); }
  size_t sizeOf() const override { return sizeof(FormatConstraint); }

  DateTimeCheck check_;
  std::string format_;
};

// Decides kMultipleOfKeyword exactly (internal::ExactMultipleOf), with valijson's
// description: a number that is not a multiple fails; anything else passes. A number with
// no exact answer fails too, though the HazardScan refuses those first, as not checked.
class MultipleOfConstraint final : public valijson::constraints::PolyConstraint {
 public:
  explicit MultipleOfConstraint(Json divisor) : divisor_(std::move(divisor)) {}

  bool validate(const valijson::adapters::Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override {
    Json value;
    if (target.isInteger()) value = target.getInteger();
    else if (target.isDouble()) value = target.getDouble();
    else return true;
    if (internal::ExactMultipleOf(value, divisor_).value_or(false)) return true;
    if (results != nullptr) results->pushError(context, "Value should be a multiple of the divisor");
    return false;
  }

 private:
  valijson::constraints::Constraint* cloneInto(void* where) const override { return new (where) MultipleOfConstraint(*this); }
  size_t sizeOf() const override { return sizeof(MultipleOfConstraint); }

  Json divisor_;  // the number as the schema writes it
};

class MultipleOfConstraintBuilder final : public valijson::ConstraintBuilder {
 public:
  valijson::constraints::Constraint* make(const valijson::adapters::Adapter& value) const override {
    Json divisor = Json::parse(value.asString(), nullptr, /*allow_exceptions=*/false);
    if (!divisor.is_number()) throw std::runtime_error("multipleOf is not a number");
    return new MultipleOfConstraint(std::move(divisor));
  }
};

class FormatConstraintBuilder final : public valijson::ConstraintBuilder {
 public:
  valijson::constraints::Constraint* make(const valijson::adapters::Adapter& value) const override {
    const std::string format = value.asString();
    const DateTimeCheck check = DateTimeCheckFor(format);
    if (check == nullptr) throw std::runtime_error("not a date or time format");
    return new FormatConstraint(check, format);
  }
};

class PatternConstraintBuilder final : public valijson::ConstraintBuilder {
 public:
  explicit PatternConstraintBuilder(const ArgumentSchema::Impl& impl) : impl_(impl) {}

  valijson::constraints::Constraint* make(const valijson::adapters::Adapter& value) const override {
    const auto it = impl_.regexes.find(value.asString());
    if (it == impl_.regexes.end()) throw std::runtime_error("a pattern was not compiled");
    return new PatternConstraint(&it->second);
  }

 private:
  const ArgumentSchema::Impl& impl_;
};

// Parses `copy` (valijson's copy of impl's schema) into `schema`. No fetch function: a
// reference that needs another document throws.
void ParseForValijson(const ArgumentSchema::Impl& impl, const Json& copy, valijson::Schema& schema) {
  valijson::SchemaParser parser(impl.dialect == "draft-04" ? valijson::SchemaParser::kDraft4
                                                           : valijson::SchemaParser::kDraft7);
  parser.addConstraintBuilder(std::string(kPatternKeyword), new PatternConstraintBuilder(impl));
  parser.addConstraintBuilder(std::string(kFormatKeyword), new FormatConstraintBuilder());
  parser.addConstraintBuilder(std::string(kMultipleOfKeyword), new MultipleOfConstraintBuilder());
  parser.populateSchema(valijson::adapters::NlohmannJsonAdapter(copy), schema);
}

// Why a parsed instance was refused: a hazard found before valijson ran, the failures
// valijson reported, or neither (valijson could not finish).
struct Refusal {
  std::optional<Hazard> hazard;
  std::vector<Failure> failures;
  bool threw = false;  // valijson threw: nothing is known of why
  std::optional<Verdict> too_costly;  // decided before valijson ran (TooCostly)
};

// Checks the parsed `instance` (prepared in place: trust/argument_numbers_internal.h):
// nullopt when it validates. `lost_precision`: pointers of numbers whose text says more
// than their double. `nul`: the text may hold a NUL (the hazard scan must run).
std::optional<Refusal> CheckTree(const ArgumentSchema::Impl& impl, Json& instance, uint64_t values,
                                 const std::set<std::string>& lost_precision, bool nul) {
  const bool inexact_numbers = internal::PrepareInstanceNumbers(instance, impl.dialect != "draft-04");
  PatternMatches pattern_matches;
  if (impl.has_regex || impl.has_unique || impl.needs_number_scan || inexact_numbers || nul ||
      !lost_precision.empty()) {
    HazardScan scan{impl, lost_precision, {}, std::nullopt, {}, {}, 0};
    std::string pointer;
    scan.Scan(impl.document, instance, pointer);
    if (scan.found) return Refusal{std::move(scan.found), {}, false, std::nullopt};
    if (scan.item_comparisons > 0) {
      if (std::optional<Verdict> costly = TooCostly(impl, values, scan.item_comparisons)) {
        return Refusal{std::nullopt, {}, false, std::move(costly)};
      }
    }
    pattern_matches = std::move(scan.pattern_matches);
  }
  try {
    valijson::adapters::NlohmannJsonAdapter target(instance);
    const valijson::Schema* compiled = &impl.schema;
    valijson::Schema for_this_call;
    if (!impl.pattern_properties.empty()) {
      if (const std::optional<Json> copy = WithPatternProperties(impl, pattern_matches)) {
        ParseForValijson(impl, *copy, for_this_call);
        compiled = &for_this_call;
      }
    }
    valijson::ValidationResults results;
    // valijson never sees a `pattern` (kPatternKeyword): its own regex cache stays empty.
    std::unordered_map<std::string, std::regex> no_regexes;
    valijson::ValidationVisitor<valijson::adapters::NlohmannJsonAdapter> visitor(
        target, std::vector<std::string>(1, "<root>"), /*strictTypes=*/true, &results, no_regexes);
    if (visitor.validateSchema(*compiled)) return std::nullopt;
    return Refusal{std::nullopt, ShownFailures(impl, results), false, std::nullopt};
  } catch (const std::exception&) {
    return Refusal{std::nullopt, {}, true, std::nullopt};  // its message could quote the instance
  }
}

Verdict DescribeRefusal(const ArgumentSchema::Impl& impl, const Refusal& refusal) {
  if (refusal.too_costly) return *refusal.too_costly;
  if (refusal.hazard) {
    return Reject(Reason::kArgumentsSchemaViolation,
                  "the arguments are not checked against the input schema: \"" + refusal.hazard->pointer +
                      "\" cannot be checked against " + refusal.hazard->keyword + " (" +
                      refusal.hazard->why + ")");
  }
  if (refusal.failures.empty() && refusal.threw) {
    return Reject(Reason::kArgumentsSchemaViolation,
                  "the validator could not evaluate the arguments against the input schema");
  }
  if (refusal.failures.empty()) {
    return Reject(Reason::kArgumentsSchemaViolation,
                  "the arguments do not match the input schema: \"\" fails " + SilentFailureKeyword(impl));
  }
  return Reject(Reason::kArgumentsSchemaViolation, DescribeFailures(refusal.failures, impl.limits.max_reported_errors));
}

// The pointer of a filled argument (trust/credential_injection.h) in a detail.
std::string FilledPointer(const std::string& name) { return "/" + PrintableToken(name); }

// Whether a failure at `pointer` concerns one of the `filled` arguments.
bool AtFilled(std::string_view pointer, const std::vector<std::string>& filled) {
  for (const std::string& name : filled) {
    const std::string at = FilledPointer(name);
    if (pointer == at || (pointer.starts_with(at) && pointer[at.size()] == '/')) return true;
  }
  return false;
}

// The refusal of arguments into which Las filled `filled`, told without a secret. Which
// keywords fail with the secret in place can depend on its value, and not only at the
// filled pointer ({"if": {"properties": {"token": {"pattern": "^sk-a"}}}, "then": ...}
// moves the failure elsewhere). So the detail is made from the client's own members,
// checked alone (`client`: the instance without the filled ones), which hold no secret:
// what they fail, but for the filled arguments' own `required`; or, when that is nothing,
// only that the schema refuses what Las fills in, naming every filled argument.
Verdict InjectedRefusal(const ArgumentSchema::Impl& impl, Json client, const std::set<std::string>& lost_precision,
                        const std::vector<std::string>& filled) {
  const uint64_t values = ValuesIn(client);
  if (std::optional<Refusal> own = CheckTree(impl, client, values, lost_precision, /*nul=*/true)) {
    std::erase_if(own->failures, [&](const Failure& f) { return f.keyword == "required" && AtFilled(f.pointer, filled); });
    if (own->hazard || own->too_costly || !own->failures.empty()) return DescribeRefusal(impl, *own);
  }
  std::string names;
  for (const std::string& name : filled) names += (names.empty() ? "\"" : ", \"") + PrintableToken(name) + "\"";
  return Reject(Reason::kArgumentsSchemaViolation, std::string(kFilledArgumentRefused) + names +
                                                       " (a release or credential problem; no call to this "
                                                       "tool can pass)");
}

// The text parsed for validation, or the refusal of text that is not a strict JSON
// object. `allowance`: bytes of the text beyond max_argument_bytes that are Las's own
// (injected credentials), not the client's.
struct Parsed {
  Json instance = Json::object();
  std::set<std::string> lost_precision;  // pointers of numbers whose text says more
};
VerdictOr<Parsed> ParseInstance(const ArgumentSchema::Impl& impl, std::string_view text, bool arguments,
                                size_t allowance) {
  Parsed out;
  if (!(arguments && text.empty())) {
    std::vector<internal::JsonPath> lost;
    Result<Json> parsed = internal::ParseStrictJson(
        text,
        StrictJsonLimits{impl.limits.max_argument_bytes + allowance, impl.limits.max_argument_depth},
        &lost);
    if (!parsed.ok()) {
      return Reject(Reason::kArgumentsInvalid, "arguments: " + SafeArgumentsError(parsed.status().message()));
    }
    for (const internal::JsonPath& path : lost) out.lost_precision.insert(PointerOf(path));
    out.instance = std::move(parsed).value();
  }
  if (arguments && !out.instance.is_object()) {
    return Reject(Reason::kArgumentsInvalid, "arguments must be a JSON object");
  }
  return out;
}

// `filled`: the members Las injected (ValidateInjectedArguments); empty for other callers.
Verdict Validate(const ArgumentSchema& schema, std::string_view text, bool arguments,
                 size_t allowance = 0, const std::vector<std::string>& filled = {}) {
  const ArgumentSchema::Impl& impl = schema.impl();
  if (arguments && impl.flat && impl.flat->Accepts(text)) return Verdict::Accept();
  VerdictOr<Parsed> parsed = ParseInstance(impl, text, arguments, allowance);
  if (!parsed.ok()) return parsed.verdict();
  const uint64_t values = ValuesIn(parsed->instance);
  if (std::optional<Verdict> costly = TooCostly(impl, values, 0)) return *costly;
  Json client;
  if (!filled.empty()) {
    client = parsed->instance;  // before CheckTree prepares it
    for (const std::string& name : filled) client.erase(name);
  }
  // JSON can only spell NUL as an escape; a false positive ("\\u0000") only costs the scan.
  const bool nul = text.find("\\u0000") != std::string_view::npos;
  const std::optional<Refusal> refusal = CheckTree(impl, parsed->instance, values, parsed->lost_precision, nul);
  if (!refusal) return Verdict::Accept();
  if (!filled.empty()) return InjectedRefusal(impl, std::move(client), parsed->lost_precision, filled);
  return DescribeRefusal(impl, *refusal);
}

// `check`'s verdict, unless memory ran out while it ran (base/out_of_memory.h): then the
// arguments were not checked, and are refused as io-error, not as their fault — nor
// accepted on a check that may have been cut short (fail closed).
template <typename Check>
Verdict CheckedUnlessMemoryRanOut(Check check) {
  return UnlessMemoryRanOut(check, [] {
    return Reject(Reason::kIoError, OutOfMemory("checking the arguments").message());
  });
}

Result<ArgumentSchema> CompileUnwatched(std::string_view schema_json, const ArgumentSchemaLimits& limits) {
  Result<Json> parsed = ParseBindableSchema(schema_json, limits);
  if (!parsed.ok()) return parsed.status();

  auto impl = std::make_unique<ArgumentSchema::Impl>();
  impl->document = std::move(parsed).value();  // from here on, node addresses are stable
  impl->limits = limits;
  Result<Dialect> dialect = DialectOf(impl->document);
  if (!dialect.ok()) return dialect.status();
  impl->dialect = std::string(DialectName(*dialect));

  const bool reads_tuples = *dialect == Dialect::k202012 ||
                            (impl->document.is_object() && !impl->document.contains("$schema"));
  Walk walk{*dialect, reads_tuples, &impl->document, impl.get(), {}, {}, {}, 0, {}, {}, {}, {}, {}, {}, {}, {}, {}};
  LAS_RETURN_IF_ERROR(walk.Schema(impl->document, "#"));
  LAS_RETURN_IF_ERROR(walk.CheckRefs());
  // valijson evaluates a shared subschema once per path to it (trust/schema_cost_internal.h).
  const uint64_t evaluations = internal::WorstCaseEvaluations(
      impl->document,
      [&](const std::string& ref) { return ResolveFragment(impl->document, ref, impl->anchors); },
      limits.max_argument_depth);
  if (evaluations > internal::kMaxSchemaEvaluations) {
    return Unsupported("input schema: the schema's validation could take exponential time: " +
                       (evaluations >= internal::kUnboundedEvaluations
                            ? std::string("unbounded (an applicator cycle that never descends)")
                        : evaluations >= internal::kManyEvaluations
                            ? std::string("more than 10^18 (growing with every level of nesting)")
                            : std::to_string(evaluations)) +
                       " subschema evaluations of one argument value, at most " +
                       std::to_string(internal::kMaxSchemaEvaluations));
  }
  impl->cost_per_value = std::max<uint64_t>(evaluations, 1) *
                         std::max<uint64_t>(1, impl->largest_enum / kEnumEntriesPerEvaluation);

  // The validated copy (patterns: trust/utf8_pattern.h; numbers:
  // trust/argument_numbers_internal.h); impl->document keeps the schema as written for
  // the reference, bound and number walks.
  Json for_valijson = impl->document;
  std::vector<std::string> root;
  walk.PrepareCopy(impl->document, for_valijson, root, impl->pattern_properties);
  for (const auto& [node, path] : impl->pattern_properties) {
    // valijson skips an empty token in a reference, so it could not reach this node.
    if (std::find(path.begin(), path.end(), std::string()) != path.end()) {
      return Unsupported("input schema: a patternProperties under a property named \"\" is not supported");
    }
  }
  internal::PrepareSchemaNumbers(for_valijson, *dialect != Dialect::kDraft04);
  impl->needs_number_scan = internal::SchemaNeedsNumberScan(impl->document);
  try {
    ParseForValijson(*impl, for_valijson, impl->schema);
  } catch (const std::exception& ex) {
    return InvalidArgument(std::string("input schema: valijson refuses it: ") + ex.what());
  }
  if (!impl->pattern_properties.empty()) impl->valijson_document = std::move(for_valijson);
  if (limits.fast_accept) {
    impl->flat = internal::FlatArgumentCheck::For(
        impl->document, *dialect != Dialect::kDraft04,
        StrictJsonLimits{limits.max_argument_bytes, limits.max_argument_depth});
  }
  return ArgumentSchema(std::move(impl));
}

}  // namespace

Result<ArgumentSchema> CompileArgumentSchema(std::string_view schema_json, const ArgumentSchemaLimits& limits) {
  // Memory that ran out while compiling is no verdict on the schema.
  return UnlessMemoryRanOut(
      [&] { return CompileUnwatched(schema_json, limits); },
      [] { return Result<ArgumentSchema>(OutOfMemory("compiling the input schema")); });
}

Result<ArgumentSchema> CompileToolInputSchema(std::string_view schema_json, const ArgumentSchemaLimits& limits) {
  Result<ArgumentSchema> compiled = CompileArgumentSchema(schema_json, limits);
  if (!compiled.ok()) return compiled;
  const Json& root = compiled->impl().document;
  if (!root.is_object()) {
    return Unsupported("input schema: the root is a boolean schema; a tool's inputSchema must be an object "
                       "schema (MCP clients require \"type\": \"object\")");
  }
  const auto type = root.find("type");
  const bool admits_object =
      type == root.end() || *type == "object" ||
      (type->is_array() && std::find(type->begin(), type->end(), Json("object")) != type->end());
  if (!admits_object) {
    return Unsupported("input schema: #/type admits no object, but a tool's arguments are one JSON object "
                       "(MCP clients require \"type\": \"object\")");
  }
  return compiled;
}

Status CheckSchemaIntegers(std::string_view schema_json, const ArgumentSchemaLimits& limits) {
  Result<Json> parsed = ParseBindableSchema(schema_json, limits);
  // Text that is not strict JSON is not this check's to refuse.
  if (parsed.ok() || parsed.status().code() != Code::kUnsupported) return Status::Ok();
  return parsed.status();
}

Verdict ValidateArguments(const ArgumentSchema& schema, std::string_view arguments_json) {
  return CheckedUnlessMemoryRanOut([&] { return Validate(schema, arguments_json, /*arguments=*/true); });
}

uint64_t ValidationCostBound(const ArgumentSchema& schema, std::string_view arguments_json) {
  uint64_t values = 1;
  for (const char c : arguments_json) {
    if (c == ',' || c == ':' || c == '[' || c == '{') ++values;
  }
  const ArgumentSchema::Impl& impl = schema.impl();
  // uniqueItems compares each item with the others: up to max_unique_items per item.
  const uint64_t unique = impl.has_unique ? impl.limits.max_unique_items : 1;
  return values * impl.cost_per_value * unique;
}

Verdict CheckArgumentsSize(const ArgumentSchema& schema, size_t client_bytes) {
  const size_t limit = schema.impl().limits.max_argument_bytes;
  if (client_bytes <= limit) return Verdict::Accept();
  // As the strict parser says it of the text itself (ValidateArguments).
  return Reject(Reason::kArgumentsInvalid, "arguments: JSON text is " + std::to_string(client_bytes) +
                                               " bytes, more than the limit of " + std::to_string(limit));
}

Verdict ValidateInjectedArguments(const ArgumentSchema& schema, std::string_view arguments_json,
                                  size_t client_bytes, const std::vector<std::string>& filled) {
  if (Verdict size = CheckArgumentsSize(schema, client_bytes); !size.ok()) return size;
  const size_t injected = arguments_json.size() > client_bytes ? arguments_json.size() - client_bytes : 0;
  return CheckedUnlessMemoryRanOut(
      [&] { return Validate(schema, arguments_json, /*arguments=*/true, injected, filled); });
}

bool RefusesFilledValues(const ArgumentSchema& schema, std::string_view arguments_json,
                         const std::vector<std::string>& filled) {
  const ArgumentSchema::Impl& impl = schema.impl();
  VerdictOr<Parsed> parsed = ParseInstance(impl, arguments_json, /*arguments=*/true, arguments_json.size());
  if (!parsed.ok()) return false;
  const uint64_t values = ValuesIn(parsed->instance);
  const std::optional<Refusal> refusal =
      CheckTree(impl, parsed->instance, values, parsed->lost_precision, /*nul=*/true);
  if (!refusal) return false;
  if (refusal->hazard) return AtFilled(refusal->hazard->pointer, filled);
  return std::any_of(refusal->failures.begin(), refusal->failures.end(),
                     [&](const Failure& f) { return AtFilled(f.pointer, filled); });
}

Verdict ValidateInstance(const ArgumentSchema& schema, std::string_view instance_json) {
  return CheckedUnlessMemoryRanOut([&] { return Validate(schema, instance_json, /*arguments=*/false); });
}

}  // namespace las::trust
