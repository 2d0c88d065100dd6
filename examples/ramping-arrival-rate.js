// Open-model load: the call rate ramps up, holds and ramps down whatever the latency, so a
// DataNode that slows down shows up as higher latency and dropped iterations instead of a lower
// rate (the closed loop of freon hides it).
//
//   dnecho run --local-cluster examples/ramping-arrival-rate.js
//   dnecho run --local-cluster -e RATE=200 -e STAGE=3s examples/ramping-arrival-rate.js
import dnecho from 'k6/x/dnecho';

const rate = Number(__ENV.RATE || 2000); // calls per second at the plateau
const stage = __ENV.STAGE || '20s';

export const options = {
  scenarios: {
    ramp: {
      executor: 'ramping-arrival-rate',
      startRate: Math.ceil(rate / 10),
      timeUnit: '1s',
      preAllocatedVUs: Number(__ENV.PRE_VUS || 16),
      maxVUs: Number(__ENV.MAX_VUS || 128),
      stages: [
        { duration: stage, target: rate }, // ramp up
        { duration: stage, target: rate }, // hold
        { duration: stage, target: 0 }, // ramp down
      ],
    },
  },
  thresholds: {
    dnecho_req_duration: [`p(99)<${__ENV.P99_MS || 20}`],
    dnecho_req_failed: ['rate<0.01'],
  },
};

const client = new dnecho.Client({
  containerId: Number(__ENV.CONTAINER_ID || 1),
  scm: __ENV.DNECHO_SCM,
  conf: __ENV.DNECHO_CONF,
  deadline: __ENV.DEADLINE || '5s', // fail fast: a 30 s Java deadline would pin VUs
});

export default function () {
  client.echo({ payloadResp: __ENV.PAYLOAD_RESP || '4KB' });
}
