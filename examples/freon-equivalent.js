// The k6 form of `ozone freon dn-echo --container-id 1 -n 100000 -t 32 --payload-resp 1`:
// 32 workers share 100000 calls (freon's closed loop), one gRPC client object (--clients 1),
// a new stream per call, the first pipeline member with retries on the others (the Java client).
//
//   dnecho run --local-cluster examples/freon-equivalent.js
//   dnecho run --local-cluster -e ITERATIONS=1000 -e THREADS=4 -e CLIENTS=2 examples/freon-equivalent.js
//
// Compare with `dnecho freon dn-echo ... -n 100000 -t 32`: same concurrency, same requests.
import dnecho from 'k6/x/dnecho';

const threads = Number(__ENV.THREADS || 32); // freon -t
const iterations = Number(__ENV.ITERATIONS || 100000); // freon -n

export const options = {
  scenarios: {
    dn_echo: {
      executor: 'shared-iterations',
      vus: threads,
      iterations: Math.max(iterations, threads),
      maxDuration: __ENV.MAX_DURATION || '10m',
    },
  },
  // freon's report columns (Dropwizard timer): min, median, mean, p75, p95, p98, p99, p99.9, max.
  summaryTrendStats: ['min', 'med', 'avg', 'p(75)', 'p(95)', 'p(98)', 'p(99)', 'p(99.9)', 'max', 'count'],
  thresholds: {
    // Without -f (--fail-at-end) freon stops at the first failure; abortOnFail is the closest
    // equivalent (thresholds are evaluated every 2 s, so a few more calls may run).
    dnecho_req_failed: __ENV.FAIL_AT_END ? ['rate==0'] : [{ threshold: 'rate==0', abortOnFail: true }],
  },
};

const client = new dnecho.Client({
  containerId: Number(__ENV.CONTAINER_ID || 1), // freon --container-id
  clients: Number(__ENV.CLIENTS || 1), // freon --clients: VU n uses client n mod clients
  stream: __ENV.STREAM || 'new', // dnecho freon --stream: 'new' (Java) or 'reuse'
  transport: __ENV.TRANSPORT || 'grpc', // dnecho freon --transport: 'grpc' (grpc-go) or 'h2'
  scm: __ENV.DNECHO_SCM,
  conf: __ENV.DNECHO_CONF,
});

// freon's sizes are in KB (= KiB); the response is capped at 2097151 bytes as freon caps it.
// prepare() checks and encodes the request once: echo() then skips reading the object on every
// call, which is the fastest form (`client.echo({...})` works too).
const request = client.prepare({
  payloadReq: `${__ENV.PAYLOAD_REQ_KB || 0}KB`, // freon --payload-req
  payloadResp: `${__ENV.PAYLOAD_RESP_KB || 1}KB`, // freon --payload-resp
  sleepMs: Number(__ENV.SLEEP_MS || 0), // freon --sleep-time-ms
});

export default function () {
  client.echo(request);
}
