// las_log_appender: a second process that writes a log, for the crash and follower tests.
//
//   las_log_appender loop DIR    append batches of 1..4 events forever; after each durable
//                                append print "acked FIRST LAST"; die when killed
//   las_log_appender serve DIR   print "ready HEAD"; for each stdin line N append N events
//                                and print "head HEAD"; exit 0 at EOF
//   las_log_appender session DIR append one SampleSession (9 events), print
//                                "appended FIRST LAST", exit 0
//   las_log_appender verify DIR  walk the whole chain; print "verified HEAD", exit 0, or
//                                the error, exit 1
// When the log cannot be opened: exit 7 if another process holds it, else 1.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "log/event_log.h"
#include "tests/support/sample_events.h"

namespace {

void Say(const std::string& line) {
  std::string data = line + "\n";
  // Unbuffered: a line on the pipe means the append was acknowledged before the kill.
  if (::write(STDOUT_FILENO, data.data(), data.size()) < 0) std::_Exit(3);
}

std::vector<las::log::EventDraft> Batch(uint64_t n, uint64_t size) {
  std::vector<las::log::EventDraft> drafts;
  for (uint64_t i = 0; i < size; ++i) drafts.push_back(las::testing::SampleToolCallRequested(n + i));
  return drafts;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: las_log_appender loop|serve|session|verify DIR\n";
    return 2;
  }
  const std::string mode = argv[1];
  auto log = las::log::EventLog::Open(argv[2]);
  if (!log.ok()) {
    std::cerr << log.status().ToString() << "\n";
    return log.status().code() == las::Code::kLocked ? 7 : 1;
  }
  if (mode == "loop") {
    for (uint64_t n = 0;; ++n) {
      auto range = (*log)->Append(Batch(n, 1 + n % 4));
      if (!range.ok()) {
        std::cerr << range.status().ToString() << "\n";
        return 1;
      }
      Say("acked " + std::to_string(range->first) + " " + std::to_string(range->last));
    }
  }
  if (mode == "session") {
    const std::string session = "demo-" + std::to_string((*log)->head().sequence + 1);
    auto range = (*log)->Append(las::testing::SampleSession(session));
    if (!range.ok()) {
      std::cerr << range.status().ToString() << "\n";
      return 1;
    }
    Say("appended " + std::to_string(range->first) + " " + std::to_string(range->last));
    return 0;
  }
  if (mode == "verify") {
    if (las::Status verified = (*log)->Verify(); !verified.ok()) {
      std::cerr << verified.ToString() << "\n";
      return 1;
    }
    Say("verified " + std::to_string((*log)->head().sequence));
    return 0;
  }
  if (mode == "serve") {
    Say("ready " + std::to_string((*log)->head().sequence));
    std::string line;
    while (std::getline(std::cin, line)) {
      auto range = (*log)->Append(Batch(0, std::stoull(line)));
      if (!range.ok()) return 1;
      Say("head " + std::to_string(range->last));
    }
    return 0;
  }
  return 2;
}
