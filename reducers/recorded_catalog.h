// The recorded-catalog reducer: per surface, the latest admission verdict and the tools
// its latest CatalogLoaded named (names and digests; the log keeps no schemas). This is
// the catalog "as last recorded in the log", for `las inspect catalog` and `las sources`
// when no server is asked.
//
// SurfaceAdmitted and SurfaceRejected start a new record for the surface (tools cleared);
// CatalogLoaded fills its tools. SurfaceStopped marks a recorded surface not admitted (not
// loaded) with the stop's reason and keeps its tools: they stay in the served catalog and
// fail until a new SurfaceAdmitted starts the surface's next record. A CatalogLoaded without a verdict before it (a system
// source) is recorded as admitted.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "log/envelope.h"

namespace las::reducers {

struct RecordedTool {
  std::string name;
  std::string input_schema_sha256;
  std::string description_sha256;
  std::string credential_templates_sha256;  // "" when none (or not recorded)
  // False for a CatalogLoaded of a Las before templates were recorded: the tool's
  // definition digest cannot be told from the log then (probe DT1).
  bool credential_templates_recorded = true;
};

struct RecordedSurface {
  bool admitted = false;  // admitted and not stopped since
  uint64_t release_sequence = 0;
  std::string reason;   // rejection or stop reason code when not admitted
  std::string detail;   // operator-facing rejection detail
  uint64_t sequence = 0;              // the latest event for this surface
  std::vector<RecordedTool> tools;    // as the latest CatalogLoaded listed them
};

struct RecordedCatalog {
  std::map<std::string, RecordedSurface> surfaces;  // by surface name
};

void Apply(RecordedCatalog& catalog, uint64_t sequence, const fb::Envelope& event);

}  // namespace las::reducers
