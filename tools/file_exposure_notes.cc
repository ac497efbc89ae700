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

std::vector<std::string> TrustedFileNotes(
    std::initializer_list<std::pair<TrustedFile, std::string>> files) {
  std::vector<std::string> notes;
  for (const auto& [file, path] : files) {
    if (auto note = TrustedFileNote(file, path)) notes.push_back(std::move(*note));
  }
  return notes;
}

std::vector<std::string> SurfaceFileNotes(const trust::SurfaceBinding& surface) {
  return TrustedFileNotes({{TrustedFile::kCode, surface.command},
                           {TrustedFile::kCode, surface.code ? surface.code->path : std::string()}});
}

std::vector<std::string> ServingFileNotes(const trust::Environment& environment) {
  auto absolute = [&](const char* variable) {
    auto it = environment.find(variable);
    return it == environment.end() || it->second.empty() || it->second[0] != '/' ? std::string()
                                                                                 : it->second;
  };
  return TrustedFileNotes({{TrustedFile::kTrustStore, absolute(trust::kEnvTrustStore)},
                           {TrustedFile::kWatermark, absolute(trust::kEnvReleaseWatermark)}});
}

}  // namespace las::tools
