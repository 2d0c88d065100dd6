// make bench: Trend memory. SAMPLES values go into one Trend, 1000 per iteration, on 2 VUs.
import { Trend } from 'k6/metrics';

const trend = new Trend('bench_trend', true);
const n = Number(__ENV.SAMPLES || 1000000);

export const options = {
  scenarios: { fill: { executor: 'shared-iterations', vus: 2, iterations: Math.ceil(n / 1000), maxDuration: '10m' } },
};

export default function () {
  for (let i = 0; i < 1000; i++) {
    trend.add(Math.random() * 100);
  }
}
