// Latency against response size: one scenario per size, run one after the other (startTime),
// each with its own exec function and a `payload` tag, so the summary and the thresholds show one
// line per size.
//
//   dnecho run --local-cluster examples/payload-sweep.js
//   dnecho run --local-cluster -e STEP_SECONDS=2 -e VUS=2 examples/payload-sweep.js
import dnecho from 'k6/x/dnecho';

const step = Number(__ENV.STEP_SECONDS || 15); // seconds per size
const pause = 2; // seconds between sizes, after each scenario's gracefulStop
const vus = Number(__ENV.VUS || 8);

const client = new dnecho.Client({
  containerId: Number(__ENV.CONTAINER_ID || 1),
  scm: __ENV.DNECHO_SCM,
  conf: __ENV.DNECHO_CONF,
  stream: __ENV.STREAM === 'reuse' ? 'reuse' : 'new',
});

const sizes = [
  { exec: 'empty', payload: '0B' },
  { exec: 'small', payload: '4KB' },
  { exec: 'medium', payload: '64KB' },
  { exec: 'large', payload: '1MB' },
  { exec: 'max', payload: '2MB' }, // capped at 2097151 bytes, like freon
];

const scenarios = {};
const thresholds = {};
sizes.forEach((s, i) => {
  scenarios[`payload_${s.exec}`] = {
    executor: 'constant-vus',
    vus,
    duration: `${step}s`,
    startTime: `${i * (step + 1 + pause)}s`,
    gracefulStop: '1s',
    exec: s.exec,
    tags: { payload: s.payload },
  };
  thresholds[`dnecho_req_duration{payload:${s.payload}}`] = ['max>=0']; // one summary line per size
});
thresholds.dnecho_req_failed = ['rate<0.01'];

export const options = { scenarios, thresholds };

export function empty() {
  client.echo();
}

export function small() {
  client.echo({ payloadResp: '4KB' });
}

export function medium() {
  client.echo({ payloadResp: '64KB' });
}

export function large() {
  client.echo({ payloadResp: '1MB' });
}

export function max() {
  client.echo({ payloadResp: '2MB' });
}
