// The three modes of `freon dn-echo` side by side, one scenario each, with thresholds per mode:
//   grpc        plain gRPC to the first DataNode (always read-only): the DataNode's request path
//   ratis-read  a Raft read the pipeline's leader answers (freon --ratis --read-only)
//   ratis-write a Raft write: logged, replicated to a majority, applied on every replica
//               (freon --ratis; the path behind hsync). It needs an OPEN container.
//
//   dnecho run --local-cluster examples/ratis-modes.js
//   dnecho run --local-cluster -e DURATION=5s -e VUS=4 examples/ratis-modes.js
import { check } from 'k6';
import dnecho from 'k6/x/dnecho';

const cluster = { containerId: Number(__ENV.CONTAINER_ID || 1), scm: __ENV.DNECHO_SCM, conf: __ENV.DNECHO_CONF };
const grpc = new dnecho.Client({ ...cluster });
const ratisRead = new dnecho.Client({ ...cluster, ratis: true, readOnly: true });
const ratisWrite = new dnecho.Client({ ...cluster, ratis: true });

const duration = __ENV.DURATION || '20s';
const vus = Number(__ENV.VUS || 8);
export const options = {
  scenarios: {
    grpc: { executor: 'constant-vus', vus, duration, exec: 'viaGrpc' },
    ratisRead: { executor: 'constant-vus', vus, duration, exec: 'ratisReads', startTime: duration },
    ratisWrite: { executor: 'constant-vus', vus, duration, exec: 'ratisWrites', startTime: `${2 * parseInt(duration, 10)}s` },
  },
  thresholds: {
    'dnecho_req_failed{mode:grpc}': ['rate<0.01'],
    'dnecho_req_failed{mode:ratis-read}': ['rate<0.01'],
    'dnecho_req_failed{mode:ratis-write}': ['rate<0.01'],
    // Per-mode latency, to compare in the summary: every sample carries its mode tag.
    'dnecho_req_duration{mode:grpc}': ['p(99)<1000'],
    'dnecho_req_duration{mode:ratis-read}': ['p(99)<1000'],
    'dnecho_req_duration{mode:ratis-write}': ['p(99)<1000'],
  },
};

function echo(client) {
  check(client.echo(), { 'echo ok': (r) => r.ok });
}

export function viaGrpc() { echo(grpc); }
export function ratisReads() { echo(ratisRead); }
export function ratisWrites() { echo(ratisWrite); }
