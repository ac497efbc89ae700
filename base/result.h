// Result<T>: a value or a non-ok Status. The Status-returning twin of std::expected
// (which this toolchain's C++20 mode does not offer).
//
// Accessing value() of a failed Result is a programming error (asserted).
#pragma once

#include <cassert>
#include <optional>
#include <utility>

#include "base/status.h"

namespace las {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.ok() && "a Result built from a Status must carry an error");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace las

// Early return of a failed Status / Result from the enclosing function.
#define LAS_RETURN_IF_ERROR(expr)            \
  do {                                       \
    ::las::Status las_status_ = (expr);      \
    if (!las_status_.ok()) return las_status_; \
  } while (0)
