// FlatBuffers strings for reducers, with an absent string as "".
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <string>
#include <string_view>

namespace las::reducers {

inline std::string Str(const flatbuffers::String* s) { return s != nullptr ? s->str() : std::string(); }

// A view of the bytes inside the event; valid while the event is.
inline std::string_view View(const flatbuffers::String* s) {
  return s != nullptr ? std::string_view(s->c_str(), s->size()) : std::string_view();
}

// to = s, reusing to's storage (no temporary string).
inline void Assign(std::string& to, const flatbuffers::String* s) { to.assign(View(s)); }

}  // namespace las::reducers
