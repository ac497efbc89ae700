// FlatBuffers string → std::string, with an absent string as "".
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <string>

namespace las::reducers {

inline std::string Str(const flatbuffers::String* s) { return s != nullptr ? s->str() : std::string(); }

}  // namespace las::reducers
