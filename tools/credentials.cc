#include "tools/credentials.h"

namespace las::tools {

std::string CredentialVariable(std::string_view credential_name) {
  std::string variable = "LAS_CREDENTIAL_";
  for (char c : credential_name) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    variable.push_back(keep ? c : '_');
  }
  return variable;
}

trust::CredentialResolver EnvironmentCredentials(const trust::Environment& environment) {
  return [&environment](std::string_view name) -> std::optional<std::string> {
    auto it = environment.find(CredentialVariable(name));
    if (it == environment.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace las::tools
