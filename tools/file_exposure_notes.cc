#include "tools/file_exposure_notes.h"

#include "base/path_exposure.h"
#include "trust/release_paths.h"

namespace las::tools {
namespace {

struct Stake {
  const char* subject;  // followed by the path
  const char* what;     // what whoever may change it could then do
};

Stake StakeOf(TrustedFile file) {
  switch (file) {
    case TrustedFile::kTrustStore:
      return {"the trust store ", "choose which release key is trusted, and so which children run"};
    case TrustedFile::kWatermark:
      return {"the release watermark ", "roll it back, so that an older signed release is admitted again"};
    case TrustedFile::kWorkspace:
      return {"the workspace ", "change the code a release drafted from it pins, and so what runs"};
    case TrustedFile::kCode:
      return {"the code ", "change what a release drafted from it pins, and so what runs"};
    case TrustedFile::kManifest:
      return {"the manifest ", "change what you sign (commands, code, environment variables)"};
    case TrustedFile::kSecretKey:
      return {"the release key ", "have you sign with a key of theirs"};
  }
  return {"the file ", "change it"};
}

}  // namespace

std::optional<std::string> TrustedFileNote(TrustedFile file, const std::string& path) {
  if (path.empty()) return std::nullopt;
  const Stake stake = StakeOf(file);
  return PathExposureNote(path, stake.subject + path, stake.what);
}

std::vector<std::string> SurfaceFileNotes(const trust::SurfaceBinding& surface) {
  std::vector<std::string> notes;
  std::vector<std::string> files = {surface.command};
  if (surface.code) files.push_back(surface.code->path);
  for (const std::string& file : files) {
    if (auto note = TrustedFileNote(TrustedFile::kCode, file)) notes.push_back(std::move(*note));
  }
  return notes;
}

std::vector<std::string> ServingFileNotes(const trust::Environment& environment) {
  std::vector<std::string> notes;
  for (const auto& [variable, file] : {std::pair{trust::kEnvTrustStore, TrustedFile::kTrustStore},
                                       std::pair{trust::kEnvReleaseWatermark, TrustedFile::kWatermark}}) {
    auto it = environment.find(variable);
    if (it == environment.end() || it->second.empty() || it->second[0] != '/') continue;
    if (auto note = TrustedFileNote(file, it->second)) notes.push_back(std::move(*note));
  }
  return notes;
}

}  // namespace las::tools
