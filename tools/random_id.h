// Unpredictable identifiers (session ids, call ids, message ids, grant ids): a prefix and 16
// random bytes in hex, from libsodium's CSPRNG (the kernel's getrandom). Injected where used
// (as a std::function) so tests can fix them.
//
// The bytes are drawn from the kernel in blocks and handed out 16 at a time: one getrandom
// per id was a system call on every tool call. Each thread keeps its own block; a byte is
// handed out once and wiped from the block as it is; fork(2) discards every block, so a
// child process never repeats its parent's ids.
//
// Thread safety: RandomId may be called from any thread.
#pragma once

#include <string>
#include <string_view>

namespace las::tools {

std::string RandomId(std::string_view prefix);
// Whether `id` has the shape RandomId(prefix) gives: the prefix and 32 lowercase hex digits.
bool IsRandomIdShape(std::string_view id, std::string_view prefix);

}  // namespace las::tools
