// The manifest writer: what it writes reads back identically, and one Manifest has one
// spelling.
#include "trust/manifest_writer.h"

#include <gtest/gtest.h>

#include "trust/rfc3339.h"

namespace las::trust {
namespace {

Sha256Digest DigestOf(const std::string& text) { return Sha256(text); }

Manifest Sample() {
  Manifest m;
  m.sequence = 42;
  m.expires_at_micros = *ParseRfc3339UtcMicros("2030-01-02T03:04:05.123456Z");
  SurfaceBinding python;
  python.name = "most";
  python.command = "/usr/bin/python3";
  python.cwd = "/home/op/ws/most dir";
  python.argv = {"/usr/bin/python3", "/home/op/ws/most dir/server.py", "--flag=\"quoted\"\\",
                 "tab\there", "ünïcode ✓"};
  python.env = {"HOME", "MOST_CONFIG"};
  python.binary_sha256 = DigestOf("python");
  python.code = CodeBinding{"/home/op/ws/most dir/server.py", DigestOf("script")};
  python.tools = {
      ToolBinding{"health", DigestOf("s1"), DigestOf("d1"), {{"api_key", "most.api-key"}, {"b", "c"}}},
      ToolBinding{"diagnostics.v2", DigestOf("s2"), DigestOf("d2"), {}},
  };
  SurfaceBinding binary;
  binary.name = "weles";
  binary.command = "/ws/bin/weles";
  binary.cwd = "/ws";
  binary.argv = {"/ws/bin/weles", "ctrl\x01char"};
  binary.binary_sha256 = DigestOf("weles");
  SurfaceBinding empty;
  empty.name = "no-tools";
  empty.command = "/ws/bin/x";
  empty.cwd = "/";
  empty.argv = {"/ws/bin/x"};
  m.surfaces = {python, binary, empty};
  return m;
}

TEST(ManifestWriterTest, RoundTripsThroughTheStrictParser) {
  const Manifest m = Sample();
  const std::string text = SerializeManifest(m);
  Result<Manifest> parsed = ParseManifest(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString() << "\n" << text;
  EXPECT_TRUE(ManifestsEqual(*parsed, m));
  EXPECT_EQ(SerializeManifest(*parsed), text) << "one Manifest, one spelling";
  EXPECT_TRUE(ValidateManifest(m).ok());
}

TEST(ManifestWriterTest, EmptyManifestRoundTrips) {
  Manifest m;
  m.sequence = 1;
  m.expires_at_micros = *ParseRfc3339UtcMicros("2030-01-01T00:00:00Z");
  const std::string text = SerializeManifest(m);
  EXPECT_EQ(text,
            "{\n  \"schema_version\": 1,\n  \"sequence\": 1,\n  \"expires_at\": "
            "\"2030-01-01T00:00:00Z\",\n  \"surfaces\": []\n}\n");
  Result<Manifest> parsed = ParseManifest(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_TRUE(ManifestsEqual(*parsed, m));
}

TEST(ManifestWriterTest, LayoutIsStableAndReviewable) {
  Manifest m;
  m.sequence = 7;
  m.expires_at_micros = *ParseRfc3339UtcMicros("2030-01-01T00:00:00Z");
  SurfaceBinding s;
  s.name = "echo";
  s.command = "/usr/bin/python3";
  s.cwd = "/ws";
  s.argv = {"/usr/bin/python3", "/ws/stand_in.py", "echo"};
  s.code = CodeBinding{"/ws/stand_in.py", {}};
  s.tools = {ToolBinding{"echo", {}, {}, {{"token", "echo.token"}}}};
  m.surfaces = {s};
  const std::string zeros(64, '0');
  EXPECT_EQ(SerializeManifest(m),
            "{\n"
            "  \"schema_version\": 1,\n"
            "  \"sequence\": 7,\n"
            "  \"expires_at\": \"2030-01-01T00:00:00Z\",\n"
            "  \"surfaces\": [\n"
            "    {\n"
            "      \"name\": \"echo\",\n"
            "      \"command\": \"/usr/bin/python3\",\n"
            "      \"cwd\": \"/ws\",\n"
            "      \"argv\": [\"/usr/bin/python3\", \"/ws/stand_in.py\", \"echo\"],\n"
            "      \"env\": [],\n"
            "      \"binary_sha256\": \"" + zeros + "\",\n"
            "      \"code_path\": \"/ws/stand_in.py\",\n"
            "      \"code_sha256\": \"" + zeros + "\",\n"
            "      \"tools\": [\n"
            "        {\n"
            "          \"name\": \"echo\",\n"
            "          \"input_schema_sha256\": \"" + zeros + "\",\n"
            "          \"description_sha256\": \"" + zeros + "\",\n"
            "          \"credential_templates\": { \"token\": \"echo.token\" }\n"
            "        }\n"
            "      ]\n"
            "    }\n"
            "  ]\n"
            "}\n");
}

TEST(ManifestWriterTest, ValidateRefusesWhatTheParserWouldRefuse) {
  Manifest m = Sample();
  m.surfaces[1].name = m.surfaces[0].name;  // duplicate surface name
  Status status = ValidateManifest(m);
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_NE(status.message().find("duplicate surface name"), std::string::npos) << status.message();

  Manifest zero = Sample();
  zero.sequence = 0;
  EXPECT_FALSE(ValidateManifest(zero).ok());

  Manifest far = Sample();
  far.expires_at_micros = INT64_MAX;  // no RFC 3339 spelling
  EXPECT_FALSE(ValidateManifest(far).ok());
}

TEST(ManifestWriterTest, ParsedThirdPartySpellingReserializesToTheCanonicalLayout) {
  const std::string zeros(64, 'a');
  const std::string compact =
      "{\"surfaces\":[{\"tools\":[],\"name\":\"x\",\"cwd\":\"/w\",\"command\":\"/w/x\","
      "\"argv\":[\"/w/x\"],\"env\":[\"A\"],\"binary_sha256\":\"" + zeros +
      "\"}],\"expires_at\":\"2031-05-06T07:08:09Z\",\"sequence\":3,\"schema_version\":1}";
  Result<Manifest> parsed = ParseManifest(compact);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  Result<Manifest> again = ParseManifest(SerializeManifest(*parsed));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(ManifestsEqual(*again, *parsed));
}

}  // namespace
}  // namespace las::trust
