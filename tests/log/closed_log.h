// A closed log to open again, for the log's tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "log/event_log.h"
#include "tests/support/sample_events.h"

namespace las::log {

// A log in `dir` holding one event of every kind, closed. Fails the test (fatally, within
// this function: call it under ASSERT_NO_FATAL_FAILURE) if it cannot be written.
inline void WriteClosedLog(const std::string& dir) {
  auto log = EventLog::Open(dir);
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  ASSERT_TRUE((*log)->Append(testing::OneOfEveryKind(0)).ok());
}

}  // namespace las::log
