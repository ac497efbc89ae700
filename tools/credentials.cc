#include "tools/credentials.h"

#include "transport/json_text.h"

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

trust::CredentialResolver EnvironmentCredentials(const trust::Environment& environment,
                                                 std::vector<std::string>* given) {
  return [&environment, given](std::string_view name) -> std::optional<std::string> {
    auto it = environment.find(CredentialVariable(name));
    if (it == environment.end()) return std::nullopt;
    if (given != nullptr) given->push_back(it->second);
    return it->second;
  };
}

bool EchoesCredential(std::string_view result_json, const std::vector<std::string>& values) {
  for (const std::string& value : values) {
    if (value.size() < kMinCheckedCredentialBytes) continue;
    if (result_json.find(value) != std::string_view::npos) return true;
    const std::string quoted = transport::QuoteJsonString(value);
    const std::string_view escaped = std::string_view(quoted).substr(1, quoted.size() - 2);
    if (escaped != value && result_json.find(escaped) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace las::tools
