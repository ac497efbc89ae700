// One event as one line of JSON, for `las replay`, `las events tail` and auditors' tools.
//
// Field names are stable (they are the schema's names; see log/FORMAT.md §JSON):
//   {"seq":7,"time":"2026-11-30T06:27:24.123456Z","time_micros":...,"kind":"SessionOpened",
//    "agent":"a","session":"s","prev_hash":"<hex>","hash":"<hex>","payload":{...}}
// The payload object holds every field of the kind's table by its schema name: absent
// strings as "", absent vectors as [], absent numbers as 0, booleans as false and enums
// by their zero's name; byte vectors as lowercase hex. A kind this build
// does not know renders as "kind":"Unknown" with an empty payload.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "log/event.h"

namespace las::log {

// Compact JSON, no trailing newline. The event must come from a verifying cursor. Code
// points that display as nothing or reorder text (bidirectional controls, zero-width
// characters: base/printable_text.h) are written as \u escapes, so a line shown on a
// terminal reads as it is stored. "time" is null when the time is outside the years
// 0000-9999, which RFC 3339 cannot write ("time_micros" holds it all the same).
std::string EventToJson(const StoredEvent& event);
// The same with the payload members named in `withheld` left out and named instead in a
// "withheld" array after "payload" (what an agent may not see of another's event: a
// policy of the caller's, tools/event_privacy.h). Names the payload lacks are ignored.
std::string EventToJson(const StoredEvent& event, const std::vector<std::string_view>& withheld);

// "2026-11-30T06:27:24.123456Z"; nullopt outside the years 0000-9999.
std::optional<std::string> FormatRfc3339Micros(int64_t micros_since_epoch);

}  // namespace las::log
