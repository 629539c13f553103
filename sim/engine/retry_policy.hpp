// The drivers' default retry policies as one pure decision (retry.policy; configs/README.md
// "timeouts, retry, speculative"). The engine asks it when an attempt fails; the tests ask it
// directly (tests/retry_policy_test.cpp).
//
// Sources, per driver (the rules, not their code):
// - Java 3.x: datastax/java-driver 3.x DefaultRetryPolicy (onReadTimeout: retry on the same host
//   once when receivedResponses >= requiredResponses && !dataRetrieved; onWriteTimeout: only
//   WriteType.BATCH_LOG, once; onUnavailable: next host once; onRequestError, which RequestHandler
//   calls for client timeouts, connection errors and OVERLOADED / SERVER_ERROR answers of
//   idempotent statements only: next host, no count limit). The ScyllaDB fork's onRequestError
//   (scylladb/java-driver at 3158c9e6) retries once (nbRetry == 0) and never a Read/WriteFailure;
//   not modelled.
// - Java 4.x: apache/cassandra-java-driver core DefaultRetryPolicy (the same read, write and
//   unavailable rules; onErrorResponse: RETRY_NEXT for idempotent requests). Its request timeout
//   (basic.request.timeout) covers the whole request and is not retried (DriverTimeoutException).
// - Python: scylladb/python-driver cassandra/policies.py RetryPolicy (on_read_timeout,
//   on_write_timeout BATCH_LOG, on_unavailable next host once; on_request_error RETRY_NEXT_HOST
//   without a count); cassandra/cluster.py ResponseFuture (commit 76430785): OverloadedErrorMessage
//   goes to on_request_error with no idempotence check; the client timeout (_on_timeout) ends the
//   request with OperationTimedOut, not retried.
// - gocql: scylladb/gocql policies.go SimpleRetryPolicy (commit 3703808c): Attempt() while
//   Attempts() <= NumRetries; GetRetryType RetryNextHost for every error, Rethrow when the error
//   may have executed (a client timeout, conn.go ErrTimeoutNoResponse) and the query is not
//   idempotent; an LWT retries on the same host (GetRetryTypeLWT). Server errors (read/write
//   timeout, unavailable, overloaded) are all retried on the next host.
// - Rust: scylladb/scylla-rust-driver scylla/src/policies/retry/default.rs DefaultRetryPolicy
//   (read at 16bed77288; read timeout: same target once when received >= required && !data_present; write timeout:
//   idempotent BATCH_LOG once; Unavailable: next target once; Overloaded / ServerError: next
//   target when idempotent); its request timeout is not retried.
// - Node.js: datastax/nodejs-driver lib/policies/retry.js RetryPolicy (commit c0a6c5fa; nbRetry > 0
//   rethrows for read/write timeout and unavailable; onRequestError next host) and
//   lib/request-execution.js (client timeouts and overloaded go to onRequestError only for
//   idempotent requests; write timeouts to onWriteTimeout only for idempotent ones).
//
// lbsim's writes are single-partition (WriteType SIMPLE, never BATCH_LOG), so no driver retries a
// server write timeout except gocql.
#pragma once
#include <cstdint>

#include "sim/engine/model_spec.hpp"
#include "sim/metrics/run_result.hpp"

namespace lbsim {

enum class RetryDecision : std::uint8_t { Rethrow, SameHost, NextHost };

struct RetryInput {
  ErrorKind error = ErrorKind::ClientTimeout;  // Unavailable, ReadTimeout, WriteTimeout, ClientTimeout, Overloaded
  std::uint32_t retries = 0;                   // retries of this execution so far (the drivers' nbRetry)
  bool lwt = false;                            // a lightweight transaction: never idempotent
  // ReadTimeout: received >= required and the data replica did not answer (the server's
  // ReadTimeoutException fields, from the coordinator: sim_server.cpp).
  bool enough_without_data = false;
};

// The decision of a driver policy (not `Default`, which the engine keeps as it was).
constexpr RetryDecision retry_decision(const RetrySpec& r, const RetryInput& in) {
  using enum RetryDecision;
  const bool idem = r.idempotent && !in.lwt;
  const bool first = in.retries == 0;
  switch (r.kind) {
    case RetryPolicyKind::Default:
    case RetryPolicyKind::Never: return Rethrow;
    case RetryPolicyKind::GocqlSimple: {
      if (in.retries >= r.num_retries) return Rethrow;  // Attempts() <= NumRetries, Attempts() = retries + 1
      if (in.error == ErrorKind::ClientTimeout && !idem) return Rethrow;  // potentially executed
      return in.lwt ? SameHost : NextHost;
    }
    default: break;
  }
  switch (in.error) {
    case ErrorKind::ReadTimeout: return first && in.enough_without_data ? SameHost : Rethrow;
    case ErrorKind::WriteTimeout: return Rethrow;  // only BATCH_LOG is retried
    case ErrorKind::Unavailable: return first ? NextHost : Rethrow;
    case ErrorKind::Overloaded:
      if (r.kind == RetryPolicyKind::Python) return NextHost;
      return idem ? NextHost : Rethrow;
    case ErrorKind::ClientTimeout:
      if (r.kind == RetryPolicyKind::Java3 || r.kind == RetryPolicyKind::Nodejs) return idem ? NextHost : Rethrow;
      return Rethrow;  // Java 4.x, Python and Rust end the request at their timeout
    default: return Rethrow;
  }
}

}  // namespace lbsim
