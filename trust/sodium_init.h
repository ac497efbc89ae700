// Internal to trust/: libsodium must be initialized once before its random number
// generator is used (key generation). Safe to call from any thread, any number of times.
#pragma once

#include "base/status.h"

namespace las::trust::internal {

// Ok once sodium_init() has succeeded; Unsupported if libsodium cannot initialize.
Status EnsureSodium();

}  // namespace las::trust::internal
