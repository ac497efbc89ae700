// SKIP_UNLESS_EVERY_PROJECTION_SAVES(): skips the current gtest test, naming the
// projections that lack Save/Restore (projections/projection.h), when the projection set
// cannot be snapshotted; until every projection saves, no snapshot is ever written. Use it
// as the first statement of a TEST body. Header-only; the test links las_projections.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "projections/projection_set.h"

#define SKIP_UNLESS_EVERY_PROJECTION_SAVES()                                                \
  do {                                                                                      \
    std::vector<std::string> unsupported;                                                   \
    if (!::las::projections::ProjectionSet().Save({}, &unsupported)) {                      \
      GTEST_SKIP() << "projections without Save: " << ::testing::PrintToString(unsupported); \
    }                                                                                       \
  } while (false)
