// Result<T>: a value or a non-ok Status. The Status-returning twin of std::expected
// (which this toolchain's C++20 mode does not offer).
//
// Accessing value() of a failed Result is a programming error (asserted; base/value_or.h).
#pragma once

#include "base/status.h"
#include "base/value_or.h"

namespace las {

template <typename T>
class [[nodiscard]] Result : public ValueOr<T, Status> {
 public:
  using ValueOr<T, Status>::ValueOr;
  const Status& status() const { return this->error(); }
};

}  // namespace las

// Early return of a failed Status / Result from the enclosing function.
#define LAS_RETURN_IF_ERROR(expr)            \
  do {                                       \
    ::las::Status las_status_ = (expr);      \
    if (!las_status_.ok()) return las_status_; \
  } while (0)
