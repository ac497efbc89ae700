// Writing a whole buffer to a blocking file descriptor: short writes are continued and
// EINTR retried, so a caller sees either every byte written or the errno that stopped it.
//
// Thread safety: a free function; the descriptor is the caller's.
#pragma once

#include <string_view>

namespace las {

// 0 when every byte of `bytes` reached `fd`; otherwise the errno of the failed write (also
// left in errno, for callers that report it from there).
int WriteFully(int fd, std::string_view bytes);

}  // namespace las
