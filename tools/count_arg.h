// Counts and offsets among a las__ tool's arguments, for the handlers that read their
// arguments as nlohmann JSON (the discovery and admin tools).
//
// JSON Schema's "integer" is a whole number however it is written: the gateway's schema
// check admits 2.0 and 2e0 where the schema says {"type":"integer"}, so they must mean 2
// here too, not "absent" (a client asking for offset 2.0 got page 0).
//
// Thread safety: pure function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include <nlohmann/json_fwd.hpp>

namespace las::tools {

// `d` as a non-negative whole number (2.0 is 2, -0.0 is 0), saturating at 2^64-1; nullopt
// when it is negative, has a fraction, or is NaN. Also for ToolArgs (tools/tool_args.h).
std::optional<uint64_t> WholeNumber(double d);

// The non-negative whole number `value` holds, written as an integer or as a double with
// no fraction (2.0, 2e0, -0.0); past SIZE_MAX it saturates. nullopt for anything else.
std::optional<size_t> WholeCount(const nlohmann::json& value);

// WholeCount of `args[key]`; `fallback` when the key is absent or not such a number (the
// schema check has refused those before a handler runs).
size_t CountArg(const nlohmann::json& args, const char* key, size_t fallback);

}  // namespace las::tools
