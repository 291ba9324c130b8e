// The real HTTP client on loopback: keep-alive reuse, reconnecting after a server closed an idle
// connection, and requests that would smuggle a second request refused before they are sent.

#include "asio/beast_transport.hpp"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <thread>

#include "asio/asio_clock.hpp"
#include "core/engine.hpp"

namespace pacing::asio_binding {
namespace {

using namespace std::chrono_literals;

/// A cpp-httplib server on an ephemeral loopback port, counting the requests it answers.
class CountingServer {
 public:
  explicit CountingServer(int keep_alive_seconds = 5) {
    server_.set_keep_alive_timeout(keep_alive_seconds);
    server_.set_tcp_nodelay(true);  // as the mock servers: header and body leave at once
    // The body leaves 200 ms after the header: the client settles the attempt on the header and
    // reads the body afterwards.
    server_.Get("/slow-body", [this](const httplib::Request&, httplib::Response& res) {
      ++answered;
      res.set_content_provider(2, "text/plain",
                               [](std::size_t, std::size_t, httplib::DataSink& sink) {
                                 std::this_thread::sleep_for(200ms);
                                 sink.write("ok", 2);
                                 return true;
                               });
    });
    server_.Get(R"(/.*)", [this](const httplib::Request&, httplib::Response& res) {
      ++answered;
      res.set_content("ok", "text/plain");
    });
    port = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(1ms);
  }
  ~CountingServer() {
    server_.stop();
    thread_.join();
  }
  int port = 0;
  std::atomic<int> answered{0};

 private:
  httplib::Server server_;
  std::thread thread_;
};

/// An engine on real time whose transport connects every host to `port` on loopback.
struct Client {
  explicit Client(int port)
      : clock(io), transport(clock, 5s, [port](std::string_view) {
          return std::optional<BeastTransport::Endpoint>(BeastTransport::Endpoint(
              boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)));
        }) {}

  /// Fetches `url` and runs the io_context until it completes.
  Completion fetch(Request request) {
    static thread_local std::optional<Completion> last;
    last.reset();
    engine.fetch(std::move(request), nullptr,
                 [](Engine::RequestId, const Completion& c) { last = c; });
    io.restart();
    while (!last && io.run_one_for(5s) > 0) {
    }
    return last.value_or(Completion{Completion::Kind::aborted, {}, 0, "no completion"});
  }

  boost::asio::io_context io;
  AsioClock clock;
  BeastTransport transport;
  Engine engine{clock, transport};
};

Request get(std::string url) {
  Request r;
  r.url = std::move(url);
  return r;
}

TEST(BeastTransport, SequentialRequestsToOneHostUseOneConnection) {
  CountingServer server;
  Client client(server.port);
  for (int i = 0; i < 5; ++i) {
    const Completion c = client.fetch(get("http://a.test/" + std::to_string(i)));
    ASSERT_EQ(c.kind, Completion::Kind::response) << c.error;
    EXPECT_EQ(c.last.response.status, 200);
  }
  EXPECT_EQ(server.answered, 5);
  EXPECT_EQ(client.transport.connections_opened(), 1u);
}

// The server closes the idle connection after its keep-alive timeout (1 s): the client sees it
// closed before it writes, and the next request goes on a new connection, in one attempt.
TEST(BeastTransport, AnIdleConnectionTheServerClosedIsReplaced) {
  CountingServer server(1);
  Client client(server.port);
  ASSERT_EQ(client.fetch(get("http://a.test/1")).kind, Completion::Kind::response);
  std::this_thread::sleep_for(1500ms);
  const Completion c = client.fetch(get("http://a.test/2"));
  EXPECT_EQ(c.kind, Completion::Kind::response) << c.error;
  EXPECT_EQ(c.attempts, 1);
  EXPECT_EQ(server.answered, 2);
  EXPECT_EQ(client.transport.connections_opened(), 2u);
}

// The first answer's body is still unread when the server closes the connection (the client runs
// nothing while it waits): the next request waits for that connection to finish its body, and
// must not be written to it once the server has closed it (a machine busy enough to delay a body
// read past the keep-alive timeout did that, 5 times in 8, 2026-12-02).
TEST(BeastTransport, AConnectionClosedWhileItsBodyWasUnreadIsNotReused) {
  CountingServer server(1);
  Client client(server.port);
  ASSERT_EQ(client.fetch(get("http://a.test/slow-body")).kind, Completion::Kind::response);
  std::this_thread::sleep_for(1500ms);
  const Completion c = client.fetch(get("http://a.test/2"));
  EXPECT_EQ(c.kind, Completion::Kind::response) << c.error << c.last.error;
  EXPECT_EQ(c.attempts, 1);
  EXPECT_EQ(server.answered, 2);
  EXPECT_EQ(client.transport.connections_opened(), 2u);
}

// CR/LF in a header value or the method would put a second request on the connection: the
// attempt fails before anything is sent.
TEST(BeastTransport, RefusesRequestsThatWouldSmuggleAnotherRequest) {
  CountingServer server;
  Client client(server.port);
  Request header = get("http://a.test/x");
  header.headers.emplace_back("X-Note", "a\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: a.test");
  const Completion c1 = client.fetch(header);
  EXPECT_EQ(c1.kind, Completion::Kind::failed);
  EXPECT_NE(c1.last.error.find("invalid header"), std::string::npos) << c1.last.error;
  Request method = get("http://a.test/x");
  method.method = "GET /smuggled HTTP/1.1\r\n";
  EXPECT_EQ(client.fetch(method).kind, Completion::Kind::failed);
  EXPECT_EQ(server.answered, 0);
  EXPECT_EQ(client.transport.connections_opened(), 0u);
}

}  // namespace
}  // namespace pacing::asio_binding
