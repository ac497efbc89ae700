// Where the daemon's socket lives and what a client refuses (tools/daemon_socket.h), and the
// listener's stale-file and mode rules (tools/unix_listener.h), on a real filesystem.
#include "tools/daemon_socket.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <vector>

#include "tests/support/temp_dir.h"
#include "tools/operator_client.h"
#include "tools/unix_listener.h"

namespace las::tools {
namespace {

namespace fs = std::filesystem;

class DaemonSocketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    run_ = tmp_.Sub("run");
    fs::create_directory(run_);
    fs::permissions(run_, fs::perms::owner_all, fs::perm_options::replace);
  }
  testing::TempDir tmp_;
  std::string run_;
};

TEST_F(DaemonSocketTest, CreatesAPrivateDirectoryAndNamesTheSocketAfterTheCanonicalLogPath) {
  fs::create_directories(tmp_.Sub("log"));
  auto socket = DaemonSocketFor(tmp_.Sub("log"), run_, /*create=*/true);
  ASSERT_TRUE(socket.ok()) << socket.status().ToString();
  EXPECT_EQ(socket->dir, run_ + "/las");
  struct stat st {};
  ASSERT_EQ(::lstat(socket->dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  fs::create_directory_symlink(tmp_.Sub("log"), tmp_.Sub("alias"));
  auto alias = DaemonSocketFor(tmp_.Sub("alias") + "/", run_, false);
  ASSERT_TRUE(alias.ok());
  EXPECT_EQ(alias->path, socket->path) << "one log, one socket, whatever the spelling";
  auto other = DaemonSocketFor(tmp_.Sub("other"), run_, false);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->path, socket->path);
}

TEST_F(DaemonSocketTest, WithoutXdgRuntimeDirTheFallbackIsPerUser) {
  auto socket = DaemonSocketFor(tmp_.Sub("log"), "", /*create=*/false);
  if (socket.ok()) {
    EXPECT_EQ(socket->dir, "/tmp/las-" + std::to_string(::geteuid()));
  } else {
    EXPECT_NE(socket.status().message().find("/tmp/las-" + std::to_string(::geteuid())),
              std::string::npos)
        << socket.status().ToString();
  }
}

TEST_F(DaemonSocketTest, ADirectoryOpenToOthersIsRefused) {
  fs::create_directory(run_ + "/las");
  fs::permissions(run_ + "/las", fs::perms::owner_all | fs::perms::group_read |
                                     fs::perms::group_exec,
                  fs::perm_options::replace);
  auto socket = DaemonSocketFor(tmp_.Sub("log"), run_, true);
  EXPECT_EQ(socket.status().code(), Code::kDenied) << socket.status().ToString();
}

TEST_F(DaemonSocketTest, ASymlinkedDirectoryIsRefused) {
  fs::create_directory(tmp_.Sub("elsewhere"));
  fs::permissions(tmp_.Sub("elsewhere"), fs::perms::owner_all, fs::perm_options::replace);
  fs::create_directory_symlink(tmp_.Sub("elsewhere"), run_ + "/las");
  auto socket = DaemonSocketFor(tmp_.Sub("log"), run_, true);
  EXPECT_EQ(socket.status().code(), Code::kDenied) << socket.status().ToString();
}

TEST_F(DaemonSocketTest, NoDaemonIsNotFoundAndAFileThatIsNoSocketIsDenied) {
  auto socket = DaemonSocketFor(tmp_.Sub("log"), run_, true);
  ASSERT_TRUE(socket.ok());
  EXPECT_EQ(ConnectToDaemon(socket->path).status().code(), Code::kNotFound);
  std::ofstream(socket->path) << "not a socket";
  EXPECT_EQ(ConnectToDaemon(socket->path).status().code(), Code::kDenied);
  boost::asio::io_context io;
  EXPECT_EQ(UnixListener::Bind(io, socket->path).status().code(), Code::kDenied)
      << "the listener never deletes a file that is not a socket";
}

TEST_F(DaemonSocketTest, AStaleSocketIsNotFoundAndTheListenerReplacesIt) {
  auto socket = DaemonSocketFor(tmp_.Sub("log"), run_, true);
  ASSERT_TRUE(socket.ok());
  {  // A socket file nobody accepts on: what a killed daemon leaves.
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, socket->path.c_str(), sizeof address.sun_path - 1);
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ::close(fd);
  }
  EXPECT_EQ(ConnectToDaemon(socket->path).status().code(), Code::kNotFound);
  EXPECT_TRUE(FoundStaleSocket(ConnectToDaemon(socket->path).status()));
  EXPECT_FALSE(FoundStaleSocket(ConnectToDaemon(socket->path + ".none").status())) << "no file";
  boost::asio::io_context io;
  auto listener = UnixListener::Bind(io, socket->path);
  ASSERT_TRUE(listener.ok()) << listener.status().ToString();
  struct stat st {};
  ASSERT_EQ(::lstat(socket->path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto connected = ConnectToDaemon(socket->path);
  EXPECT_TRUE(connected.ok()) << connected.status().ToString();
  (*listener)->Close();
  (*listener)->RemoveSocketFile();
  EXPECT_FALSE(fs::exists(socket->path));
}

// A stopped server accepts (the kernel queues the connection) and never answers: the CLI
// gives up instead of waiting forever, and says the change may still be made.
TEST_F(DaemonSocketTest, AnOperatorRequestToAServerThatNeverAnswersTimesOut) {
  auto socket = DaemonSocketFor(tmp_.Sub("log"), run_, true);
  ASSERT_TRUE(socket.ok()) << socket.status().ToString();
  boost::asio::io_context io;  // never run: nothing is accepted or answered
  auto listener = UnixListener::Bind(io, socket->path);
  ASSERT_TRUE(listener.ok()) << listener.status().ToString();
  OperatorRequest request{tmp_.Sub("log"), run_, "las/grant.issue", "{}"};
  request.timeout_ms = 300;
  bool reached = false;
  auto answer = SendOperatorRequest(request, &reached);
  EXPECT_TRUE(reached);
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), Code::kIo);
  EXPECT_NE(answer.status().message().find("did not answer within"), std::string::npos) << answer.status().ToString();
  EXPECT_NE(answer.status().message().find("may still be made"), std::string::npos);
}

// The socket path is printed as one line and read back as a path: a line break or an
// escape in it is refused, not made (probe AE1).
TEST_F(DaemonSocketTest, ARuntimeDirWithAControlCharacterIsRefusedBeforeAnythingIsMade) {
  for (const std::string& name : {std::string("a\nb"), std::string("a\x1b[1m"),
                                  std::string("a\x7f"), std::string("a\tb")}) {
    const std::string dir = run_ + "/" + name;
    fs::create_directory(dir);
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace);
    for (bool create : {true, false}) {
      auto socket = DaemonSocketFor(tmp_.Sub("log"), dir, create);
      EXPECT_EQ(socket.status().code(), Code::kInvalidArgument) << socket.status().ToString();
      EXPECT_NE(socket.status().message().find("control character"), std::string::npos);
      EXPECT_EQ(socket.status().message().find_first_of("\n\x1b\x7f\t"), std::string::npos)
          << "the message shows it escaped";
    }
    EXPECT_FALSE(fs::exists(dir + "/las"));
    EXPECT_EQ(ConnectToDaemonOf(tmp_.Sub("log"), dir).status().code(), Code::kInvalidArgument);
  }
  // UTF-8 beyond ASCII is no control character.
  const std::string accented = run_ + "/\xc5\x82\xc4\x85ka";
  fs::create_directory(accented);
  fs::permissions(accented, fs::perms::owner_all, fs::perm_options::replace);
  EXPECT_TRUE(DaemonSocketFor(tmp_.Sub("log"), accented, true).ok());
}

// A runtime directory that runs into a loop of symbolic links is the environment's mistake
// for a client as for the daemon (exit 2), not an I/O error (exit 9).
TEST_F(DaemonSocketTest, ARuntimeDirThroughALoopOfLinksIsAUsageErrorForAClientToo) {
  const std::string a = run_ + "/a";
  const std::string b = run_ + "/b";
  fs::create_symlink(b, a);
  fs::create_symlink(a, b);
  for (bool create : {true, false}) {
    auto socket = DaemonSocketFor(tmp_.Sub("log"), a, create);
    EXPECT_EQ(socket.status().code(), Code::kInvalidArgument) << socket.status().ToString();
    EXPECT_NE(socket.status().message().find("loop of symbolic links"), std::string::npos)
        << socket.status().ToString();
  }
  EXPECT_EQ(ConnectToDaemonOf(tmp_.Sub("log"), a).status().code(), Code::kInvalidArgument);
}

// A runtime directory in which nothing can be made (/proc answers mkdir with ENOENT) is
// there: the error says what failed there, not that XDG_RUNTIME_DIR does not exist
// (probe DG4).
TEST_F(DaemonSocketTest, ARuntimeDirWhereNothingCanBeMadeIsNotCalledMissing) {
  auto socket = DaemonSocketFor(tmp_.Sub("log"), "/proc", true);
  ASSERT_FALSE(socket.ok());
  const std::string message = socket.status().message();
  EXPECT_EQ(message.find("does not exist"), std::string::npos) << message;
  EXPECT_EQ(message.find("is not a directory"), std::string::npos) << message;
  EXPECT_NE(message.find("XDG_RUNTIME_DIR /proc: making the daemon's socket directory /proc/las"),
            std::string::npos) << message;
}

// A runtime directory too long for the socket paths is refused when the paths are made,
// before anything is created (probe AU4); a bind of a path that long refuses it too.
TEST_F(DaemonSocketTest, APathTooLongForASocketIsRefused) {
  const std::string deep = run_ + "/" + std::string(120, 'x');
  fs::create_directory(deep);
  fs::permissions(deep, fs::perms::owner_all, fs::perm_options::replace);
  auto socket = DaemonSocketFor(tmp_.Sub("log"), deep, true);
  ASSERT_EQ(socket.status().code(), Code::kInvalidArgument) << socket.status().ToString();
  EXPECT_NE(socket.status().message().find("is too long: its socket paths would be"),
            std::string::npos)
      << socket.status().ToString();
  EXPECT_FALSE(fs::exists(deep + "/las")) << "nothing made";
  boost::asio::io_context io;
  const std::string path = deep + "/las/0123456789abcdef.sock";
  auto bound = UnixListener::Bind(io, path);
  EXPECT_EQ(bound.status().code(), Code::kInvalidArgument) << bound.status().ToString();
  EXPECT_EQ(bound.status().message(), "socket path too long for a Unix socket: " + path);
}

// This process's descriptors open on /dev/null.
std::set<int> DevNullDescriptors() {
  std::set<int> fds;
  for (const auto& entry : fs::directory_iterator("/proc/self/fd")) {
    std::error_code error;
    if (fs::read_symlink(entry.path(), error) == "/dev/null") fds.insert(std::stoi(entry.path().filename()));
  }
  return fds;
}

int LowestFreeDescriptor() {
  const int fd = ::fcntl(0, F_DUPFD, 0);
  ::close(fd);
  return fd;
}

void SetDescriptorLimit(rlim_t soft) {
  rlimit limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &limit), 0);
  limit.rlim_cur = soft;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &limit), 0) << std::strerror(errno);
}

bool RunUntil(boost::asio::io_context& io, const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    io.restart();
    io.run_for(std::chrono::milliseconds(20));
  }
  return done();
}

// Out of descriptors, a pending connection used to wait in the backlog unanswered (probe
// BF1). The listener's spare descriptor lets it close the connection at once and say so;
// when even the spare frees nothing (the limit below its number), it says the connection
// waits, and serves it once descriptors are back; each shortage is counted from 1 (BG1, BG4).
TEST_F(DaemonSocketTest, OutOfDescriptorsTheListenerClosesANewConnectionOrSaysItWaits) {
  auto socket = DaemonSocketFor(tmp_.Sub("log"), run_, true);
  ASSERT_TRUE(socket.ok()) << socket.status().ToString();
  boost::asio::io_context io;
  const std::set<int> before = DevNullDescriptors();
  auto listener = UnixListener::Bind(io, socket->path);
  ASSERT_TRUE(listener.ok()) << listener.status().ToString();
  std::vector<std::string> notes;
  int accepted = 0;
  (*listener)->Accept({[&](UniqueFd) { ++accepted; }, [](uid_t) {},
                       [&](const std::string& note) { notes.push_back(note); }});
  io.run_for(std::chrono::milliseconds(10));  // the reactor's own descriptors, made now
  std::set<int> spares = DevNullDescriptors();
  for (int fd : before) spares.erase(fd);
  ASSERT_EQ(spares.size(), 1u) << "one spare descriptor";
  const int spare = *spares.begin();

  // Client sockets made while descriptors are plenty: connect(2) takes no new one.
  std::vector<UniqueFd> clients;
  for (int i = 0; i < 3; ++i) clients.emplace_back(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket->path.c_str(), sizeof address.sun_path - 1);
  const auto connect = [&](int i) {
    ASSERT_EQ(::connect(clients[i].get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0)
        << std::strerror(errno);
  };
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  const std::string prefix = "out of file descriptors (see `ulimit -n`): ";

  // No descriptor free below the limit: the spare frees one, the connection is closed.
  SetDescriptorLimit(LowestFreeDescriptor());
  connect(0);
  ASSERT_TRUE(RunUntil(io, [&] { return !notes.empty(); }));
  EXPECT_EQ(notes[0], prefix + "1 connection(s) closed unanswered so far");
  char byte;
  EXPECT_EQ(::recv(clients[0].get(), &byte, 1, 0), 0) << "closed, not queued";

  // The limit at the spare's number: freeing it frees nothing below the limit.
  SetDescriptorLimit(spare);
  connect(1);
  ASSERT_TRUE(RunUntil(io, [&] { return notes.size() >= 3; }));
  EXPECT_EQ(notes[1], prefix + "no descriptor could be freed to close a new connection, which "
                               "waits until one is (1 attempt(s) so far)");
  EXPECT_EQ(notes[2], prefix + "no descriptor could be freed to close a new connection, which "
                               "waits until one is (2 attempt(s) so far)");
  EXPECT_EQ(accepted, 0);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &saved), 0);
  ASSERT_TRUE(RunUntil(io, [&] { return accepted == 1; })) << "served once descriptors are back";
  EXPECT_TRUE(DevNullDescriptors().count(spare)) << "the spare is taken back";

  // A new shortage is counted from 1 again.
  const size_t seen = notes.size();
  SetDescriptorLimit(LowestFreeDescriptor());
  connect(2);
  ASSERT_TRUE(RunUntil(io, [&] { return notes.size() > seen; }));
  EXPECT_EQ(notes[seen], prefix + "1 connection(s) closed unanswered so far");
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &saved), 0);
  (*listener)->Close();
  (*listener)->RemoveSocketFile();
}

}  // namespace
}  // namespace las::tools
