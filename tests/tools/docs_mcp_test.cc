// las.docs as MCP resources and prompts: the endpoint's resources/* and prompts/* methods
// (line in, line out) over a backend that serves tools/docs_mcp.h, and the defaults of
// EndpointBackend for backends that serve none.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tools/docs_mcp.h"
#include "tools/docs_source.h"
#include "tools/mcp_endpoint.h"

namespace las::tools {
namespace {

using nlohmann::json;

// Serves no tools; resources and prompts come from the EndpointBackend defaults.
class BareBackend : public EndpointBackend {
 public:
  void OnSessionOpened(const SessionInfo&) override {}
  std::string ListTools(const SessionInfo&) override { return R"({"tools":[]})"; }
  void CallTool(const SessionInfo&, const std::string&, const std::string&, const std::string&,
                ProgressSink, std::function<void(ToolCallReply)> done) override {
    done(ToolCallReply::Error(-32603, "unused"));
  }
};

// Serves las.docs the way the gateway does, with the source's switch in `enabled`.
class DocsBackend : public BareBackend {
 public:
  std::string ListResources(const SessionInfo&) override {
    return DocsResourcesListJson(enabled);
  }
  std::optional<std::string> ReadResource(const SessionInfo&, const std::string& uri) override {
    return DocsResourceReadJson(enabled, uri);
  }
  std::string ListPrompts(const SessionInfo&) override { return DocsPromptsListJson(enabled); }
  std::optional<std::string> GetPrompt(const SessionInfo&, const std::string& name,
                                       const std::string& arguments) override {
    last_arguments = arguments;
    return DocsPromptGetJson(enabled, name);
  }
  bool enabled = true;
  std::string last_arguments;
};

class DocsEndpointTest : public ::testing::Test {
 protected:
  json Send(McpEndpoint& endpoint, const std::string& line) {
    const size_t before = out_.size();
    endpoint.OnLine(line);
    if (out_.size() == before) return nullptr;
    EXPECT_EQ(out_.size(), before + 1) << "one response line per request";
    return json::parse(out_.back());
  }
  json Request(McpEndpoint& endpoint, const std::string& method, const std::string& params) {
    return Send(endpoint, R"({"jsonrpc":"2.0","id":7,"method":")" + method + R"(","params":)" +
                              params + "}");
  }
  std::unique_ptr<McpEndpoint> Make(EndpointBackend& backend) {
    return std::make_unique<McpEndpoint>(EndpointOptions{}, backend,
                                         [this](std::string line) { out_.push_back(line); });
  }
  std::vector<std::string> out_;
};

TEST_F(DocsEndpointTest, InitializeAdvertisesResourcesAndPromptsAndTheyWaitForIt) {
  DocsBackend backend;
  auto endpoint = Make(backend);
  for (const char* method : {"resources/list", "resources/read", "prompts/list", "prompts/get"}) {
    json early = Request(*endpoint, method, R"({"uri":"las://docs/authoring","name":"x"})");
    EXPECT_EQ(early["error"]["code"], -32600) << method;
    EXPECT_FALSE(early.contains("result")) << method;
  }
  json init = Request(*endpoint, "initialize", "{}");
  const json& caps = init["result"]["capabilities"];
  EXPECT_TRUE(caps.contains("tools"));
  EXPECT_EQ(caps["resources"], json({{"subscribe", false}, {"listChanged", false}}));
  EXPECT_EQ(caps["prompts"], json({{"listChanged", false}}));
}

TEST_F(DocsEndpointTest, ResourcesListAndReadServeTheDocsTables) {
  DocsBackend backend;
  auto endpoint = Make(backend);
  Request(*endpoint, "initialize", "{}");
  // params optional, a cursor ignored: one page, no nextCursor.
  json list = Send(*endpoint, R"({"jsonrpc":"2.0","id":"l","method":"resources/list"})");
  EXPECT_EQ(list["id"], "l");
  const json& resources = list["result"]["resources"];
  ASSERT_EQ(resources.size(), DocResources().size());
  EXPECT_EQ(resources[0], json({{"uri", "las://docs/authoring"},
                                {"name", "authoring"},
                                {"description", "How to write and sign a new surface"},
                                {"mimeType", "text/markdown"}}));
  EXPECT_FALSE(list["result"].contains("nextCursor"));
  // One page with no nextCursor: no cursor can be valid (MCP pagination: -32602).
  EXPECT_EQ(Request(*endpoint, "resources/list", R"({"cursor":"abc"})")["error"]["code"], -32602);

  for (const auto& doc : DocResources()) {
    json read = Request(*endpoint, "resources/read", json{{"uri", doc.uri}}.dump());
    const json& contents = read["result"]["contents"];
    ASSERT_EQ(contents.size(), 1u) << read.dump();
    EXPECT_EQ(contents[0]["uri"], doc.uri);
    EXPECT_EQ(contents[0]["mimeType"], "text/markdown");
    EXPECT_EQ(contents[0]["text"], doc.text);
  }
}

// An unknown uri is MCP's -32002 (probe CU3); a malformed request -32602.
TEST_F(DocsEndpointTest, UnknownResourceIsResourceNotFoundAndMalformedIsInvalidParams) {
  DocsBackend backend;
  auto endpoint = Make(backend);
  Request(*endpoint, "initialize", "{}");
  // A name is not a uri; the client's text never comes back.
  for (const char* params : {R"({"uri":"operator-manual"})", R"({"uri":"las://docs/<script>"})"}) {
    json read = Request(*endpoint, "resources/read", params);
    EXPECT_EQ(read["error"]["code"], -32002) << params;
    EXPECT_EQ(read["error"]["message"], "Resource not found");
    EXPECT_EQ(out_.back().find("script"), std::string::npos);
  }
  for (const char* params : {"{}", R"({"uri":5})", "[]"}) {
    EXPECT_EQ(Request(*endpoint, "resources/read", params)["error"]["code"], -32602) << params;
  }
}

TEST_F(DocsEndpointTest, PromptsListAndGetServeTheDocsPrompts) {
  DocsBackend backend;
  auto endpoint = Make(backend);
  Request(*endpoint, "initialize", "{}");
  json list = Request(*endpoint, "prompts/list", "{}");
  const json& prompts = list["result"]["prompts"];
  ASSERT_EQ(prompts.size(), DocPrompts().size());
  EXPECT_EQ(prompts[1], json({{"name", "troubleshoot-surface"},
                              {"description", "Diagnose a missing or failing surface"},
                              {"arguments", json::array()}}));

  json get = Request(*endpoint, "prompts/get", R"({"name":"troubleshoot-surface"})");
  EXPECT_EQ(get["result"]["description"], "Diagnose a missing or failing surface");
  ASSERT_EQ(get["result"]["messages"].size(), 1u);
  const json& message = get["result"]["messages"][0];
  EXPECT_EQ(message["role"], "user");
  EXPECT_EQ(message["content"]["type"], "text");
  EXPECT_NE(message["content"]["text"].get<std::string>().find("las://docs/troubleshooting"),
            std::string::npos);
  EXPECT_EQ(backend.last_arguments, "{}");

  json with_args =
      Request(*endpoint, "prompts/get", R"({"name":"author-surface","arguments":{"a":"b"}})");
  EXPECT_TRUE(with_args.contains("result")) << "unused arguments are ignored";
  EXPECT_EQ(backend.last_arguments, R"({"a":"b"})");

  json unknown = Request(*endpoint, "prompts/get", R"({"name":"authoring"})");
  EXPECT_EQ(unknown["error"]["code"], -32602) << "a resource name is not a prompt";
  EXPECT_EQ(unknown["error"]["message"], "Unknown prompt");
  for (const char* params : {"{}", R"({"name":1})", R"({"name":"author-surface","arguments":[]})"}) {
    EXPECT_EQ(Request(*endpoint, "prompts/get", params)["error"]["code"], -32602) << params;
  }
}

TEST_F(DocsEndpointTest, ADisabledDocsSourceListsNothingAndRefusesReads) {
  DocsBackend backend;
  backend.enabled = false;
  auto endpoint = Make(backend);
  Request(*endpoint, "initialize", "{}");
  EXPECT_EQ(Request(*endpoint, "resources/list", "{}")["result"], json({{"resources", json::array()}}));
  EXPECT_EQ(Request(*endpoint, "prompts/list", "{}")["result"], json({{"prompts", json::array()}}));
  EXPECT_EQ(Request(*endpoint, "resources/read", R"({"uri":"las://docs/operator-manual"})")
                ["error"]["code"], -32002);
  EXPECT_EQ(Request(*endpoint, "prompts/get", R"({"name":"author-surface"})")["error"]["code"],
            -32602);
}

TEST_F(DocsEndpointTest, BackendDefaultsServeNoResourcesOrPrompts) {
  BareBackend backend;
  auto endpoint = Make(backend);
  Request(*endpoint, "initialize", "{}");
  EXPECT_EQ(Request(*endpoint, "resources/list", "{}")["result"], json({{"resources", json::array()}}));
  EXPECT_EQ(Request(*endpoint, "prompts/list", "{}")["result"], json({{"prompts", json::array()}}));
  EXPECT_EQ(Request(*endpoint, "resources/read", R"({"uri":"las://docs/authoring"})")
                ["error"]["message"], "Resource not found");
  EXPECT_EQ(Request(*endpoint, "prompts/get", R"({"name":"author-surface"})")["error"]["message"],
            "Unknown prompt");
  // Part of the resources capability: answered, empty (probe CU2); one page, as every list.
  EXPECT_EQ(Request(*endpoint, "resources/templates/list", "{}")["result"],
            json({{"resourceTemplates", json::array()}}));
  EXPECT_EQ(Request(*endpoint, "resources/templates/list", R"({"cursor":"x"})")["error"]["code"],
            -32602);
  EXPECT_EQ(Request(*endpoint, "resources/subscribe", "{}")["error"]["code"], -32601);
}

}  // namespace
}  // namespace las::tools
