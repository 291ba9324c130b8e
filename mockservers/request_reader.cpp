#include "mockservers/request_reader.hpp"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <stdexcept>

namespace pacing::mock {

struct RequestReader::Connection {
  socket_t sock = -1;
  const Serve* serve = nullptr;
  RequestFramer framer;
  std::string unread;  // bytes read past the last whole request (the next, pipelined)
  Clock::time_point deadline;
  bool request_started = false;  // the deadline is the request's, not the idle one
  bool continued = false;        // 100 Continue was sent for this request
  bool lingering = false;        // refused: reading only to close without a reset
  std::size_t served = 0;
};

RequestReader::RequestReader(WorkerPool& workers, Connections& connections, Timing timing,
                             FramingLimits limits)
    : workers_(workers), connections_(connections), timing_(timing), limits_(limits) {
  epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.fd = wake_;
  if (epoll_ < 0 || wake_ < 0 || ::epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &event) != 0) {
    if (epoll_ >= 0) ::close(epoll_);
    if (wake_ >= 0) ::close(wake_);
    throw std::runtime_error("mock servers: cannot start the request reader (epoll)");
  }
  thread_ = std::thread([this] { loop(); });
}

RequestReader::~RequestReader() {
  stop();
  ::close(epoll_);
  ::close(wake_);
}

bool RequestReader::add(socket_t sock, const Serve* serve) {
  auto c = std::make_shared<Connection>();
  c->sock = sock;
  c->serve = serve;
  c->framer = RequestFramer(limits_);
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return false;
    inbox_.push_back(std::move(c));
  }
  wake();
  return true;
}

void RequestReader::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake();
  if (thread_.joinable()) thread_.join();
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return serving_ == 0; });
}

void RequestReader::wake() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_, &one, sizeof one);
}

void RequestReader::loop() {
  constexpr auto kSweep = std::chrono::milliseconds(100);
  epoll_event events[128];
  auto next_sweep = Clock::now() + kSweep;
  for (;;) {
    const int ready = ::epoll_wait(epoll_, events, 128, static_cast<int>(kSweep.count()));
    {
      std::lock_guard lock(mutex_);
      if (stopping_) break;
    }
    adopt();
    for (int i = 0; i < ready; ++i) {
      const int fd = events[i].data.fd;
      if (fd == wake_) {
        std::uint64_t count;
        [[maybe_unused]] const ssize_t n = ::read(wake_, &count, sizeof count);
        continue;
      }
      auto it = watched_.find(fd);
      if (it == watched_.end()) continue;
      const Ptr c = it->second;  // readable() may drop the map's reference
      readable(c);
    }
    const auto now = Clock::now();
    if (now >= next_sweep) {
      sweep(now);
      next_sweep = now + kSweep;
    }
  }
  // Stopping: what was handed over before stopping_ was set is in the inbox, and nothing comes
  // after (finished() closes its connection itself from then on).
  std::vector<Ptr> left;
  {
    std::lock_guard lock(mutex_);
    left.swap(inbox_);
  }
  for (auto& [fd, c] : watched_) left.push_back(c);
  watched_.clear();
  for (const Ptr& c : left) close(c);
}

void RequestReader::adopt() {
  std::vector<Ptr> taken;
  {
    std::lock_guard lock(mutex_);
    taken.swap(inbox_);
  }
  const auto now = Clock::now();
  for (const Ptr& c : taken) {
    c->deadline = now + timing_.idle;
    c->request_started = false;
    frame(c);  // a pipelined request may be there already
  }
}

void RequestReader::readable(const Ptr& c) {
  char buffer[16 * 1024];
  const ssize_t got = ::recv(c->sock, buffer, sizeof buffer, MSG_DONTWAIT);
  if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (got <= 0) return close(c);  // the client left; a request it cut short is not answered
  if (c->lingering) return;       // dropped
  c->unread.append(buffer, static_cast<std::size_t>(got));
  frame(c);
}

void RequestReader::frame(const Ptr& c) {
  if (c->lingering) {
    c->unread.clear();
    return watch(c);
  }
  const std::size_t used = c->framer.feed(c->unread);
  c->unread.erase(0, used);
  if (c->framer.started() && !c->request_started) {
    c->request_started = true;
    c->deadline = Clock::now() + timing_.request;
  }
  if (c->framer.complete()) return dispatch(c);
  if (c->framer.invalid()) return refuse(c, c->framer.status(), c->framer.reason());
  if (c->framer.expects_continue() && !c->continued) {
    // The body is awaited here, not by cpp-httplib (the framer left Expect out of the head).
    c->continued = true;
    static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    ::send(c->sock, kContinue.data(), kContinue.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  }
  watch(c);
}

void RequestReader::watch(const Ptr& c) {
  if (watched_.contains(c->sock)) return;
  epoll_event event{};
  event.events = EPOLLIN | EPOLLRDHUP;
  event.data.fd = c->sock;
  if (::epoll_ctl(epoll_, EPOLL_CTL_ADD, c->sock, &event) != 0) return close(c);
  watched_.emplace(c->sock, c);
}

void RequestReader::dispatch(const Ptr& c) {
  if (watched_.erase(c->sock) > 0) ::epoll_ctl(epoll_, EPOLL_CTL_DEL, c->sock, nullptr);
  const bool last = ++c->served >= timing_.max_requests;
  {
    std::lock_guard lock(mutex_);
    ++serving_;
  }
  // From here until finished() only the worker touches the connection.
  workers_.run([this, c, last] {
    const bool keep = (*c->serve)(c->sock, c->framer.head(), last);
    finished(c, keep && !last);
  });
}

void RequestReader::finished(const Ptr& c, bool keep) {
  if (keep) {
    std::unique_lock lock(mutex_);
    if (!stopping_) {
      c->framer.reset();
      c->continued = false;
      inbox_.push_back(c);
      if (--serving_ == 0) idle_.notify_all();
      lock.unlock();
      return wake();
    }
  }
  close_socket(*c);  // not watched: the loop holds no reference to it
  std::lock_guard lock(mutex_);
  if (--serving_ == 0) idle_.notify_all();
}

void RequestReader::refuse(const Ptr& c, int status, const std::string& reason) {
  if (refused_) refused_(c->sock, status, reason);
  const std::string answer = refusal(status, reason);
  ::send(c->sock, answer.data(), answer.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  // RFC 9112 §9.6: half-close, then read and drop what the client still sends for a moment;
  // closing at once with unread bytes would reset the connection before the answer is read.
  ::shutdown(c->sock, SHUT_WR);
  c->lingering = true;
  c->unread.clear();
  c->deadline = Clock::now() + timing_.linger;
  watch(c);
}

void RequestReader::close(const Ptr& c) {
  if (c->sock < 0) return;
  if (watched_.erase(c->sock) > 0) ::epoll_ctl(epoll_, EPOLL_CTL_DEL, c->sock, nullptr);
  close_socket(*c);
}

void RequestReader::close_socket(Connection& c) {
  connections_.remove(c.sock);
  ::shutdown(c.sock, SHUT_RDWR);
  ::close(c.sock);
  c.sock = -1;
}

void RequestReader::sweep(Clock::time_point now) {
  std::vector<Ptr> expired;
  for (const auto& [fd, c] : watched_) {
    if (now >= c->deadline) expired.push_back(c);
  }
  for (const Ptr& c : expired) {
    if (c->request_started && !c->lingering) {
      refuse(c, 408, "the request did not arrive whole in time");
    } else {
      close(c);
    }
  }
}

}  // namespace pacing::mock
