// Spread calls over every replica (target: 'all', no retries) and hold each DataNode to its own
// latency and error budget, so one slow or failing node cannot hide behind the others.
//
//   dnecho run --local-cluster examples/per-datanode-thresholds.js
//   dnecho run -e DNECHO_DATANODES=uuid1,uuid2,uuid3 -e DURATION=10s examples/per-datanode-thresholds.js
import { check } from 'k6';
import dnecho from 'k6/x/dnecho';

const client = new dnecho.Client({
  containerId: Number(__ENV.CONTAINER_ID || 1),
  scm: __ENV.DNECHO_SCM,
  conf: __ENV.DNECHO_CONF,
  target: 'all',
});

// Thresholds are static: options are read once, from the init context, before the test starts.
// The DataNodes come from DNECHO_DATANODES when given (to keep thresholds identical across runs),
// else from the pipeline the SCM lookup above found.
const datanodes = __ENV.DNECHO_DATANODES
  ? __ENV.DNECHO_DATANODES.split(',').map((s) => s.trim())
  : client.pipeline().datanodes.map((dn) => dn.uuid);

const p95 = __ENV.P95_MS || 10;
const thresholds = {
  dnecho_req_failed: ['rate<0.01'],
};
for (const uuid of datanodes) {
  thresholds[`dnecho_req_duration{datanode:${uuid}}`] = [`p(95)<${p95}`];
  thresholds[`dnecho_req_failed{datanode:${uuid}}`] = ['rate<0.01'];
}

export const options = {
  vus: Number(__ENV.VUS || 6),
  duration: __ENV.DURATION || '30s',
  thresholds,
};

export default function () {
  const r = client.echo({ payloadResp: '4KB' });
  check(r, { 'echo ok': (r) => r.ok });
}
