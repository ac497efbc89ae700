// Argument policy: a tool call's arguments must validate against the tool's signed
// inputSchema.
//
// The schema text handed to CompileArgumentSchema is the tool's inputSchema exactly as the
// child listed it, already proven equal to the signed one by canonical digest
// (trust/tool_binding_check.h). It is compiled once per tool into an ArgumentSchema; each
// tools/call then runs ValidateArguments (for a tool with credential templates,
// ValidateInjectedArguments after injection) before the call is logged.
//
// Validation is valijson's (JSON Schema draft-04 / draft-06 / draft-07 semantics); Las adds
// the strict-JSON front door, the bounds below and a detail that never carries a value.
//
// Dialects. `$schema` absent means draft-07 (what MCP servers emit or imply). Accepted:
// draft-07 and draft-06 (validated as draft-07), draft-04, and 2019-09 / 2020-12 *only* as
// far as they mean the same as draft-07: a schema that uses a keyword whose meaning changed
// or that valijson does not implement (unevaluated*, dependentRequired, dependentSchemas,
// $anchor, $dynamic*, $recursive*, min/maxContains, $vocabulary; in 2020-12 also
// array-form items and additionalItems) fails to compile with kUnsupported, in every
// dialect, instead of being silently ignored and validating less than its author meant.
// prefixItems is read as 2020-12 has it (a tuple) in a 2020-12 schema and in one without
// `$schema` (how pydantic and zod write tuples), and is kUnsupported in the other dialects.
// Draft-03 and unknown `$schema` values are kUnsupported.
// From draft-06 on, 1.0 is an integer: integral numbers are normalized before valijson
// (which goes by the JSON token) sees them; the caller's text is not changed.
//
// Numbers. The release binds the schema by the SHA-256 of its RFC 8785 form, which reads
// every number as an IEEE double; the validator decides integers exactly
// (trust/argument_numbers_internal.h). So an integer written in the schema (anywhere: a
// bound, multipleOf, enum / const data, a default or example) that a double does not hold
// exactly (9007199254740993, 2^63-1, 100000000000000000000000) fails compile with
// kUnsupported: the digest would bind its nearest double, and a child could serve a
// neighbouring integer under the same digest. Integers a double holds (every one up to
// 2^53, 2^63, 2^64) compile; so does any number written with a fraction or an exponent,
// which the digest and the validator alike read as its double.
//
// References. Only same-document references are resolved: "#", "#/json/pointer",
// "#plain-name" (a draft-07 `$id` anchor). Any other `$ref` (remote or relative URL) fails
// to compile with kUnsupported: nothing is ever fetched, no file is read, no network is
// touched. So does a subschema that opens a new resource (a non-fragment `$id` below the
// root). A `$ref` that resolves to nothing, or a cycle of references alone ({"$ref": "#"}),
// fails with kInvalidArgument; a cycle through applicators that never descends into the
// instance ({"allOf": [{"$ref": "#"}]}) fails with kUnsupported, its cost unbounded (below). A `$ref` with assertion
// siblings ({"$ref": ..., "maxLength": 3}) fails with kUnsupported: draft-07 ignores such
// siblings, 2019-09 applies them; neither reading is guessed. Annotation siblings (title,
// description, default, examples, $comment, readOnly, writeOnly, deprecated) are fine.
//
// Regular expressions (`pattern`, `patternProperties`, `propertyNames`) are ECMAScript
// (what std::regex accepts) over characters (code points) rather than UTF-8 bytes: each
// is rewritten by trust/utf8_pattern.h, then matched by RE2 (trust/linear_regex.h), in time
// linear in the subject: no subject can make a call take 2^n steps (`^(a+)+$`) or n^k.
// Look-ahead and back-references need a backtracking matcher, so a pattern using them
// fails compile with kUnsupported — but for look-aheads at the start of a `pattern`
// anchored by `^`, matched as conditions (trust/leading_lookaheads.h) — as does any other valid u-flag construct Las does not
// implement (look-behind, named groups, \p{..}, \u{..}, a pattern over a size limit),
// with a note saying "not supported by Las"; a pattern that is not ECMAScript (does not
// translate, or std::regex's grammar refuses it) is kInvalidArgument. A `$ref` that Las's walks and valijson would resolve to different
// places (an empty reference token, %2F, %7E, `~%`) fails with kUnsupported, and so does
// one that points at `enum`/`const` data or at a map of named subschemas (`properties`,
// `definitions`, ...). An escaped letter with no u-flag ECMAScript meaning (`\z`, `\pL`,
// `\Q`; `[\q]` in a class too) is kInvalidArgument: each engine would read it differently. `format` asserts only date,
// time and date-time, exactly as RFC 3339 (trust/date_time_format.h, in place of valijson's
// looser check, and on strings only); other formats are annotations.
//
// valijson never matches a regex itself. `pattern` reaches it as a custom constraint that
// calls RE2. `patternProperties` never reaches it: for each call, Las decides which of a
// node's patterns match each key (one LinearRegexSet pass per key) and gives valijson a
// copy of the schema where each matched key is a plain property with references to the
// matching subschemas, which stay in place; a call where no key matches any pattern uses
// the copy compiled once. Same verdicts; a refusal names the failing keyword inside (or
// "properties"). Hence a `$ref` into a patternProperties subschema fails compile with
// kUnsupported, and so does a property name holding a NUL (valijson cuts names there); a
// call with a key holding a NUL that a pattern matches is refused as not checked.
//
// Bounds. Matching is linear, but a pattern's cost still grows with its subject, and
// valijson's uniqueItems is quadratic; so a string that a pattern, a patternProperties /
// propertyNames key could be applied to must be at most max_pattern_subject_bytes long,
// and an array a uniqueItems could be applied to
// at most max_unique_items long; otherwise the call is refused (keyword named) without
// running the validator. "Could be applied" is decided conservatively from the schema's
// structure (every branch of anyOf/oneOf/if/..., additionalProperties for every key),
// never by guessing which branch matches.
//
// Details. A refusal's detail names, for up to max_reported_errors failures, the JSON
// pointer (RFC 6901) of the failing argument and the failed keyword:
//   "/limit" fails maximum; "/name" fails required; "/extra" fails additionalProperties
// Pointers are built from key names (schema property names and the call's own keys) and
// array indices: never from a value. Key bytes outside printable ASCII are shown as \xNN
// and a key longer than 64 bytes is cut, so a detail is bounded and terminal-safe.
//
// Speed. Most tools declare flat schemas (an object of typed, bounded properties); for
// those, valid arguments are accepted in one pass over the text without building a tree
// or running valijson (trust/flat_argument_check_internal.h); everything else, and every
// refusal, takes the full path above, so verdicts and details are the same either way.
//
// Thread safety: an ArgumentSchema is immutable after compile. ValidateArguments may run
// concurrently on one ArgumentSchema from any number of threads: valijson only reads the
// compiled schema and the compiled regexes (RE2 and RE2::Set are thread-safe) while
// validating; everything a call writes — the parsed arguments, the hazard scan, the
// patternProperties copy and its valijson parse, valijson's regex cache — is its own
// (tests/trust/argument_schema_threads_test.cc). The gateway relies on this: a large
// argument is checked on a worker thread while the loop checks others against the same
// schema. Moving an ArgumentSchema while another thread uses it is a data race, as for any
// object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "trust/reason.h"

namespace las::trust {

// A `pattern` (or patternProperties key) longer than this, in bytes as written, fails
// compile with kUnsupported: checking one means compiling it with std::regex, whose
// compiler recurses once per nesting level and per term (20,000 nested groups overflowed
// the stack) and takes ~0.8 s on 16 KiB of `.` after translation.
inline constexpr size_t kMaxPatternBytes = 16 * 1024;

struct ArgumentSchemaLimits {
  // Compile.
  size_t max_schema_bytes = 256 * 1024;
  size_t max_schema_depth = 64;         // JSON nesting of the schema text
  // The patterns of one schema together may compile to at most this many matcher
  // instructions, or the schema fails compile with kUnsupported: each pattern alone is
  // bounded, but 1,000 of `^.{1000}$` (24,007 instructions each: `.` is any UTF-8
  // character) took 19 s and 220 MB to compile in a release build (probe GL2). Compiling
  // costs ~4 us per instruction in a debug build, about a sixth of that in a release
  // build. `^[a-z][a-z0-9_-]{0,63}$` takes 323, `^.{0,255}$` 6,382: 78 of those fit.
  uint64_t max_pattern_instructions = 500'000;
  // Validate.
  size_t max_argument_bytes = 1024 * 1024;
  size_t max_argument_depth = 64;       // JSON nesting of the arguments text
  size_t max_pattern_subject_bytes = 1024;
  size_t max_unique_items = 512;
  size_t max_reported_errors = 8;
  // The schema's worst case per value (trust/schema_cost_internal.h, at most 10,000, times
  // its largest enum's entries / 16: valijson compares a value with each) times the values of
  // one call — every value and member name, at any depth — may not exceed this, or the call
  // is refused (kArgumentsSchemaViolation, saying so) without running the validator: the
  // bound per value alone let 2 KB of arguments against a 1 KB schema hold the loop for
  // 18 s (probe BY1), and 63 KB against a 36,000-entry enum for 9 s (probe CC1). Simple
  // schemas cost 1 or 2 per value, so every argument within max_argument_bytes passes; a
  // schema that costs thousands per value admits hundreds of values. A subschema evaluation
  // costs ~0.4-4 us (release build).
  uint64_t max_call_evaluations = 2'000'000;
  // Accept arguments through the one-pass check (trust/flat_argument_check_internal.h)
  // when the schema is flat: the same verdicts for a fraction of the work. False runs the
  // full path on every call (differential tests, benchmarks).
  bool fast_accept = true;
};

inline constexpr size_t kMostUnknownKeywords = 8;

class ArgumentSchema {
 public:
  ArgumentSchema(ArgumentSchema&&) noexcept;
  ArgumentSchema& operator=(ArgumentSchema&&) noexcept;
  ArgumentSchema(const ArgumentSchema&) = delete;
  ArgumentSchema& operator=(const ArgumentSchema&) = delete;
  ~ArgumentSchema();

  // The dialect the schema was compiled as: "draft-07", "draft-06", "draft-04",
  // "2019-09" or "2020-12" (the last two within the draft-07-compatible subset).
  std::string_view dialect() const;

  // The keys of the schema's subschemas that are no keyword of JSON Schema draft-04 to
  // 2020-12 (a misspelt `maxlength`, OpenAPI's `nullable`), each once, as written, at most
  // kMostUnknownKeywords of them: every validator ignores them, so nothing checks what
  // they say (probe GL6). `las release draft` notes them. OpenAPI's `discriminator` and
  // vendor `x-` keys are annotations, not named.
  const std::vector<std::string>& unknown_keywords() const;

  // The `format` values the schema uses that Las does not check (all but date, time and
  // date-time: probe KG5), each once, as written, at most kMostUnknownKeywords of them: a
  // value the format refuses reaches the tool. `las release draft` notes them.
  const std::vector<std::string>& unchecked_formats() const;

  // Internal: the compiled state, defined in argument_schema.cc only (it holds the
  // nlohmann and valijson types). Use CompileArgumentSchema.
  struct Impl;
  explicit ArgumentSchema(std::unique_ptr<const Impl> impl);
  const Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<const Impl> impl_;  // never null, except in a moved-from object
};

// Why a signed tool whose input schema does not compile is left out of the catalog:
// ToolWithheld and ToolCallDenied carry it, and `las release draft` warns with it.
inline constexpr std::string_view kSchemaUnsupported = "schema-unsupported";

// Compiles a tool's inputSchema (JSON text: a schema object, or true / false). Errors:
// kInvalidArgument for text that is not strict JSON within the limits, not a schema, an
// unresolvable or cyclic $ref, or a regex that does not compile; kUnsupported for a
// dialect, keyword or reference this policy does not implement (see above). The message
// names the schema location ("#/properties/path/pattern").
Result<ArgumentSchema> CompileArgumentSchema(std::string_view schema_json,
                                             const ArgumentSchemaLimits& limits = {});

// As CompileArgumentSchema, for a tool's inputSchema. Arguments are always one JSON object,
// and MCP clients read the listed schema as an object schema (the official SDK refuses the
// whole tools/list, every surface's tools, if one inputSchema's "type" is not "object").
// So the root must be a schema object whose "type" is absent or an array holding "object"
// (Las lists either with "type": "object", tools/catalog.h ListedInputSchemaJson), or
// "object"; a root "type" that admits no object ("string", ["array", "null"]) or a
// boolean root fails with kUnsupported, naming #/type. Callers: the catalog (admission),
// `las check`, `las release draft`, Las's own tools.
Result<ArgumentSchema> CompileToolInputSchema(std::string_view schema_json,
                                              const ArgumentSchemaLimits& limits = {});

// The first check CompileArgumentSchema makes: kUnsupported, with the same message, if the
// schema holds an integer a double does not hold exactly (see Numbers above); Ok otherwise,
// also for text that is not strict JSON (the digest refuses that). For `las release draft`,
// which must not sign a digest that cannot bind its schema, yet signs schemas this policy
// does not implement (admission withholds those tools).
Status CheckSchemaIntegers(std::string_view schema_json, const ArgumentSchemaLimits& limits = {});

// Accepted if `arguments_json` is a strict JSON object (empty text means {}) that
// validates against `schema`. Rejections: kArgumentsInvalid for text that is not strict
// JSON (duplicate keys, invalid UTF-8, over max_argument_bytes / max_argument_depth) or
// not an object; kArgumentsSchemaViolation for a schema failure or a bound above, with the
// detail described above. The limits are the ones given at compile.
Verdict ValidateArguments(const ArgumentSchema& schema, std::string_view arguments_json);

// An upper bound of the subschema evaluations ValidateArguments can make for
// `arguments_json`, from its text alone (no parse): the schema's worst case per value
// times an upper bound of the values and member names the text holds (its `,` `:` `[`
// `{`, in strings too, plus one), and times max_unique_items when the schema has a
// uniqueItems (each item is compared with the others). For a caller deciding where to run
// the check: the gateway runs a costly one off its loop, however few bytes it has.
uint64_t ValidationCostBound(const ArgumentSchema& schema, std::string_view arguments_json);

// The verdict ValidateArguments gives arguments text of `client_bytes` for its size alone:
// accepted within ArgumentSchemaLimits::max_argument_bytes, else kArgumentsInvalid with the
// same detail. Cheap: lets a caller refuse oversized text before it copies or queues it.
Verdict CheckArgumentsSize(const ArgumentSchema& schema, size_t client_bytes);

// As ValidateArguments, for arguments into which Las injected its own credentials
// (trust/credential_injection.h) as the members named `filled`, and whose client-written
// text was `client_bytes` long: the byte limit counts the client's bytes only. Whether the
// arguments validate is decided with the secrets in place (a schema can only be satisfied
// by what Las fills in), but a refusal's detail never depends on them: which keywords fail
// with a secret in place can depend on its value, at the filled argument (maxLength, a
// pattern) and elsewhere (an if/then/else on it moves the failure to another argument). So
// the detail is made from the client's own members checked alone, without the filled
// ones: their failures (but for a filled argument's own `required`), or, when that finds
// nothing, kFilledArgumentRefused naming every filled argument. A function of the client's
// text, the schema and the filled names only — so no refusal's detail tells anything of a
// secret (its length, its shape). The verdict itself (refused or not) can depend on a
// secret only through a schema written to test it, which the operator signed.
Verdict ValidateInjectedArguments(const ArgumentSchema& schema, std::string_view arguments_json,
                                  size_t client_bytes, const std::vector<std::string>& filled);
// How the detail of that refusal begins (the filled arguments' names follow, quoted).
inline constexpr std::string_view kFilledArgumentRefused =
    "the tool's signed input schema refuses the value Las fills in for argument ";

// For `las check`, whose operator holds the secrets: whether `arguments_json` (Las's
// filled members only, or with the client's) is refused at a filled argument — a schema
// that refuses what Las fills in, whatever a client sends. Never for a client's refusal.
bool RefusesFilledValues(const ArgumentSchema& schema, std::string_view arguments_json,
                         const std::vector<std::string>& filled);

// As ValidateArguments, but for any JSON value (not only an object; empty text is not
// {}). For conformance tests (the JSON Schema Test Suite validates numbers, arrays, ...)
// and for callers that validate something other than call arguments.
Verdict ValidateInstance(const ArgumentSchema& schema, std::string_view instance_json);

}  // namespace las::trust
