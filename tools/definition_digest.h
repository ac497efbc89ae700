// The definition digest a grant names (tools/catalog.h CatalogTool::definition_sha256),
// from the two hex digests a log records for a tool (CatalogLoaded's ToolDigest): the
// schema's canonical-JSON SHA-256 and the description's SHA-256.
#pragma once

#include <string>
#include <string_view>

namespace las::tools {

// hex SHA-256 of "las.tool-definition.v1:" + schema hex + ":" + description hex.
std::string DefinitionDigestFromHex(std::string_view input_schema_sha256_hex,
                                    std::string_view description_sha256_hex);

}  // namespace las::tools
