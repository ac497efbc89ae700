// Where a call's arguments failed, as the refusal's message carries it after its generic
// words (tools/gateway.cc): most clients show an error's message alone, not its `data`
// (probe IJ2).
//
// Thread safety: a pure function.
#pragma once

#include <string>
#include <string_view>

namespace las::tools {

inline constexpr size_t kMaxRefusalDetailInMessage = 512;

// `detail`: an argument refusal's ("the arguments do not match the input schema: \"/a\"
// fails type; \"/b\" fails maximum", trust/argument_schema.h). Without the words the
// message already says, at most kMaxRefusalDetailInMessage bytes cut between two failures
// ("; ") where one fits, else at a character boundary, then " ..." when cut.
std::string RefusalDetailForMessage(std::string_view detail);

}  // namespace las::tools
