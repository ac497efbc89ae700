#include "trust/sodium_init.h"

#include <sodium.h>

namespace las::trust::internal {

Status EnsureSodium() {
  // sodium_init() is itself thread-safe and idempotent; the static only saves the call.
  static const int result = sodium_init();
  if (result < 0) return Unsupported("libsodium failed to initialize");
  return Status::Ok();
}

}  // namespace las::trust::internal
