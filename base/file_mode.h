// FileMode: a file's permission bits as an operator reads them in a message ("0644").
#pragma once

#include <sys/types.h>

#include <string>

namespace las {

// The permission, set-id and sticky bits of `mode` as four octal digits.
std::string FileModeText(mode_t mode);

}  // namespace las
