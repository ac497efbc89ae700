// Standard output and the stop signals of `las replay`, whose events an auditor often keeps
// in a file (`las replay > events.jsonl`). Lines leave the process only whole, 64 KiB or so
// at a time, so that a replay stopped by SIGINT, SIGTERM or SIGHUP leaves output of which
// every line parses (probe HO1: the stop cut the last line, and jq refused the whole file).
// A stop signal that comes while lines are being written takes effect once they are
// written; a second one ends the process at once (a reader that stopped reading). Either
// way the process then dies by the signal, the terminal left clean: the progress line
// cleared, a line the forced stop cut ended. Lines still waiting are dropped by a stop.
// One replay per process; not thread-safe.
#pragma once

#include <string_view>

namespace las::cli::replay_output {

// Catches SIGINT, SIGTERM and SIGHUP as above; one ignored (nohup) stays ignored.
// `events_on_terminal`: stdout is a terminal, where a forced stop ends the cut line.
void CatchStopSignals(bool events_on_terminal);

// Queues `line` and a line end; writes what waits once 64 KiB do. False once anything
// written to stdout failed (then StdoutDelivered() says why).
bool Print(std::string_view line);

// Writes every waiting line now (and a stop held meanwhile takes effect). False as Print.
bool Write();

// Whether a progress line shows on stderr (a stop clears it). Set before it is written.
void SetProgressShown(bool shown);
bool ProgressShown();

}  // namespace las::cli::replay_output
