#include "tools/credentials.h"

#include <nlohmann/json.hpp>

namespace las::tools {

std::string CredentialVariable(std::string_view credential_name) {
  std::string variable(trust::kCredentialVariablePrefix);
  for (char c : credential_name) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    variable.push_back(keep ? c : '_');
  }
  return variable;
}

trust::CredentialResolver EnvironmentCredentials(const trust::Environment& environment) {
  return [&environment](std::string_view name) -> std::optional<std::string> {
    // An empty value is no credential (and would be "echoed" by every result).
    auto it = environment.find(CredentialVariable(name));
    if (it == environment.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
}

namespace {

bool CarriesAny(std::string_view text, const std::vector<std::string_view>& values) {
  for (std::string_view value : values) {
    if (text.find(value) != std::string_view::npos) return true;
  }
  return false;
}

bool DecodedCarriesAny(const nlohmann::json& node, const std::vector<std::string_view>& values) {
  if (node.is_string()) return CarriesAny(node.get_ref<const std::string&>(), values);
  if (node.is_array()) {
    for (const auto& item : node) {
      if (DecodedCarriesAny(item, values)) return true;
    }
  }
  if (node.is_object()) {
    for (const auto& [key, item] : node.items()) {
      if (CarriesAny(key, values) || DecodedCarriesAny(item, values)) return true;
    }
  }
  return false;
}

}  // namespace

bool EchoesCredential(std::string_view result_json, const std::vector<std::string>& values) {
  std::vector<std::string_view> checked;
  for (const std::string& value : values) {
    if (value.size() >= kMinCheckedCredentialBytes) checked.push_back(value);
  }
  if (checked.empty()) return false;
  if (CarriesAny(result_json, checked)) return true;
  const nlohmann::json decoded = nlohmann::json::parse(result_json, nullptr, false);
  return DecodedCarriesAny(decoded, checked);
}

std::vector<std::string> CredentialValuesOf(const trust::SurfaceBinding& surface,
                                            const trust::Environment& environment) {
  std::vector<std::string> values;
  const trust::CredentialResolver resolve = EnvironmentCredentials(environment);
  for (const trust::ToolBinding& tool : surface.tools) {
    for (const auto& [argument, credential] : tool.credential_templates) {
      if (auto value = resolve(credential)) values.push_back(std::move(*value));
    }
  }
  return values;
}

}  // namespace las::tools
