// null_mcp_child: the cheapest stdio MCP server we can write, for the gateway benchmark
// (bench/gateway_bench.mjs). It answers `initialize`, `ping`, `tools/list` (one tool, `echo`)
// and `tools/call` of `echo` (text "Echo: <message>"), ignores notifications, and answers
// anything else with -32601. Behind Las it shows what Las itself adds to a call: the child
// costs a few microseconds.
//
// Speed over generality: it reads stdin in large chunks, handles every complete line in the
// chunk, and writes all the answers to that chunk with one write(). It parses only what it
// needs (the top-level "id" and "method", params.arguments.message) with a small JSON
// skipper; values are copied out raw, so an id or a message is echoed byte for byte.
// A line that is not a JSON object gets -32700 with id null. Exits 0 on stdin EOF.
// Not a reference implementation of anything; not used outside bench/.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

namespace {

// Skips JSON whitespace.
size_t SkipWs(std::string_view s, size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) ++i;
  return i;
}

// Returns the index just past the JSON value starting at i, or npos if malformed.
size_t SkipValue(std::string_view s, size_t i) {
  i = SkipWs(s, i);
  if (i >= s.size()) return std::string_view::npos;
  const char c = s[i];
  if (c == '"') {
    for (++i; i < s.size(); ++i) {
      if (s[i] == '\\') {
        ++i;
      } else if (s[i] == '"') {
        return i + 1;
      }
    }
    return std::string_view::npos;
  }
  if (c == '{' || c == '[') {
    int depth = 0;
    for (; i < s.size(); ++i) {
      const char d = s[i];
      if (d == '"') {
        i = SkipValue(s, i);
        if (i == std::string_view::npos) return i;
        --i;
      } else if (d == '{' || d == '[') {
        ++depth;
      } else if (d == '}' || d == ']') {
        if (--depth == 0) return i + 1;
      }
    }
    return std::string_view::npos;
  }
  // number, true, false, null
  size_t j = i;
  while (j < s.size() && s[j] != ',' && s[j] != '}' && s[j] != ']' && s[j] != ' ' &&
         s[j] != '\t' && s[j] != '\r' && s[j] != '\n') {
    ++j;
  }
  return j == i ? std::string_view::npos : j;
}

// Finds the raw value of top-level key `key` in the object `obj`; empty if absent or malformed.
std::string_view Member(std::string_view obj, std::string_view key) {
  size_t i = SkipWs(obj, 0);
  if (i >= obj.size() || obj[i] != '{') return {};
  ++i;
  while (true) {
    i = SkipWs(obj, i);
    if (i >= obj.size() || obj[i] == '}') return {};
    if (obj[i] != '"') return {};
    const size_t key_end = SkipValue(obj, i);
    if (key_end == std::string_view::npos) return {};
    const std::string_view k = obj.substr(i + 1, key_end - i - 2);
    i = SkipWs(obj, key_end);
    if (i >= obj.size() || obj[i] != ':') return {};
    const size_t v_begin = SkipWs(obj, i + 1);
    const size_t v_end = SkipValue(obj, v_begin);
    if (v_end == std::string_view::npos) return {};
    if (k == key) return obj.substr(v_begin, v_end - v_begin);
    i = SkipWs(obj, v_end);
    if (i < obj.size() && obj[i] == ',') ++i;
  }
}

constexpr std::string_view kToolsList =
    R"({"tools":[{"name":"echo","description":"Echoes back the input string",)"
    R"("inputSchema":{"type":"object","properties":{"message":{"type":"string",)"
    R"("description":"Message to echo"}},"required":["message"]}}]})";

void Respond(std::string& out, std::string_view id, std::string_view result) {
  out += R"({"jsonrpc":"2.0","id":)";
  out += id;
  out += R"(,"result":)";
  out += result;
  out += "}\n";
}

void Error(std::string& out, std::string_view id, int code, std::string_view message) {
  out += R"({"jsonrpc":"2.0","id":)";
  out += id.empty() ? std::string_view("null") : id;
  out += R"(,"error":{"code":)";
  out += std::to_string(code);
  out += R"(,"message":")";
  out += message;
  out += "\"}}\n";
}

void Handle(std::string_view line, std::string& out) {
  const size_t first = SkipWs(line, 0);
  if (first >= line.size()) return;  // blank line
  if (line[first] != '{') {
    Error(out, {}, -32700, "Parse error");
    return;
  }
  const std::string_view id = Member(line, "id");
  const std::string_view method = Member(line, "method");
  if (id.empty() || id == "null") return;  // a notification (or a response): no answer
  if (method == R"("tools/call")") {
    const std::string_view params = Member(line, "params");
    const std::string_view name = Member(params, "name");
    if (name != R"("echo")") {
      Error(out, id, -32602, "Unknown tool");
      return;
    }
    const std::string_view message = Member(Member(params, "arguments"), "message");
    if (message.size() < 2 || message.front() != '"') {
      Error(out, id, -32602, "message must be a string");
      return;
    }
    std::string result = R"({"content":[{"type":"text","text":"Echo: )";
    result += message.substr(1);  // the raw string literal minus its opening quote
    result += "}]}";
    Respond(out, id, result);
  } else if (method == R"("initialize")") {
    std::string_view version = Member(Member(line, "params"), "protocolVersion");
    if (version.size() < 2 || version.front() != '"') version = R"("2024-11-05")";
    std::string result = R"({"protocolVersion":)";
    result += version;
    result += R"(,"capabilities":{"tools":{}},"serverInfo":{"name":"null-mcp-child",)"
              R"("version":"1.0.0"}})";
    Respond(out, id, result);
  } else if (method == R"("tools/list")") {
    Respond(out, id, kToolsList);
  } else if (method == R"("ping")") {
    Respond(out, id, "{}");
  } else {
    Error(out, id, -32601, "Method not found");
  }
}

bool WriteAll(std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = write(STDOUT_FILENO, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

int main() {
  std::string in;
  std::string out;
  char buf[64 * 1024];
  while (true) {
    const ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (n == 0) return 0;
    in.append(buf, static_cast<size_t>(n));
    size_t start = 0;
    for (size_t nl; (nl = in.find('\n', start)) != std::string::npos; start = nl + 1) {
      Handle(std::string_view(in).substr(start, nl - start), out);
    }
    in.erase(0, start);
    if (!out.empty()) {
      if (!WriteAll(out)) return 1;
      out.clear();
    }
  }
}
