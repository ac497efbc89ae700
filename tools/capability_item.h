// CapabilityItem: one prompt or resource a source offers, as its owner listed it
// (prompts/list, resources/list) or as Las ships it (las.docs). A value type.
//
// These lists are not signed (a release binds tools only): they are shown in the source
// inventory as the child described them and never affect routing or policy.
#pragma once

#include <string>

namespace las::tools {

struct CapabilityItem {
  std::string name;
  std::string description;  // empty when none was given
  std::string uri;          // resources only
  std::string mime_type;    // resources only, when given
};

}  // namespace las::tools
