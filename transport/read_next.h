// ReadNext: the next asynchronous read of a descriptor served by a single-threaded
// io_context, without the read attempt Boost.Asio opens every read with when the
// descriptor is known to be empty.
//
// Asio's async_read_some first tries a read, which fails with EAGAIN when the peer has sent
// nothing since the last one: a wasted system call per message with a request/answer peer
// (a client line, a child's answer). When the caller knows the descriptor was drained —
// its previous read, in the handler still running, returned less than its buffer —
// ReadNext waits for readiness instead and reads after. That is sound only inside that
// handler: Asio's epoll reactor is edge-triggered, so readiness that arrives while no
// operation is queued is consumed and lost to a wait queued later, and none can be
// consumed before the running handler returns to the loop. Anywhere else (a read resumed
// after a pause, after a full buffer, the first read) pass drained = false: the ordinary
// async_read_some.
//
// The descriptor must be in non-blocking mode (`non_blocking(true)`), so that the read
// after a wait cannot block; a wake-up with nothing to read falls back to async_read_some.
// `handler(error, bytes)` is called as by async_read_some, on the loop, never inline; it
// must keep `descriptor` alive (as every read handler does through its owner).
//
// Include only from .cc files: this header brings in Boost.Asio.
#pragma once

#include <cstddef>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/system/error_code.hpp>

namespace las::transport {

template <typename Handler>
void ReadNext(boost::asio::posix::stream_descriptor& descriptor,
              boost::asio::mutable_buffer buffer, bool drained, Handler handler) {
  if (!drained) {
    descriptor.async_read_some(buffer, std::move(handler));
    return;
  }
  descriptor.async_wait(
      boost::asio::posix::stream_descriptor::wait_read,
      [&descriptor, buffer, handler = std::move(handler)](
          const boost::system::error_code& error) mutable {
        if (error) return handler(error, size_t{0});
        boost::system::error_code read_error;
        const size_t n = descriptor.read_some(buffer, read_error);
        if (read_error == boost::asio::error::would_block) {
          descriptor.async_read_some(buffer, std::move(handler));
          return;
        }
        handler(read_error, n);
      });
}

}  // namespace las::transport
