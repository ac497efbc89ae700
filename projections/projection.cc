#include "projections/projection.h"

#include "base/hex.h"
#include "base/sha256.h"

namespace las::projections {

std::string Projection::CanonicalJson() const {
  std::string out;
  CanonicalWriter writer(&out);
  WriteCanonical(writer);
  writer.Finish();
  return out;
}

std::string Digest(const Projection& projection) {
  Sha256Hasher hasher;
  CanonicalWriter writer(
      [](void* context, std::string_view bytes) {
        static_cast<Sha256Hasher*>(context)->Update(bytes);
      },
      &hasher);
  projection.WriteCanonical(writer);
  writer.Finish();
  return ToHex(hasher.Finish());
}

}  // namespace las::projections
