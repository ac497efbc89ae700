// ValueOr<T, Error>: a value, or an error that is not ok(). The shared shape of
// las::Result<T> (base/result.h, the error a Status) and trust::VerdictOr<T>
// (trust/reason.h, the error a rejecting Verdict), which each name their error.
//
// Building one from an ok() error is a programming error, and so is value() of an error
// (both asserted).
#pragma once

#include <cassert>
#include <optional>
#include <utility>

namespace las {

template <typename T, typename Error>
class ValueOr {
 public:
  ValueOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  ValueOr(Error error) : error_(std::move(error)) {  // NOLINT: implicit by design
    assert(!error_.ok() && "a value-or built from an error must carry one");
  }

  bool ok() const { return value_.has_value(); }

  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 protected:
  const Error& error() const { return error_; }

 private:
  std::optional<T> value_;
  Error error_;
};

}  // namespace las
