// server.cpp - an example C++17 inference "server" on libtl_runtime and the ops package.
//
// Loads build/ops.tlpkg once and serves requests from 8 worker threads. Each request is one kernel
// call (add, softmax or batched matmul, float32, random shapes) on the request's own tensors,
// made through the typed wrappers of the package's generated header ops.h, and checked against a
// plain C++ reference. Prints throughput and p50/p99 latency for two threading modes:
//   runtime  the runtime's own thread pool (tl_runtime_options_t.num_threads)
//   host     the host owns the threads: tl_runtime_options_t.parallel_for runs the kernels'
//            programs on this file's small thread pool (HostPool)
//
// Usage: server [PACKAGE] [--requests N] [--workers W] [--mode runtime|host|both]
// Exit status 0 when every result matched its reference, 1 otherwise.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ops.h"

namespace {

// ------------------------------------------------------------------------------------------------
// A small host-owned thread pool implementing tl_parallel_for_fn_t: the caller posts a job (fn, n)
// and helps run it; idle pool threads take indices of the oldest unfinished job.
class HostPool {
 public:
  explicit HostPool(int threads) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Loop(); });
  }
  ~HostPool() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  // tl_parallel_for_fn_t
  static void ParallelFor(void* self, int64_t n, tl_parallel_task_fn_t fn, void* ctx) {
    static_cast<HostPool*>(self)->Run(n, fn, ctx);
  }
  std::atomic<int64_t> tasks_run{0};

 private:
  struct Job {
    int64_t n;
    tl_parallel_task_fn_t fn;
    void* ctx;
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> done{0};
  };
  // Runs indices of job until none are left; returns after the last one it took.
  void Help(Job* job) {
    for (int64_t i; (i = job->next.fetch_add(1)) < job->n;) {
      job->fn(job->ctx, i);
      tasks_run.fetch_add(1, std::memory_order_relaxed);
      if (job->done.fetch_add(1) + 1 == job->n) {
        std::lock_guard<std::mutex> lk(mu_);
        done_cv_.notify_all();
      }
    }
  }
  void Run(int64_t n, tl_parallel_task_fn_t fn, void* ctx) {
    Job job;
    job.n = n;
    job.fn = fn;
    job.ctx = ctx;
    {
      std::lock_guard<std::mutex> lk(mu_);
      queue_.push_back(&job);
    }
    cv_.notify_all();
    Help(&job);
    std::unique_lock<std::mutex> lk(mu_);
    queue_.erase(std::find(queue_.begin(), queue_.end(), &job));
    done_cv_.wait(lk, [&] { return job.done.load() == job.n; });
  }
  void Loop() {
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
      cv_.wait(lk, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      Job* job = queue_.front();
      if (job->next.load() >= job->n) {  // taken entirely: let its owner remove it
        queue_.pop_front();
        queue_.push_back(job);
        lk.unlock();
        std::this_thread::yield();
        lk.lock();
        continue;
      }
      lk.unlock();
      Help(job);   // job stays alive: its owner waits for done == n before returning
      lk.lock();
    }
  }
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  std::deque<Job*> queue_;
  bool stop_ = false;
};

// ------------------------------------------------------------------------------------------------
struct Tensor {
  std::vector<float> data;
  std::vector<int64_t> shape;
  DLTensor dl{};
  explicit Tensor(std::vector<int64_t> s) : shape(std::move(s)) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    data.assign(static_cast<size_t>(n), 0.0f);
    dl.data = data.data();
    dl.device = DLDevice{kDLCPU, 0};
    dl.ndim = static_cast<int32_t>(shape.size());
    dl.dtype = DLDataType{kDLFloat, 32, 1};
    dl.shape = shape.data();
    dl.strides = nullptr;
    dl.byte_offset = 0;
  }
  Tensor(const Tensor&) = delete;
};

void Fill(Tensor& t, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  for (float& v : t.data) v = u(rng);
}

bool Close(const std::vector<float>& got, const std::vector<double>& want, double rtol, double atol) {
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= atol + rtol * std::fabs(want[i]))) return false;
  return true;
}

using Clock = std::chrono::steady_clock;

// Times one kernel call (the request's latency; tensor set-up and the reference check are not counted).
#define TIMED(call)                                                                   \
  do {                                                                                \
    auto t_ = Clock::now();                                                           \
    st = (call);                                                                      \
    *latency_us = std::chrono::duration<double, std::micro>(Clock::now() - t_).count(); \
  } while (0)

// One request: a kernel call on fresh tensors, checked against the reference. Returns false on a
// mismatch or an error (printed).
bool Serve(tl_runtime_t* rt, const ops_kernels_t& k, std::mt19937& rng, double* latency_us) {
  std::uniform_int_distribution<int> pick(0, 2), dim(1, 96);
  tl_status_t st = TL_OK;
  switch (pick(rng)) {
    case 0: {  // add
      int64_t r = dim(rng), c = dim(rng) * 4;
      Tensor x({r, c}), y({r, c}), out({r, c});
      Fill(x, rng);
      Fill(y, rng);
      TIMED(ops_add__DT_float32(k.add__DT_float32, &x.dl, &y.dl, &out.dl));
      if (st != TL_OK) break;
      std::vector<double> want(out.data.size());
      for (size_t i = 0; i < want.size(); ++i) want[i] = double(x.data[i]) + double(y.data[i]);
      if (!Close(out.data, want, 1e-6, 1e-6)) return std::fprintf(stderr, "add mismatch\n"), false;
      return true;
    }
    case 1: {  // softmax over rows
      int64_t r = dim(rng), c = dim(rng) * 5;
      Tensor x({r, c}), out({r, c});
      Fill(x, rng);
      TIMED(ops_softmax__DT_float32(k.softmax__DT_float32, &x.dl, &out.dl));
      if (st != TL_OK) break;
      std::vector<double> want(out.data.size());
      for (int64_t i = 0; i < r; ++i) {
        double m = -INFINITY, s = 0;
        for (int64_t j = 0; j < c; ++j) m = std::max(m, double(x.data[i * c + j]));
        for (int64_t j = 0; j < c; ++j) s += std::exp(double(x.data[i * c + j]) - m);
        for (int64_t j = 0; j < c; ++j) want[i * c + j] = std::exp(double(x.data[i * c + j]) - m) / s;
      }
      if (!Close(out.data, want, 1e-4, 1e-6)) return std::fprintf(stderr, "softmax mismatch\n"), false;
      return true;
    }
    default: {  // batched matmul
      int64_t z = 1 + dim(rng) % 3, m = dim(rng), kk = dim(rng), n = dim(rng);
      Tensor a({z, m, kk}), b({z, kk, n}), c({z, m, n});
      Fill(a, rng);
      Fill(b, rng);
      TIMED(ops_matmul__DT_float32(k.matmul__DT_float32, &a.dl, &b.dl, &c.dl));
      if (st != TL_OK) break;
      std::vector<double> want(c.data.size());
      for (int64_t q = 0; q < z; ++q)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double s = 0;
            for (int64_t p = 0; p < kk; ++p) s += double(a.data[(q * m + i) * kk + p]) * double(b.data[(q * kk + p) * n + j]);
            want[(q * m + i) * n + j] = s;
          }
      if (!Close(c.data, want, 1e-4, 1e-4)) return std::fprintf(stderr, "matmul mismatch\n"), false;
      return true;
    }
  }
  std::fprintf(stderr, "launch failed: %s\n", tl_runtime_last_error(rt));
  return false;
}

struct Result {
  bool ok;
  double seconds;
  std::vector<double> latencies_us;
};

Result RunMode(const char* package, bool host_threads, int workers, int requests) {
  Result res{false, 0, {}};
  std::unique_ptr<HostPool> pool;
  tl_runtime_options_t opts;
  tl_runtime_options_initialize(&opts);
  opts.num_threads = 0;   // one per CPU
  if (host_threads) {
    pool.reset(new HostPool(static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))));
    opts.parallel_for = &HostPool::ParallelFor;
    opts.user_context = pool.get();
  }
  tl_runtime_t* rt = nullptr;
  tl_package_t* pkg = nullptr;
  if (tl_runtime_create(&opts, &rt) != TL_OK) {
    std::fprintf(stderr, "tl_runtime_create: %s\n", tl_runtime_last_error(nullptr));
    return res;
  }
  ops_kernels_t k;
  if (tl_package_open(rt, package, &pkg) != TL_OK || ops_kernels_resolve(pkg, &k) != TL_OK) {
    std::fprintf(stderr, "%s\n", tl_runtime_last_error(rt));
    tl_package_release(pkg);
    tl_runtime_release(rt);
    return res;
  }
  std::atomic<int> next{0};
  std::atomic<bool> ok{true};
  std::vector<std::vector<double>> lat(static_cast<size_t>(workers));
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937 rng(1234u + static_cast<unsigned>(w));
      while (next.fetch_add(1) < requests) {
        double us = 0;
        if (!Serve(rt, k, rng, &us)) ok = false;
        lat[static_cast<size_t>(w)].push_back(us);
      }
    });
  }
  for (auto& t : threads) t.join();
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (auto& l : lat) res.latencies_us.insert(res.latencies_us.end(), l.begin(), l.end());
  std::sort(res.latencies_us.begin(), res.latencies_us.end());
  res.ok = ok.load();
  std::printf("mode=%-7s target=%s workers=%d requests=%d ok=%s",
              host_threads ? "host" : "runtime", tl_package_target(pkg), workers, requests, res.ok ? "yes" : "NO");
  if (pool) std::printf(" host_pool_tasks=%lld", static_cast<long long>(pool->tasks_run.load()));
  std::printf("\n");
  tl_package_release(pkg);
  tl_runtime_release(rt);
  return res;
}

double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t i = static_cast<size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(i, sorted.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  const char* package = "build/ops.tlpkg";
  int requests = 2000, workers = 8;
  std::string mode = "both";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--requests" && i + 1 < argc) requests = std::atoi(argv[++i]);
    else if (a == "--workers" && i + 1 < argc) workers = std::atoi(argv[++i]);
    else if (a == "--mode" && i + 1 < argc) mode = argv[++i];
    else if (a[0] != '-') package = argv[i];
    else return std::fprintf(stderr, "usage: %s [PACKAGE] [--requests N] [--workers W] [--mode runtime|host|both]\n", argv[0]), 2;
  }
  std::printf("libtl_runtime %s, package %s\n", tl_runtime_version(), package);
  bool all_ok = true;
  for (int host = 0; host < 2; ++host) {
    if ((host && mode == "runtime") || (!host && mode == "host")) continue;
    Result r = RunMode(package, host != 0, workers, requests);
    all_ok = all_ok && r.ok;
    if (r.latencies_us.empty()) continue;
    std::printf("  throughput %.0f requests/s (with checking)  kernel latency p50 %.1f us  p99 %.1f us  (%zu requests in %.3f s)\n",
                static_cast<double>(r.latencies_us.size()) / r.seconds, Percentile(r.latencies_us, 0.50),
                Percentile(r.latencies_us, 0.99), r.latencies_us.size(), r.seconds);
  }
  std::printf("%s\n", all_ok ? "all results match the reference" : "FAILED");
  return all_ok ? 0 : 1;
}
