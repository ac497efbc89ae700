// The definition digest a grant names (tools/catalog.h CatalogTool::definition_sha256),
// from the hex digests a log records for a tool (CatalogLoaded's ToolDigest): the schema's
// canonical-JSON SHA-256, the description's SHA-256 and, for a tool the release gives
// credential templates, their digest — so that a release that makes a tool use a secret
// (or another one) is a new definition no earlier grant or rule covers (probe DS1).
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace las::tools {

// hex SHA-256 of "las.tool-definition.v1:" + schema hex + ":" + description hex when
// `credential_templates_sha256_hex` is "" (the digest of every tool without templates, as
// before templates counted), else of "las.tool-definition.v2:" + the three joined by ":".
std::string DefinitionDigestFromHex(std::string_view input_schema_sha256_hex,
                                    std::string_view description_sha256_hex,
                                    std::string_view credential_templates_sha256_hex);

// The digest of a tool's credential templates (argument -> credential name, as signed):
// "" for none; else hex SHA-256 of "las.credential-templates.v1" and, per template in
// argument order, each name as its byte length in decimal, ':' and its bytes.
std::string CredentialTemplatesDigestHex(const std::map<std::string, std::string>& templates);

}  // namespace las::tools
