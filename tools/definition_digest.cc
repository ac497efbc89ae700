#include "tools/definition_digest.h"

#include "trust/digest.h"

namespace las::tools {

std::string DefinitionDigestFromHex(std::string_view input_schema_sha256_hex,
                                    std::string_view description_sha256_hex) {
  // Label, then both signed digests: a change to either is a new definition.
  std::string material = "las.tool-definition.v1:";
  material += input_schema_sha256_hex;
  material += ':';
  material += description_sha256_hex;
  return trust::Sha256Hex(trust::Sha256(material));
}

}  // namespace las::tools
