#include "tools/definition_digest.h"

#include "trust/digest.h"

namespace las::tools {

std::string DefinitionDigestFromHex(std::string_view input_schema_sha256_hex,
                                    std::string_view description_sha256_hex,
                                    std::string_view credential_templates_sha256_hex) {
  // Label, then the signed digests: a change to any is a new definition.
  const bool templated = !credential_templates_sha256_hex.empty();
  std::string material = templated ? "las.tool-definition.v2:" : "las.tool-definition.v1:";
  material += input_schema_sha256_hex;
  material += ':';
  material += description_sha256_hex;
  if (templated) {
    material += ':';
    material += credential_templates_sha256_hex;
  }
  return trust::Sha256Hex(trust::Sha256(material));
}

std::string CredentialTemplatesDigestHex(const std::map<std::string, std::string>& templates) {
  if (templates.empty()) return "";
  // Length-prefixed: an argument name may hold any character.
  std::string material = "las.credential-templates.v1";
  for (const auto& [argument, credential] : templates) {
    for (const std::string* name : {&argument, &credential}) {
      material += std::to_string(name->size());
      material += ':';
      material += *name;
    }
  }
  return trust::Sha256Hex(trust::Sha256(material));
}

}  // namespace las::tools
