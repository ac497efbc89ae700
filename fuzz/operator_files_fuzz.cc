// Feeds: the files an operator (or whoever can write to their home) edits, to their
// parsers. The first byte picks the parser, the rest is the file: 0 trust store
// (trust/trust_store.h), 1 watermarks (trust/watermark.h), 2 release signature file
// (trust/signature_file.h), 3 Tama/Warsztat allowlists (trust/surface_allowlist.h),
// 4 Skarbiec taxonomy (trust/skarbiec_policy.h), 5 surface registry (tools/registry.h).
// Checks, besides no crash: what parses and has a writer (trust store, watermarks,
// signature file) parses back from its written form to the same content.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "tools/registry.h"
#include "trust/signature_file.h"
#include "trust/skarbiec_policy.h"
#include "trust/surface_allowlist.h"
#include "trust/trust_store.h"
#include "trust/watermark.h"

namespace {

void TrustStore(std::string_view bytes) {
  auto store = las::trust::ParseTrustStore(bytes);
  if (!store.ok()) return;
  auto again = las::trust::ParseTrustStore(las::trust::SerializeTrustStore(*store));
  LAS_FUZZ_CHECK(again.ok(), "a written trust store does not parse");
  LAS_FUZZ_CHECK(again->selected_key_id == store->selected_key_id &&
                     again->keys.size() == store->keys.size(),
                 "the trust store changed in the round trip");
}

void Watermarks(std::string_view bytes) {
  auto marks = las::trust::ParseWatermarks(bytes);
  if (!marks.ok()) return;
  auto again = las::trust::ParseWatermarks(las::trust::SerializeWatermarks(*marks));
  LAS_FUZZ_CHECK(again.ok(), "written watermarks do not parse");
  LAS_FUZZ_CHECK(again->by_key == marks->by_key, "the watermarks changed in the round trip");
}

void SignatureFile(std::string_view bytes) {
  auto file = las::trust::ParseSignatureFile(bytes);
  if (!file.ok()) return;
  auto again = las::trust::ParseSignatureFile(
      las::trust::FormatSignatureFile(file->key_id, file->signature));
  LAS_FUZZ_CHECK(again.ok(), "a written signature file does not parse");
  LAS_FUZZ_CHECK(again->key_id == file->key_id && again->signature == file->signature,
                 "the signature file changed in the round trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 6) {
    case 0: TrustStore(bytes); break;
    case 1: Watermarks(bytes); break;
    case 2: SignatureFile(bytes); break;
    case 3: (void)las::trust::ParseSurfaceAllowlists(bytes); break;
    case 4: (void)las::trust::ParseSkarbiecTaxonomy(bytes); break;
    case 5: (void)las::tools::ParseRegistry(bytes); break;
  }
  return 0;
}
