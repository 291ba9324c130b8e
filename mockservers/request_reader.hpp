#pragma once
// Every open client connection of the mock servers, read on one thread (epoll) until a whole
// request has arrived; only then does a worker thread take the connection, answer, and hand it
// back. A client trickling its request, or idling between requests, holds no worker: with more
// slow clients than workers, new clients would otherwise wait for a slow one to time out.

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "mockservers/connections.hpp"
#include "mockservers/request_framing.hpp"
#include "mockservers/worker_pool.hpp"

namespace pacing::mock {

class RequestReader {
 public:
  using Clock = std::chrono::steady_clock;
  struct Timing {
    Clock::duration idle;      ///< a connection waiting for its next request closes after this
    Clock::duration request;   ///< a request must arrive whole within this of its first byte
    Clock::duration linger;    ///< after a refusal, the client's bytes are read (and dropped)
                               ///< this long before closing, so it reads the answer, not a reset
    std::size_t max_requests;  ///< requests per connection (the last one is told to close)
  };
  /// Answers one request that arrived whole, on a worker thread: `head` is its head (request
  /// line to the empty line; the body was read and dropped). Returns whether the connection stays
  /// open for the next request. `last` asks for the connection to close after this answer.
  using Serve = std::function<bool(socket_t sock, const std::string& head, bool last)>;

  RequestReader(WorkerPool& workers, Connections& connections, Timing timing,
                FramingLimits limits = {});
  /// As stop().
  ~RequestReader();
  RequestReader(const RequestReader&) = delete;
  RequestReader& operator=(const RequestReader&) = delete;

  /// Told of each request refused for its framing (status and reason), on the reader's thread;
  /// set before the first add().
  using Refused = std::function<void(socket_t sock, int status, const std::string& reason)>;
  void on_refused(Refused refused) { refused_ = std::move(refused); }

  /// Reads `sock`'s requests from now on, each answered by `serve` (which must outlive the
  /// reader's stop()). Returns false once stopping: the caller closes `sock`.
  bool add(socket_t sock, const Serve* serve);
  /// Closes every connection it holds, waits until every request being answered is, joins its
  /// thread. Idempotent.
  void stop();

 private:
  struct Connection;
  using Ptr = std::shared_ptr<Connection>;

  void loop();
  /// Takes what add() and finished() handed over.
  void adopt();
  void readable(const Ptr& c);
  /// Frames what `c` has read: dispatches a whole request, refuses a bad one.
  void frame(const Ptr& c);
  void dispatch(const Ptr& c);
  void refuse(const Ptr& c, int status, const std::string& reason);
  /// A worker is done with `c`: back to reading, or closed.
  void finished(const Ptr& c, bool keep);
  void watch(const Ptr& c);
  /// Closes `c` from the loop (which may be watching it).
  void close(const Ptr& c);
  /// Closes a connection nobody watches (from a worker, or the loop).
  void close_socket(Connection& c);
  void sweep(Clock::time_point now);
  void wake();

  WorkerPool& workers_;
  Connections& connections_;
  Timing timing_;
  FramingLimits limits_;
  Refused refused_;
  int epoll_ = -1;
  int wake_ = -1;                              // an eventfd: add() and finished() wake the loop
  std::unordered_map<socket_t, Ptr> watched_;  // the loop's own
  std::mutex mutex_;                           // guards what follows
  std::vector<Ptr> inbox_;
  bool stopping_ = false;
  std::size_t serving_ = 0;  // requests queued for or held by a worker
  std::condition_variable idle_;
  std::thread thread_;
};

}  // namespace pacing::mock
