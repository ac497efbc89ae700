#include "tools/stdio_lines.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/write.hpp>
#include <array>
#include <cerrno>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "base/unique_fd.h"
#include "tools/line_write_queue.h"
#include "tools/loop_stdio_fd.h"
#include "tools/paced_lines.h"
#include "transport/line_reader.h"

namespace las::tools {
namespace {

bool IsPipeOrSocket(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

bool AnswersLost(const LineInputHandlers& handlers) {
  return handlers.answers != nullptr && handlers.answers->Broken();
}

// False when the event was dropped: the answers are lost, so it would run for no one.
bool Deliver(const LineInputHandlers& handlers, const transport::LineEvent& event) {
  if (AnswersLost(handlers)) return false;
  switch (event.kind) {
    case transport::LineEvent::Kind::kTooLong:
      handlers.on_too_long(event.bytes);
      return true;
    case transport::LineEvent::Kind::kTooLongEnd:
      if (handlers.on_too_long_end) handlers.on_too_long_end(event.bytes);
      return true;
    case transport::LineEvent::Kind::kLine:
    case transport::LineEvent::Kind::kPartialAtEof:
      handlers.on_line(event.bytes);
      return true;
  }
  return true;
}

// Answers go out through one LineWriteQueue (ordering, one write per burst, and the flow
// control that holds the input's reading); subclasses supply the write itself.
class QueuedOutput : public LineOutput {
 public:
  QueuedOutput(boost::asio::io_context& io, LineWriteQueue::AsyncWrite write)
      : io_(io),
        queue_(std::move(write),
               [&io](std::function<void()> task) { boost::asio::post(io, std::move(task)); }) {}
  // Stdin's lines yield to the operator socket's connections (tools/paced_lines.h).
  void Later(std::function<void()> next) override { boost::asio::post(io_, std::move(next)); }
  void Write(std::string line) override { queue_.Write(std::move(line)); }
  void WhenDrained(std::function<void()> done) override { queue_.WhenDrained(std::move(done)); }
  bool Congested() const override { return queue_.Congested(); }
  size_t unwritten_bytes() const override { return queue_.queued_bytes(); }
  void ReadWhenAllowed(std::function<void()> read) override {
    queue_.ReadWhenAllowed(std::move(read));
  }
  bool Broken() const override { return queue_.broken(); }
  void WhenBroken(std::function<void()> lost) override { queue_.WhenBroken(std::move(lost)); }
  void Abandon() override { queue_.Abandon(); }

 private:
  boost::asio::io_context& io_;
  LineWriteQueue queue_;
};

// Asynchronous writes on the loop.
class LoopOutput final : public QueuedOutput {
 public:
  LoopOutput(boost::asio::io_context& io, std::unique_ptr<LoopStdioFd> stdout_fd, int fd)
      : QueuedOutput(io,
                     [this](const std::string& data, std::function<void(bool)> done) {
                       boost::asio::async_write(
                           out_, boost::asio::buffer(data),
                           [done = std::move(done)](const boost::system::error_code& error,
                                                    size_t) { done(!error); });
                     }),
        stdout_fd_(std::move(stdout_fd)),
        out_(io, fd) {}

  void Abandon() override {
    QueuedOutput::Abandon();
    boost::system::error_code ignored;
    out_.cancel(ignored);  // a write waiting for a reader that never reads ends now
  }

  void WhenReaderGone(std::function<void()> gone) override {
    reader_gone_.push_back(std::move(gone));
    if (!std::exchange(watching_, true)) WatchForReaderGone();
  }

 private:
  // The reactor reports an error condition or hang-up of the descriptor without a write
  // being tried. It is confirmed with poll(2): anything else that wakes the wait (out-of-band
  // data on a socket) ends the watch rather than re-arming it, which would spin on a
  // condition that stays set.
  void WatchForReaderGone() {
    out_.async_wait(boost::asio::posix::stream_descriptor::wait_error,
                    [this](const boost::system::error_code& error) {
                      if (error) return;  // cancelled: the output is abandoned or going away
                      pollfd pfd{out_.native_handle(), POLLOUT, 0};
                      if (::poll(&pfd, 1, 0) != 1 || (pfd.revents & (POLLERR | POLLHUP)) == 0) {
                        return;
                      }
                      for (auto& gone : std::exchange(reader_gone_, {})) gone();
                    });
  }

  std::unique_ptr<LoopStdioFd> stdout_fd_;  // before out_: outlives its descriptor
  boost::asio::posix::stream_descriptor out_;
  bool watching_ = false;
  std::vector<std::function<void()>> reader_gone_;
};

// Blocking writes on a thread, for terminals and files: the queue hands it one buffer at a
// time and learns the outcome on the loop, so a terminal that stops taking output (a
// paused scroll) holds the input as a client that stops reading a pipe does.
class ThreadOutput final : public QueuedOutput {
 public:
  explicit ThreadOutput(boost::asio::io_context& io)
      : QueuedOutput(io,
                     [this](const std::string& data, std::function<void(bool)> done) {
                       {
                         std::lock_guard lock(mu_);
                         job_ = &data;  // the queue keeps it until `done`
                         done_ = std::move(done);
                       }
                       wake_.notify_one();
                     }),
        io_(io),
        thread_([this] { Run(); }) {}
  ~ThreadOutput() override {
    {
      std::lock_guard lock(mu_);
      closing_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

 private:
  void Run() {
    std::unique_lock lock(mu_);
    while (true) {
      wake_.wait(lock, [&] { return closing_ || job_ != nullptr; });
      if (job_ == nullptr) return;
      const std::string& data = *job_;
      std::function<void(bool)> done = std::move(done_);
      job_ = nullptr;
      lock.unlock();
      size_t written = 0;
      while (written < data.size()) {
        ssize_t n = ::write(STDOUT_FILENO, data.data() + written, data.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // the client is gone
        written += static_cast<size_t>(n);
      }
      const bool ok = written == data.size();
      boost::asio::post(io_, [done = std::move(done), ok] { done(ok); });
      lock.lock();
    }
  }

  boost::asio::io_context& io_;
  std::mutex mu_;
  std::condition_variable wake_;
  const std::string* job_ = nullptr;
  std::function<void(bool)> done_;
  bool closing_ = false;
  std::thread thread_;  // last: starts after the rest is built
};

class LoopInput final : public LineInput {
 public:
  LoopInput(boost::asio::io_context& io, std::unique_ptr<LoopStdioFd> stdin_fd, int fd,
            size_t max_line, LineInputHandlers handlers)
      : stdin_fd_(std::move(stdin_fd)),
        in_(io, fd),
        handlers_(std::move(handlers)),
        lines_(max_line, [this](const transport::LineEvent& event) { dropped_ |= !Deliver(handlers_, event); }) {
    if (handlers_.answers != nullptr) {
      handlers_.answers->WhenBroken([this] {
        boost::system::error_code ignored;
        in_.cancel(ignored);  // a read in progress ends with an error: the input's end
      });
    }
    Read();
  }

 private:
  void Read() {
    if (AnswersLost(handlers_)) {
      handlers_.on_eof();
      Discard();
      return;
    }
    in_.async_read_some(boost::asio::buffer(buffer_),
                        [this](const boost::system::error_code& error, size_t n) {
                          if (error == boost::asio::error::operation_aborted &&
                              AnswersLost(handlers_)) {  // cancelled by the loss
                            handlers_.on_eof();
                            Discard();
                            return;
                          }
                          if (error || n == 0) {
                            lines_.Finish();
                            handlers_.on_eof();
                            Closed();
                            return;
                          }
                          lines_.Feed(std::string_view(buffer_, n), handlers_.answers,
                                      [this] { Read(); });
                        });
  }

  // After the answers were lost: reads on to stdin's end, running nothing, so that the
  // server learns when the client has closed it (tools/stdio_server.h: a client gone for
  // good does not keep it waiting on calls whose answers no one can receive).
  void Discard() {
    in_.async_read_some(boost::asio::buffer(buffer_),
                        [this](const boost::system::error_code& error, size_t n) {
                          if (error == boost::asio::error::operation_aborted) {
                            Discard();  // the loss's cancel, come after this read began
                            return;
                          }
                          if (error || n == 0) {
                            Closed();
                            return;
                          }
                          Discard();
                        });
  }

  void Closed() {
    if (handlers_.on_closed) handlers_.on_closed();
  }

  bool LeftLinesUnhanded() const override { return dropped_ || lines_.held_bytes() > 0; }

  std::unique_ptr<LoopStdioFd> stdin_fd_;  // before in_: outlives its descriptor
  boost::asio::posix::stream_descriptor in_;
  LineInputHandlers handlers_;
  PacedLines lines_;
  bool dropped_ = false;
  char buffer_[1 << 16];
};

// Blocking reads on a thread, for terminals and files. Each read is handed to the loop and
// paced there exactly as LoopInput's (tools/paced_lines.h); the thread reads again only
// once every line of it has been handed over, so a large file on stdin is read no faster
// than its answers are taken, instead of into memory.
class ThreadInput final : public LineInput {
 public:
  ThreadInput(boost::asio::io_context& io, size_t max_line, LineInputHandlers handlers)
      : io_(io),
        handlers_(std::move(handlers)),
        lines_(max_line, [this](const transport::LineEvent& event) { dropped_ |= !Deliver(handlers_, event); }),
        wake_(MakeWakePipe()),
        thread_([this] { Run(); }) {}
  bool LeftLinesUnhanded() const override { return dropped_ || lines_.held_bytes() > 0; }

  ~ThreadInput() override {
    {
      std::lock_guard lock(mu_);
      closing_ = true;  // the loop has stopped: what was read will not be handed over
    }
    handed_over_.notify_one();
    // A read still waiting on a terminal (the server ended on a signal) must not hold the
    // join: the thread waits on the wake pipe too.
    if (wake_[1].valid()) (void)!::write(wake_[1].get(), "x", 1);
    if (thread_.joinable()) thread_.join();
  }

 private:
  static std::array<UniqueFd, 2> MakeWakePipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return {};
    return {UniqueFd(fds[0]), UniqueFd(fds[1])};
  }

  // Whether stdin has something (or its end) to read; false once woken to close.
  bool AwaitInput() {
    if (!wake_[0].valid()) return true;  // no pipe: a plain blocking read
    pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {wake_[0].get(), POLLIN, 0}};
    while (::poll(fds, 2, -1) < 0) {
      if (errno != EINTR) return true;
    }
    return fds[1].revents == 0;
  }

  void Run() {
    char buffer[1 << 16];
    bool discarding = false;  // the answers were lost: read on to the end, run nothing
    while (true) {
      if (!AwaitInput()) return;
      ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      if (discarding) continue;
      {
        std::lock_guard lock(mu_);
        all_handed_over_ = false;
      }
      boost::asio::post(io_, [this, chunk = std::string(buffer, static_cast<size_t>(n))] {
        lines_.Feed(chunk, handlers_.answers, [this] {
          const bool lost = AnswersLost(handlers_);
          {
            std::lock_guard lock(mu_);
            all_handed_over_ = true;
            answers_lost_ = lost;
          }
          handed_over_.notify_one();
        });
      });
      std::unique_lock lock(mu_);
      handed_over_.wait(lock, [&] { return all_handed_over_ || closing_; });
      if (closing_) return;
      if (answers_lost_) {
        discarding = true;
        lock.unlock();
        boost::asio::post(io_, [this] { handlers_.on_eof(); });
      }
    }
    boost::asio::post(io_, [this, discarding] {
      if (!discarding) {
        lines_.Finish();
        handlers_.on_eof();
      }
      if (handlers_.on_closed) handlers_.on_closed();
    });
  }

  boost::asio::io_context& io_;
  LineInputHandlers handlers_;
  PacedLines lines_;  // loop thread only
  bool dropped_ = false;  // loop thread only
  std::mutex mu_;
  std::condition_variable handed_over_;
  bool all_handed_over_ = true;
  bool answers_lost_ = false;
  bool closing_ = false;
  std::array<UniqueFd, 2> wake_;  // read end polled beside stdin; written by the destructor
  std::thread thread_;  // last: starts after the rest is built
};

}  // namespace

std::unique_ptr<LineOutput> MakeStdoutOutput(boost::asio::io_context& io) {
  if (IsPipeOrSocket(STDOUT_FILENO)) {
    auto stdout_fd = std::make_unique<LoopStdioFd>(STDOUT_FILENO);
    const int fd = stdout_fd->Take();
    if (fd >= 0) return std::make_unique<LoopOutput>(io, std::move(stdout_fd), fd);
  }
  return std::make_unique<ThreadOutput>(io);
}

std::unique_ptr<LineInput> StartStdinInput(boost::asio::io_context& io, size_t max_line_bytes,
                                           LineInputHandlers handlers) {
  if (IsPipeOrSocket(STDIN_FILENO)) {
    auto stdin_fd = std::make_unique<LoopStdioFd>(STDIN_FILENO);
    const int fd = stdin_fd->Take();
    if (fd >= 0) {
      return std::make_unique<LoopInput>(io, std::move(stdin_fd), fd, max_line_bytes,
                                         std::move(handlers));
    }
  }
  return std::make_unique<ThreadInput>(io, max_line_bytes, std::move(handlers));
}

}  // namespace las::tools
