#include "projections/releases_projection.h"

#include <nlohmann/json.hpp>

namespace las::projections {

std::string ReleasesProjection::CanonicalJson() const {
  nlohmann::json keys = nlohmann::json::object();
  for (const auto& [id, k] : releases_.keys) {
    keys[id] = {{"watermark", k.watermark},
                {"accepted", k.accepted},
                {"rejected", k.rejected},
                {"manifest_sha256", k.manifest_sha256},
                {"last_rejection", k.last_rejection}};
  }
  nlohmann::json surfaces = nlohmann::json::object();
  for (const auto& [name, v] : releases_.surfaces) {
    surfaces[name] = {{"admitted", v.admitted},
                      {"release_sequence", v.release_sequence},
                      {"reason", v.reason},
                      {"sequence", v.sequence}};
  }
  return nlohmann::json{{"keys", std::move(keys)}, {"surfaces", std::move(surfaces)}}.dump();
}

}  // namespace las::projections
