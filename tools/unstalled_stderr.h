// A server's stderr that a host which never reads it cannot stall (probe HB1: with stderr a
// full pipe, the first note blocked the loop, so nothing was answered and no signal ended
// the server), and that a reader merely behind does not lose notes to (probe HD1).
//
// KeepStderrFromStalling, when stderr is a pipe or FIFO, points the C `stderr` stream —
// through which every note of Las is written — at a writer over a non-blocking description
// of Las's own of that pipe (tools/loop_stdio_fd.h: the description the caller holds stays
// as it was). A line that does not fit waits for room up to `patience`; if none comes, the
// writer counts the line as dropped and is "stalled": later lines are dropped at once
// while the pipe stays full, and the first line that fits again is preceded by
// "las serve: N lines of standard error were dropped: it was not read" (base/note.h's
// name), in the same write as that line; at exit the count still owed is written alone,
// with the same patience. A line cut short by a partial write is ended with a newline
// and counted once with the rest of it dropped. A terminal, file or
// socket is left as it is (a socket's O_NONBLOCK would be shared with its other holders).
//
// Threading: call once, before any other thread starts. The writer runs under the stream's
// lock, as every stdio call does.
#pragma once

#include <chrono>
#include <cstdio>

namespace las::tools {

inline constexpr std::chrono::milliseconds kStderrPatience{2000};

void KeepStderrFromStalling(std::chrono::milliseconds patience = kStderrPatience);

// The writer itself, over `fd` (made non-blocking; owned by the stream from now on): a
// line-buffered stream, or nullptr when it could not be made.
FILE* OpenUnstalledWriter(int fd, std::chrono::milliseconds patience);

}  // namespace las::tools
