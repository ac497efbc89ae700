#include "tools/stdio_lines.h"

#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "tools/line_write_queue.h"
#include "tools/paced_lines.h"
#include "transport/line_reader.h"

namespace las::tools {
namespace {

bool IsPipeOrSocket(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

// Asynchronous writes on the loop (tools/line_write_queue.h).
class LoopOutput final : public LineOutput {
 public:
  LoopOutput(boost::asio::io_context& io, int fd)
      : out_(io, fd),
        queue_(
            [this](const std::string& data, std::function<void(bool)> done) {
              boost::asio::async_write(
                  out_, boost::asio::buffer(data),
                  [done = std::move(done)](const boost::system::error_code& error, size_t) {
                    done(!error);
                  });
            },
            [&io](std::function<void()> task) { boost::asio::post(io, std::move(task)); }) {}
  void Write(std::string line) override { queue_.Write(std::move(line)); }
  void WhenDrained(std::function<void()> done) override { queue_.WhenDrained(std::move(done)); }
  bool Congested() const override { return queue_.Congested(); }
  void ReadWhenAllowed(std::function<void()> read) override {
    queue_.ReadWhenAllowed(std::move(read));
  }

 private:
  boost::asio::posix::stream_descriptor out_;
  LineWriteQueue queue_;
};

// Blocking writes on a thread, for terminals and files.
class ThreadOutput final : public LineOutput {
 public:
  explicit ThreadOutput(boost::asio::io_context& io) : io_(io), thread_([this] { Run(); }) {}
  ~ThreadOutput() override {
    {
      std::lock_guard lock(mu_);
      closing_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  void Write(std::string line) override {
    line.push_back('\n');
    {
      std::lock_guard lock(mu_);
      queue_.push_back(std::move(line));
    }
    wake_.notify_one();
  }
  void WhenDrained(std::function<void()> done) override {
    {
      std::lock_guard lock(mu_);
      if (!queue_.empty() || busy_) {
        drained_.push_back(std::move(done));
        return;
      }
    }
    boost::asio::post(io_, std::move(done));
  }

 private:
  void Run() {
    std::unique_lock lock(mu_);
    while (true) {
      wake_.wait(lock, [&] { return closing_ || !queue_.empty(); });
      if (queue_.empty()) return;
      std::string line = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
      lock.unlock();
      size_t written = 0;
      while (written < line.size()) {
        ssize_t n = ::write(STDOUT_FILENO, line.data() + written, line.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // the client is gone; nothing else can be done with this line
        written += static_cast<size_t>(n);
      }
      lock.lock();
      busy_ = false;
      if (queue_.empty()) {
        for (auto& done : drained_) boost::asio::post(io_, std::move(done));
        drained_.clear();
      }
    }
  }

  boost::asio::io_context& io_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::string> queue_;
  std::vector<std::function<void()>> drained_;
  bool busy_ = false;
  bool closing_ = false;
  std::thread thread_;  // last: starts after the rest is built
};

class LoopInput final : public LineInput {
 public:
  LoopInput(boost::asio::io_context& io, int fd, size_t max_line, LineInputHandlers handlers)
      : in_(io, fd),
        handlers_(std::move(handlers)),
        lines_(max_line, [this](const transport::LineEvent& event) {
          if (event.kind == transport::LineEvent::Kind::kTooLong) {
            handlers_.on_too_long(event.bytes);
          } else {
            handlers_.on_line(event.bytes);
          }
        }) {
    Read();
  }

 private:
  void Read() {
    in_.async_read_some(boost::asio::buffer(buffer_),
                        [this](const boost::system::error_code& error, size_t n) {
                          if (error || n == 0) {
                            lines_.Finish();
                            handlers_.on_eof();
                            return;
                          }
                          lines_.Feed(std::string_view(buffer_, n), handlers_.answers,
                                      [this] { Read(); });
                        });
  }

  boost::asio::posix::stream_descriptor in_;
  LineInputHandlers handlers_;
  PacedLines lines_;
  char buffer_[1 << 16];
};

class ThreadInput final : public LineInput {
 public:
  ThreadInput(boost::asio::io_context& io, size_t max_line, LineInputHandlers handlers)
      : handlers_(std::make_shared<LineInputHandlers>(std::move(handlers))),
        thread_([this, &io, max_line] { Run(io, max_line); }) {}
  ~ThreadInput() override {
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Run(boost::asio::io_context& io, size_t max_line) {
    transport::LineFramer framer(max_line);
    auto handlers = handlers_;
    auto post_line = [&](const transport::LineEvent& event) {
      std::string bytes(event.bytes);
      const bool too_long = event.kind == transport::LineEvent::Kind::kTooLong;
      boost::asio::post(io, [handlers, bytes, too_long] {
        too_long ? handlers->on_too_long(bytes) : handlers->on_line(bytes);
      });
    };
    char buffer[1 << 16];
    while (true) {
      ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      framer.Feed(std::string_view(buffer, static_cast<size_t>(n)), post_line);
    }
    framer.Finish(post_line);
    boost::asio::post(io, [handlers] { handlers->on_eof(); });
  }

  std::shared_ptr<LineInputHandlers> handlers_;
  std::thread thread_;
};

}  // namespace

std::unique_ptr<LineOutput> MakeStdoutOutput(boost::asio::io_context& io) {
  if (IsPipeOrSocket(STDOUT_FILENO)) {
    const int fd = ::dup(STDOUT_FILENO);
    if (fd >= 0) return std::make_unique<LoopOutput>(io, fd);
  }
  return std::make_unique<ThreadOutput>(io);
}

std::unique_ptr<LineInput> StartStdinInput(boost::asio::io_context& io, size_t max_line_bytes,
                                           LineInputHandlers handlers) {
  if (IsPipeOrSocket(STDIN_FILENO)) {
    const int fd = ::dup(STDIN_FILENO);
    if (fd >= 0) return std::make_unique<LoopInput>(io, fd, max_line_bytes, std::move(handlers));
  }
  return std::make_unique<ThreadInput>(io, max_line_bytes, std::move(handlers));
}

}  // namespace las::tools
