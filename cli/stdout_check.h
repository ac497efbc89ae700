// Whether what a command printed reached standard output: a full disk, a closed pipe or
// a file that refuses writes loses a transcript, a grant id or an audit, and the command
// must then fail (exit 9) and say so — once, in one line, and not also claim success.
// Thread-compatible (stdio).
#pragma once

namespace las::cli {

// Flushes stdout; false if anything printed so far failed to reach it. The first failure
// prints "las WORDS: io: writing to standard output failed: ..." on stderr; later calls
// (and main's last check) print nothing more.
bool StdoutDelivered();

// Keeps `error` (an errno) of a write to stdout that was flushed elsewhere, the first one
// only, for StdoutDelivered's report: its own flush then has nothing left to fail on.
void NoteStdoutError(int error);

// Whether a failure of stdout was already told on stderr.
bool StdoutFailureReported();

}  // namespace las::cli
