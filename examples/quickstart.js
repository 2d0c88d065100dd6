// Quickstart: a few VUs echo to the container's pipeline for 30 s and check every answer.
//
//   dnecho run --local-cluster examples/quickstart.js
//   DNECHO_SCM=scm1:9860 dnecho run examples/quickstart.js   (or OZONE_CONF_DIR=/etc/ozone)
//   dnecho run --local-cluster -e DURATION=5s -e VUS=2 examples/quickstart.js
import { check } from 'k6';
import dnecho from 'k6/x/dnecho';

export const options = {
  vus: Number(__ENV.VUS || 8),
  duration: __ENV.DURATION || '30s',
  thresholds: {
    dnecho_req_failed: ['rate<0.01'],
    checks: ['rate>0.99'],
  },
};

// Created in the init context: the SCM lookup runs once for all VUs, which share the connections.
// Without scm/conf the cluster comes from `--local-cluster`, else from OZONE_CONF_DIR.
const client = new dnecho.Client({
  containerId: Number(__ENV.CONTAINER_ID || 1),
  scm: __ENV.DNECHO_SCM,
  conf: __ENV.DNECHO_CONF,
});

export default function () {
  const r = client.echo({ payloadResp: '1KB' });
  check(r, {
    'echo ok': (r) => r.ok,
    'answered within 100ms': (r) => r.rtt < 100,
  });
}
