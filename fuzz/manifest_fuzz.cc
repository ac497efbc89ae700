// Feeds: arbitrary bytes to trust::ParseManifest, the parser of the release manifest an
// operator signs (docs/MANIFEST.md). The signature is checked before parsing in
// production, but `las release verify`/`sign` and `las check` parse files as found.
// Checks, besides no crash: a manifest that parses survives the writer's round trip —
// ParseManifest(SerializeManifest(m)) succeeds and equals m (the contract of
// trust/manifest_writer.h), and ValidateManifest(m) is ok.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "trust/manifest.h"
#include "trust/manifest_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto manifest = las::trust::ParseManifest(bytes);
  if (!manifest.ok()) return 0;
  const std::string written = las::trust::SerializeManifest(*manifest);
  auto again = las::trust::ParseManifest(written);
  LAS_FUZZ_CHECK(again.ok(), "a parsed manifest, written again, does not parse");
  LAS_FUZZ_CHECK(las::trust::ManifestsEqual(*manifest, *again), "the round trip changed the manifest");
  LAS_FUZZ_CHECK(las::trust::ValidateManifest(*manifest).ok(), "ValidateManifest refuses a parsed manifest");
  return 0;
}
