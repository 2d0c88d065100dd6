// Async echo: each VU keeps IN_FLIGHT Echo calls in flight with client.echoAsync(), the way k6's
// gRPC asyncInvoke does, so 4 VUs can load a cluster like 32 VUs calling echo().
//
//   dnecho run --local-cluster examples/async-echo.js
//   dnecho run --local-cluster -e VUS=2 -e IN_FLIGHT=16 -e DURATION=10s examples/async-echo.js
import { check } from 'k6';
import dnecho from 'k6/x/dnecho';

const IN_FLIGHT = Number(__ENV.IN_FLIGHT || 8);
// Calls each chain makes per iteration: as soon as one returns, its chain sends the next.
const CALLS = Number(__ENV.CALLS || 16);

export const options = {
  vus: Number(__ENV.VUS || 4),
  duration: __ENV.DURATION || '30s',
  thresholds: {
    dnecho_req_failed: ['rate<0.01'],
    checks: ['rate>0.99'],
  },
};

const client = new dnecho.Client({ containerId: Number(__ENV.CONTAINER_ID || 1), scm: __ENV.DNECHO_SCM });
const request = { payloadResp: '1KB' };

async function chain() {
  for (let i = 0; i < CALLS; i++) {
    const r = await client.echoAsync(request);
    check(r, { 'echo ok': (r) => r.ok });
  }
}

// The iteration ends when every chain has finished: the VU's event loop waits for the calls.
export default async function () {
  const chains = [];
  for (let i = 0; i < IN_FLIGHT; i++) chains.push(chain());
  await Promise.all(chains);
}
